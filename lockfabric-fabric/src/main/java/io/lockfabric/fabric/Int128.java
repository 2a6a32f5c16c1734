package io.lockfabric.fabric;

/**
 * A 128-bit value as two little-endian 64-bit words: {@code lo} is word 0 (at the entry's
 * offset), {@code hi} is word 1 (at offset + 8). Used by the 128-bit extended atomics.
 */
public record Int128(long lo, long hi) {
    public static final Int128 ZERO = new Int128(0, 0);
    public static final Int128 ONES = new Int128(-1L, -1L);

    public static Int128 of(long lo, long hi) {
        return new Int128(lo, hi);
    }

    public Int128 and(Int128 o) {
        return new Int128(lo & o.lo, hi & o.hi);
    }

    public Int128 or(Int128 o) {
        return new Int128(lo | o.lo, hi | o.hi);
    }

    public Int128 not() {
        return new Int128(~lo, ~hi);
    }

    @Override
    public String toString() {
        return String.format("0x%016x_%016x", hi, lo);
    }
}
