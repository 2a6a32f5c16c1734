package io.lockfabric.fabric;

import io.lockfabric.fabric.memory.MemoryRegion;

/**
 * One one-sided verb, addressed to a {@link RemoteAddress}. The closed set of verbs of
 * {@code spec/verbs-and-rnic.md}; a {@link Batch} is a list of them, the simulator and the wire
 * codec switch over them. {@link MemoryRegion} is the only executor of their semantics.
 */
public sealed interface Verb {
    /** Remote address the verb targets. */
    long address();

    VerbKind kind();

    /** Payload bytes moved over the wire (read or written data, atomic operands). */
    int payloadBytes();

    /**
     * Executes this verb on {@code region} at the given region offset. Returns the old value as a
     * {@link Long} for 64-bit atomics and 8-byte reads, an {@link Int128} for 128-bit atomics and
     * 16-byte reads, the bytes for range reads, and null for writes.
     */
    Object executeOn(MemoryRegion region, long offset);

    /** 8-byte atomic READ. */
    record Read8(long address) implements Verb {
        public VerbKind kind() { return VerbKind.READ; }
        public int payloadBytes() { return 8; }
        public Object executeOn(MemoryRegion r, long off) { return r.read8(off); }
    }

    /** 16-byte READ of a 128-bit entry; each word is read atomically, the pair is not. */
    record Read16(long address) implements Verb {
        public VerbKind kind() { return VerbKind.READ; }
        public int payloadBytes() { return 16; }
        public Object executeOn(MemoryRegion r, long off) { return r.read16(off); }
    }

    /** READ of a byte range. */
    record Read(long address, int length) implements Verb {
        public VerbKind kind() { return VerbKind.READ; }
        public int payloadBytes() { return length; }
        public Object executeOn(MemoryRegion r, long off) { return r.read(off, length); }
    }

    /** 8-byte WRITE. */
    record Write8(long address, long value) implements Verb {
        public VerbKind kind() { return VerbKind.WRITE; }
        public int payloadBytes() { return 8; }
        public Object executeOn(MemoryRegion r, long off) {
            r.write8(off, value);
            return null;
        }
    }

    /** WRITE of a byte range (the array is not copied: do not change it before the verb completes). */
    record Write(long address, byte[] data) implements Verb {
        public VerbKind kind() { return VerbKind.WRITE; }
        public int payloadBytes() { return data.length; }
        public Object executeOn(MemoryRegion r, long off) {
            r.write(off, data, 0, data.length);
            return null;
        }
    }

    record Cas(long address, long expect, long swap) implements Verb {
        public VerbKind kind() { return VerbKind.CAS; }
        public int payloadBytes() { return 16; }
        public Object executeOn(MemoryRegion r, long off) { return r.cas(off, expect, swap); }
    }

    record Faa(long address, long delta) implements Verb {
        public VerbKind kind() { return VerbKind.FAA; }
        public int payloadBytes() { return 8; }
        public Object executeOn(MemoryRegion r, long off) { return r.faa(off, delta); }
    }

    record MaskedCas(long address, long compare, long compareMask, long swap, long swapMask) implements Verb {
        public VerbKind kind() { return VerbKind.MCAS; }
        public int payloadBytes() { return 32; }
        public Object executeOn(MemoryRegion r, long off) {
            return r.maskedCas(off, compare, compareMask, swap, swapMask);
        }
    }

    record MaskedFaa(long address, long add, long boundaryMask) implements Verb {
        public VerbKind kind() { return VerbKind.MFAA; }
        public int payloadBytes() { return 16; }
        public Object executeOn(MemoryRegion r, long off) { return r.maskedFaa(off, add, boundaryMask); }
    }

    record MaskedCas128(long address, Int128 compare, Int128 compareMask, Int128 swap, Int128 swapMask)
            implements Verb {
        public VerbKind kind() { return VerbKind.MCAS128; }
        public int payloadBytes() { return 64; }
        public Object executeOn(MemoryRegion r, long off) {
            return r.maskedCas128(off, compare, compareMask, swap, swapMask);
        }
    }

    record MaskedFaa128(long address, Int128 add, Int128 boundaryMask) implements Verb {
        public VerbKind kind() { return VerbKind.MFAA128; }
        public int payloadBytes() { return 32; }
        public Object executeOn(MemoryRegion r, long off) { return r.maskedFaa128(off, add, boundaryMask); }
    }
}
