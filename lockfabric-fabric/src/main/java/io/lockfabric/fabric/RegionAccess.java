package io.lockfabric.fabric;

/**
 * One memory region as the memory node's own CPU reaches it: by byte offset from the region's
 * start, with no round trip and no counting, and with exactly the semantics the one-sided
 * {@link Verb}s have (the same words, the same atomicity, the same errors). What the rpc service
 * of a table ({@link RpcHandler}, built by a {@link TableSpec.ServiceFactory}) reads and updates
 * its table with, so that a server-side lock manager and the clients' verbs agree on every word.
 *
 * <p>Offsets are region offsets, not remote addresses. A bad offset, length or alignment throws
 * {@link RemoteAccessException} and changes nothing. Thread-safe.
 */
public interface RegionAccess {
    /** Bytes in the region. */
    long size();

    /** 8 bytes at {@code off}; atomic when aligned. */
    long read8(long off);

    /** 16 bytes as two words, word 0 first; each word is atomic, the pair is not. */
    Int128 read16(long off);

    /** {@code len} bytes from {@code off}, in a new array. */
    byte[] read(long off, int len);

    /** Copies {@code len} bytes from {@code off} into {@code dst} at {@code dstOff}. */
    void read(long off, byte[] dst, int dstOff, int len);

    /** Writes 8 bytes at {@code off}; atomic when aligned. */
    void write8(long off, long value);

    /** Writes {@code len} bytes of {@code src} from {@code srcOff} at {@code off}. */
    void write(long off, byte[] src, int srcOff, int len);

    /** Compare-and-swap (see {@link Verb.Cas}); returns the old value. */
    long cas(long off, long expect, long swap);

    /** Fetch-and-add modulo 2^64 (see {@link Verb.Faa}); returns the old value. */
    long faa(long off, long delta);

    /** Masked compare-and-swap (see {@link Verb.MaskedCas}); returns the whole old value. */
    long maskedCas(long off, long compare, long compareMask, long swap, long swapMask);

    /** Masked fetch-and-add (see {@link Verb.MaskedFaa}); returns the old value. */
    long maskedFaa(long off, long add, long boundaryMask);

    /** 128-bit masked compare-and-swap (see {@link Verb.MaskedCas128}); returns the old entry. */
    Int128 maskedCas128(long off, Int128 compare, Int128 compareMask, Int128 swap, Int128 swapMask);

    /** 128-bit masked fetch-and-add (see {@link Verb.MaskedFaa128}); returns the old entry. */
    Int128 maskedFaa128(long off, Int128 add, Int128 boundaryMask);
}
