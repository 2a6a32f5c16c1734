package io.lockfabric.fabric;

/**
 * One one-sided verb, addressed to a {@link RemoteAddress}: a value that says what to do, not how.
 * The closed set of verbs of {@code spec/verbs-and-rnic.md}; a {@link Batch} is a list of them.
 * The memory node executes them (its regions are the only executor of their semantics), the
 * simulator and the wire codec switch over them.
 *
 * <p>Results, as every {@link QueuePair#execute(Verb)} returns them: the old value as a
 * {@link Long} for 64-bit atomics and 8-byte reads, an {@link Int128} for 128-bit atomics and
 * 16-byte reads, the bytes for range reads, and null for writes.
 */
public sealed interface Verb {
    /** Remote address the verb targets. */
    long address();

    VerbKind kind();

    /** Payload bytes moved over the wire (read or written data, atomic operands). */
    int payloadBytes();

    /** 8-byte atomic READ. */
    record Read8(long address) implements Verb {
        public VerbKind kind() { return VerbKind.READ; }
        public int payloadBytes() { return 8; }
    }

    /** 16-byte READ of a 128-bit entry; each word is read atomically, the pair is not. */
    record Read16(long address) implements Verb {
        public VerbKind kind() { return VerbKind.READ; }
        public int payloadBytes() { return 16; }
    }

    /** READ of a byte range. */
    record Read(long address, int length) implements Verb {
        public VerbKind kind() { return VerbKind.READ; }
        public int payloadBytes() { return length; }
    }

    /** 8-byte WRITE. */
    record Write8(long address, long value) implements Verb {
        public VerbKind kind() { return VerbKind.WRITE; }
        public int payloadBytes() { return 8; }
    }

    /** WRITE of a byte range (the array is not copied: do not change it before the verb completes). */
    record Write(long address, byte[] data) implements Verb {
        public VerbKind kind() { return VerbKind.WRITE; }
        public int payloadBytes() { return data.length; }
    }

    /** Compare-and-swap: the word becomes {@code swap} iff it equals {@code expect}. */
    record Cas(long address, long expect, long swap) implements Verb {
        public VerbKind kind() { return VerbKind.CAS; }
        public int payloadBytes() { return 16; }
    }

    /** Fetch-and-add, modulo 2^64. */
    record Faa(long address, long delta) implements Verb {
        public VerbKind kind() { return VerbKind.FAA; }
        public int payloadBytes() { return 8; }
    }

    /**
     * Masked compare-and-swap: succeeds iff {@code (old & compareMask) == (compare & compareMask)};
     * then the word becomes {@code (old & ~swapMask) | (swap & swapMask)}. With
     * {@code compareMask = 0} it is an unconditional fetch-and-store of the {@code swapMask} bits;
     * with {@code swap = swapMask = bits} as well, an atomic OR.
     */
    record MaskedCas(long address, long compare, long compareMask, long swap, long swapMask) implements Verb {
        public VerbKind kind() { return VerbKind.MCAS; }
        public int payloadBytes() { return 32; }
    }

    /**
     * Masked fetch-and-add: each set bit of {@code boundaryMask} marks the most significant bit of
     * a field (bit 63 always does); fields are added independently and a carry out of a field's
     * top bit is dropped.
     */
    record MaskedFaa(long address, long add, long boundaryMask) implements Verb {
        public VerbKind kind() { return VerbKind.MFAA; }
        public int payloadBytes() { return 16; }
    }

    /**
     * {@link MaskedCas} over a 16-byte aligned entry of two little-endian words (word 0 at
     * {@code address}, word 1 at {@code address + 8}).
     */
    record MaskedCas128(long address, Int128 compare, Int128 compareMask, Int128 swap, Int128 swapMask)
            implements Verb {
        public VerbKind kind() { return VerbKind.MCAS128; }
        public int payloadBytes() { return 64; }
    }

    /**
     * {@link MaskedFaa} over a 16-byte aligned entry (bit 127 is always a boundary; a field may
     * span bit 63/64, and then the carry crosses the word boundary).
     */
    record MaskedFaa128(long address, Int128 add, Int128 boundaryMask) implements Verb {
        public VerbKind kind() { return VerbKind.MFAA128; }
        public int payloadBytes() { return 32; }
    }
}
