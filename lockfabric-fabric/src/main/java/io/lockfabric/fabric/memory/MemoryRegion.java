package io.lockfabric.fabric.memory;

import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RemoteAccessException;
import io.lockfabric.fabric.Verb;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A registered region of a memory node, and the one place that executes verb semantics
 * ({@code spec/verbs-and-rnic.md}); every fabric delegates here.
 *
 * <ul>
 *   <li>Words are 64-bit little-endian. 8-byte reads and writes at aligned offsets, and every
 *       atomic, are single-copy atomic; every access is sequentially consistent (volatile).</li>
 *   <li>8-byte atomics need 8-byte alignment, 128-bit atomics 16-byte alignment. A misaligned
 *       atomic, an offset or length outside the region throws {@link RemoteAccessException} before
 *       touching memory.</li>
 *   <li>128-bit atomics are made atomic with a striped lock: an entry used by 128-bit atomics must
 *       be accessed only by 128-bit atomics and reads (as on an RNIC, where mixing 64- and 128-bit
 *       atomics on one entry is not atomic). A 16-byte read reads each word atomically but not the
 *       pair together. Order, on which protocols may rely only as noted: a 128-bit atomic stores
 *       word 0 first, so a READ issued after another READ saw its word 1 sees its word 0 (RMA-RW's
 *       reader polls word 1 for the flag, then takes the release count from word 0); a 16-byte read
 *       takes word 0 first, so it can pair an atomic's word 0 with the word 1 from before it (why
 *       ShiftLock's waiting reader may get the token of the writer before it).</li>
 *   <li>Range reads and writes move whole aligned words atomically, so an 8-byte entry inside a
 *       range is never seen torn.</li>
 * </ul>
 *
 * Thread-safe. As {@link RegionAccess}, it is what a table's rpc service sees of its table.
 */
public final class MemoryRegion implements RegionAccess {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle WORD_HANDLE = WORD.varHandle();
    private static final VarHandle BYTE_HANDLE = ValueLayout.JAVA_BYTE.varHandle();
    private static final VarHandle ARRAY_WORD =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long TOP_BIT = 1L << 63;
    private static final int STRIPES = 256;

    private final int id;
    private final long size;
    private final MemorySegment memory;
    private final Object[] stripes = new Object[STRIPES];
    /** How 128-bit atomics are made atomic when the memory is shared beyond this JVM; null: the stripes. */
    private final EntryGuard guard;

    /**
     * Allocates a zeroed region of {@code size} bytes (16-byte aligned) in {@code arena}, then
     * repeats {@code fill} over it from offset 0 if {@code fill} is not empty.
     */
    public MemoryRegion(int id, long size, byte[] fill, Arena arena) {
        if (size <= 0) {
            throw new IllegalArgumentException("region size must be positive, got " + size);
        }
        this.id = id;
        this.size = size;
        this.memory = arena.allocate(size, 16);
        this.guard = null;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
        if (fill != null && fill.length > 0) {
            MemorySegment pattern = MemorySegment.ofArray(fill);
            for (long off = 0; off < size; off += fill.length) {
                MemorySegment.copy(pattern, 0, memory, off, Math.min(fill.length, size - off));
            }
        }
    }

    private MemoryRegion(int id, MemorySegment memory, EntryGuard guard) {
        if (memory.byteSize() <= 0 || (memory.address() & 15) != 0) {
            throw new IllegalArgumentException("a region needs a non-empty, 16-byte aligned segment, got " + memory);
        }
        this.id = id;
        this.size = memory.byteSize();
        this.memory = memory;
        this.guard = java.util.Objects.requireNonNull(guard, "guard");
    }

    /**
     * A region over memory that others share as well (a slice of a file that several processes
     * map: the shm fabric), left as it is (not zeroed, not filled). Its 64-bit atomics are the
     * hardware's, atomic across every process that maps the memory; its 128-bit atomics go through
     * {@code guard}, which must make them atomic against the other 128-bit atomics on the same entry
     * in every one of those processes.
     */
    public static MemoryRegion over(int id, MemorySegment memory, EntryGuard guard) {
        return new MemoryRegion(id, memory, guard);
    }

    /**
     * How a region whose memory other processes share makes a 128-bit atomic atomic: it runs
     * {@code update} on the entry at region offset {@code off} (16-byte aligned, in range: the
     * region checked it) exclusively of every other guarded update of that entry, wherever it runs,
     * and stores the result, word 0 first, unless it is the old value itself. It reads and stores
     * the entry's words with volatile 8-byte accesses ({@link MemoryRegion#read8}/{@link
     * MemoryRegion#write8} of {@code region}, or of a region over the same memory). Returns the old
     * value. Implementations are thread-safe.
     */
    public interface EntryGuard {
        Int128 update(MemoryRegion region, long off, java.util.function.UnaryOperator<Int128> update);
    }

    public int id() {
        return id;
    }

    public long size() {
        return size;
    }

    // ---------------------------------------------------------------- verbs

    /**
     * Executes {@code verb} at region offset {@code off} (the verb's own address is not looked
     * at: the memory node resolved it to this region and offset). Returns what {@link Verb} says
     * each kind returns. The one place where a verb value meets the memory's semantics.
     */
    public Object execute(Verb verb, long off) {
        return switch (verb) {
            case Verb.Read8 v -> read8(off);
            case Verb.Read16 v -> read16(off);
            case Verb.Read v -> read(off, v.length());
            case Verb.Write8 v -> {
                write8(off, v.value());
                yield null;
            }
            case Verb.Write v -> {
                write(off, v.data(), 0, v.data().length);
                yield null;
            }
            case Verb.Cas v -> cas(off, v.expect(), v.swap());
            case Verb.Faa v -> faa(off, v.delta());
            case Verb.MaskedCas v -> maskedCas(off, v.compare(), v.compareMask(), v.swap(), v.swapMask());
            case Verb.MaskedFaa v -> maskedFaa(off, v.add(), v.boundaryMask());
            case Verb.MaskedCas128 v -> maskedCas128(off, v.compare(), v.compareMask(), v.swap(), v.swapMask());
            case Verb.MaskedFaa128 v -> maskedFaa128(off, v.add(), v.boundaryMask());
        };
    }

    // ---------------------------------------------------------------- reads and writes

    public long read8(long off) {
        checkRange(off, 8);
        if ((off & 7) == 0) {
            return (long) WORD_HANDLE.getVolatile(memory, off);
        }
        byte[] b = new byte[8];
        copyOut(off, b, 0, 8);
        return (long) ARRAY_WORD.get(b, 0);
    }

    /** Reads 16 bytes as two words, word 0 first; each is atomic, the pair is not. */
    public Int128 read16(long off) {
        checkRange(off, 16);
        long lo = read8(off);
        return new Int128(lo, read8(off + 8));
    }

    /**
     * Reads {@code len} bytes into a new array. The range is checked before the array is
     * allocated, so a bad length (negative, or far past the end) fails with
     * {@link RemoteAccessException} instead of a {@code NegativeArraySizeException} or a huge
     * allocation.
     */
    public byte[] read(long off, int len) {
        checkRange(off, len);
        byte[] dst = new byte[len];
        copyOut(off, dst, 0, len);
        return dst;
    }

    public void read(long off, byte[] dst, int dstOff, int len) {
        if (dstOff < 0 || len < 0 || dstOff > dst.length - len) {
            throw new IllegalArgumentException("destination slice [" + dstOff + ", +" + len + ") outside array of " + dst.length);
        }
        checkRange(off, len);
        copyOut(off, dst, dstOff, len);
    }

    public void write8(long off, long value) {
        checkRange(off, 8);
        if ((off & 7) == 0) {
            WORD_HANDLE.setVolatile(memory, off, value);
            return;
        }
        byte[] b = new byte[8];
        ARRAY_WORD.set(b, 0, value);
        copyIn(off, b, 0, 8);
    }

    public void write(long off, byte[] src, int srcOff, int len) {
        if (srcOff < 0 || len < 0 || srcOff > src.length - len) {
            throw new IllegalArgumentException("source slice [" + srcOff + ", +" + len + ") outside array of " + src.length);
        }
        checkRange(off, len);
        copyIn(off, src, srcOff, len);
    }

    // ---------------------------------------------------------------- 64-bit atomics

    /** Compare-and-swap; returns the old value. */
    public long cas(long off, long expect, long swap) {
        checkAtomic(off, 8);
        return (long) WORD_HANDLE.compareAndExchange(memory, off, expect, swap);
    }

    /** Fetch-and-add modulo 2^64; returns the old value. */
    public long faa(long off, long delta) {
        checkAtomic(off, 8);
        return (long) WORD_HANDLE.getAndAdd(memory, off, delta);
    }

    /**
     * Masked compare-and-swap: succeeds iff {@code (old & compareMask) == (compare & compareMask)};
     * then the word becomes {@code (old & ~swapMask) | (swap & swapMask)}. Returns the whole old
     * value either way. {@code compareMask = 0} makes it an unconditional fetch-and-store of the
     * {@code swapMask} bits; with {@code swap = swapMask = bits} as well, an atomic OR.
     */
    public long maskedCas(long off, long compare, long compareMask, long swap, long swapMask) {
        checkAtomic(off, 8);
        long old = (long) WORD_HANDLE.getVolatile(memory, off);
        while (true) {
            if ((old & compareMask) != (compare & compareMask)) {
                return old;
            }
            long next = (old & ~swapMask) | (swap & swapMask);
            long witness = (long) WORD_HANDLE.compareAndExchange(memory, off, old, next);
            if (witness == old) {
                return old;
            }
            old = witness;
        }
    }

    /**
     * Masked fetch-and-add: each set bit of {@code boundaryMask} marks the most significant bit of
     * a field (bit 63 always does); fields are added independently and a carry out of a field's top
     * bit is dropped. Returns the old value.
     */
    public long maskedFaa(long off, long add, long boundaryMask) {
        checkAtomic(off, 8);
        long old = (long) WORD_HANDLE.getVolatile(memory, off);
        while (true) {
            long next = fieldAdd(old, add, boundaryMask | TOP_BIT);
            long witness = (long) WORD_HANDLE.compareAndExchange(memory, off, old, next);
            if (witness == old) {
                return old;
            }
            old = witness;
        }
    }

    /**
     * Per-field addition without carries between fields ({@code tops} has the top bit of every
     * field set). Adding with the top bits cleared lets a carry reach a field's top bit but never
     * cross it; the top bits are then the sum's carry-in xor both operands' top bits.
     */
    static long fieldAdd(long a, long b, long tops) {
        long low = (a & ~tops) + (b & ~tops);
        return low ^ ((a ^ b) & tops);
    }

    // ---------------------------------------------------------------- 128-bit atomics

    /** 128-bit masked compare-and-swap over words {@code off} (lo) and {@code off + 8} (hi). */
    public Int128 maskedCas128(long off, Int128 compare, Int128 compareMask, Int128 swap, Int128 swapMask) {
        checkAtomic(off, 16);
        if (guard != null) {
            return guard.update(this, off, old -> {
                if ((old.lo() & compareMask.lo()) == (compare.lo() & compareMask.lo())
                        && (old.hi() & compareMask.hi()) == (compare.hi() & compareMask.hi())) {
                    return new Int128((old.lo() & ~swapMask.lo()) | (swap.lo() & swapMask.lo()),
                            (old.hi() & ~swapMask.hi()) | (swap.hi() & swapMask.hi()));
                }
                return old;
            });
        }
        synchronized (stripe(off)) {
            long lo = (long) WORD_HANDLE.getVolatile(memory, off);
            long hi = (long) WORD_HANDLE.getVolatile(memory, off + 8);
            if ((lo & compareMask.lo()) == (compare.lo() & compareMask.lo())
                    && (hi & compareMask.hi()) == (compare.hi() & compareMask.hi())) {
                // Word 0 first: see the class comment.
                WORD_HANDLE.setVolatile(memory, off, (lo & ~swapMask.lo()) | (swap.lo() & swapMask.lo()));
                WORD_HANDLE.setVolatile(memory, off + 8, (hi & ~swapMask.hi()) | (swap.hi() & swapMask.hi()));
            }
            return new Int128(lo, hi);
        }
    }

    /**
     * 128-bit masked fetch-and-add: as {@link #maskedFaa} over 128 bits (bit 127 is always a
     * boundary; a field may span bit 63/64, and then the carry crosses the word boundary).
     */
    public Int128 maskedFaa128(long off, Int128 add, Int128 boundaryMask) {
        checkAtomic(off, 16);
        if (guard != null) {
            return guard.update(this, off, old -> fieldAdd128(old.lo(), old.hi(), add, boundaryMask));
        }
        synchronized (stripe(off)) {
            long lo = (long) WORD_HANDLE.getVolatile(memory, off);
            long hi = (long) WORD_HANDLE.getVolatile(memory, off + 8);
            long topsLo = boundaryMask.lo();
            long topsHi = boundaryMask.hi() | TOP_BIT;
            long aLo = lo & ~topsLo;
            long bLo = add.lo() & ~topsLo;
            long sumLo = aLo + bLo;
            long carry = Long.compareUnsigned(sumLo, aLo) < 0 ? 1 : 0;
            long sumHi = (hi & ~topsHi) + (add.hi() & ~topsHi) + carry;
            long newLo = sumLo ^ ((lo ^ add.lo()) & topsLo);
            long newHi = sumHi ^ ((hi ^ add.hi()) & topsHi);
            WORD_HANDLE.setVolatile(memory, off, newLo); // word 0 first, as in maskedCas128
            WORD_HANDLE.setVolatile(memory, off + 8, newHi);
            return new Int128(lo, hi);
        }
    }

    /** {@link #maskedFaa128}'s sum, as the guarded path computes it (the same arithmetic as the striped one). */
    private static Int128 fieldAdd128(long lo, long hi, Int128 add, Int128 boundaryMask) {
        long topsLo = boundaryMask.lo();
        long topsHi = boundaryMask.hi() | TOP_BIT;
        long aLo = lo & ~topsLo;
        long sumLo = aLo + (add.lo() & ~topsLo);
        long carry = Long.compareUnsigned(sumLo, aLo) < 0 ? 1 : 0;
        long sumHi = (hi & ~topsHi) + (add.hi() & ~topsHi) + carry;
        return new Int128(sumLo ^ ((lo ^ add.lo()) & topsLo), sumHi ^ ((hi ^ add.hi()) & topsHi));
    }

    // ---------------------------------------------------------------- internals

    private Object stripe(long off) {
        return stripes[(int) ((off >>> 4) & (STRIPES - 1))];
    }

    private void checkRange(long off, long len) {
        if (off < 0 || len < 0 || off > size - len) {
            throw new RemoteAccessException(String.format(
                    "region %d: access [%d, +%d) outside [0, %d)", id, off, len, size));
        }
    }

    private void checkAtomic(long off, int width) {
        if ((off & (width - 1)) != 0) {
            throw new RemoteAccessException(String.format(
                    "region %d: %d-byte atomic at offset %d is not %d-byte aligned", id, width, off, width));
        }
        checkRange(off, width);
    }

    private void copyOut(long off, byte[] dst, int dstOff, int len) {
        long end = off + len;
        long p = off;
        while (p < end) {
            if ((p & 7) == 0 && end - p >= 8) {
                ARRAY_WORD.set(dst, dstOff + (int) (p - off), (long) WORD_HANDLE.getVolatile(memory, p));
                p += 8;
            } else {
                dst[dstOff + (int) (p - off)] = (byte) BYTE_HANDLE.getVolatile(memory, p);
                p++;
            }
        }
    }

    private void copyIn(long off, byte[] src, int srcOff, int len) {
        long end = off + len;
        long p = off;
        while (p < end) {
            if ((p & 7) == 0 && end - p >= 8) {
                WORD_HANDLE.setVolatile(memory, p, (long) ARRAY_WORD.get(src, srcOff + (int) (p - off)));
                p += 8;
            } else {
                BYTE_HANDLE.setVolatile(memory, p, src[srcOff + (int) (p - off)]);
                p++;
            }
        }
    }
}
