package io.lockfabric.fabric;

import java.math.BigInteger;
import java.util.SplittableRandom;

/**
 * Reference models of the verb semantics of {@code spec/verbs-and-rnic.md}, written as plain
 * per-field / per-bit arithmetic so that they share no trick with {@code MemoryRegion}. Test
 * support for {@link VerbContractTest} and the memory region tests.
 */
public final class VerbReference {
    private static final BigInteger MASK_64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final BigInteger MASK_128 = BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE);

    private VerbReference() {
    }

    /** Masked FAA over 64 bits: walks the fields from bit 0 and adds each one on its own. */
    public static long maskedFaa(long old, long add, long boundaryMask) {
        long result = 0;
        int fieldLow = 0;
        for (int bit = 0; bit < 64; bit++) {
            boolean top = bit == 63 || ((boundaryMask >>> bit) & 1L) != 0;
            if (!top) {
                continue;
            }
            int width = bit - fieldLow + 1;
            long fieldMask = width == 64 ? -1L : (1L << width) - 1;
            long a = (old >>> fieldLow) & fieldMask;
            long b = (add >>> fieldLow) & fieldMask;
            long sum = (a + b) & fieldMask; // the carry out of the field is dropped here
            result |= sum << fieldLow;
            fieldLow = bit + 1;
        }
        return result;
    }

    /** Masked CAS over 64 bits, decided and applied bit by bit. */
    public static long maskedCasNewValue(long old, long compare, long compareMask, long swap, long swapMask) {
        for (int bit = 0; bit < 64; bit++) {
            if (bit(compareMask, bit) && bit(old, bit) != bit(compare, bit)) {
                return old;
            }
        }
        long result = 0;
        for (int bit = 0; bit < 64; bit++) {
            boolean v = bit(swapMask, bit) ? bit(swap, bit) : bit(old, bit);
            if (v) {
                result |= 1L << bit;
            }
        }
        return result;
    }

    private static boolean bit(long v, int bit) {
        return ((v >>> bit) & 1L) != 0;
    }

    /** 128-bit masked FAA with BigInteger fields (bit 127 is always a boundary). */
    public static Int128 maskedFaa128(Int128 old, Int128 add, Int128 boundaryMask) {
        BigInteger o = big(old);
        BigInteger a = big(add);
        BigInteger tops = big(boundaryMask).setBit(127);
        BigInteger result = BigInteger.ZERO;
        int fieldLow = 0;
        for (int bit = 0; bit < 128; bit++) {
            if (!tops.testBit(bit)) {
                continue;
            }
            int width = bit - fieldLow + 1;
            BigInteger fieldMask = BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE);
            BigInteger sum = o.shiftRight(fieldLow).and(fieldMask).add(a.shiftRight(fieldLow).and(fieldMask));
            result = result.or(sum.mod(BigInteger.ONE.shiftLeft(width)).shiftLeft(fieldLow));
            fieldLow = bit + 1;
        }
        return int128(result);
    }

    /** The value a 128-bit masked CAS leaves (old itself if the compare fails). */
    public static Int128 maskedCas128NewValue(Int128 old, Int128 compare, Int128 compareMask, Int128 swap,
                                              Int128 swapMask) {
        BigInteger o = big(old);
        BigInteger cm = big(compareMask);
        if (!o.and(cm).equals(big(compare).and(cm))) {
            return old;
        }
        BigInteger sm = big(swapMask);
        return int128(o.and(MASK_128.xor(sm)).or(big(swap).and(sm)));
    }

    public static BigInteger big(Int128 v) {
        return unsigned(v.hi()).shiftLeft(64).or(unsigned(v.lo()));
    }

    private static BigInteger unsigned(long v) {
        return BigInteger.valueOf(v).and(MASK_64);
    }

    public static Int128 int128(BigInteger v) {
        BigInteger m = v.and(MASK_128);
        return new Int128(m.longValue(), m.shiftRight(64).longValue());
    }

    /**
     * A 64-bit value biased towards carries and borrows: uniform, dense in ones, sparse, all ones,
     * or zero, chosen at random.
     */
    public static long edgy(SplittableRandom r) {
        return switch (r.nextInt(6)) {
            case 0 -> r.nextLong() | r.nextLong() | r.nextLong();
            case 1 -> r.nextLong() & r.nextLong() & r.nextLong();
            case 2 -> -1L ^ (r.nextInt(4) == 0 ? 0 : 1L << r.nextInt(64));
            case 3 -> r.nextInt(4) == 0 ? 0 : 1L << r.nextInt(64);
            default -> r.nextLong();
        };
    }

    /** A boundary mask with a random density of set bits (sometimes none, sometimes all). */
    public static long randomBoundaries(SplittableRandom r) {
        return switch (r.nextInt(6)) {
            case 0 -> 0L;
            case 1 -> -1L;
            case 2 -> r.nextLong() & r.nextLong() & r.nextLong();
            case 3 -> r.nextLong() & r.nextLong();
            case 4 -> 1L << r.nextInt(64);
            default -> r.nextLong();
        };
    }

    public static String hex(long v) {
        return String.format("0x%016x", v);
    }
}
