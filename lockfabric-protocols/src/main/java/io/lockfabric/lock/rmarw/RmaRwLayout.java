package io.lockfabric.lock.rmarw;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;

/**
 * The 128-bit entry of {@code rmarw} and its messages. The entry is 16-byte aligned and accessed
 * only by 128-bit atomics and 16-byte reads.
 *
 * <pre>
 * word 0 (offset 0): the writers' MCS queue
 *  63                    40 39                                              0
 * +------------------------+-------------------------------------------------+
 * |  release count (24)    |       tail: packed EndpointId (40), 0 = null    |
 * +------------------------+-------------------------------------------------+
 * word 1 (offset 8): the readers' counters
 *  63                                32 31 30                               0
 * +------------------------------------+--+----------------------------------+
 * |            depart (32)             |W |         arrive count (31)        |
 * +------------------------------------+--+----------------------------------+
 *                                       W = WRITE_FLAG (2^31): a writer holds
 *                                           or is draining readers
 * </pre>
 *
 * <b>Tail</b>: as in {@code mcs}, the last queued writer's packed {@link EndpointId}, so a
 * successor SENDs to its predecessor straight from the old tail. <b>Release count</b>: the fencing
 * token of the next writer that finds the queue empty, and of every reader granted while no
 * writer holds; written (token + 1) by the writer that leaves writer mode, in the same atomic that
 * clears {@code W}. Wraps after 2^24 such writers.
 *
 * <p><b>arrive</b> (bits 0–31 of word 1, {@code W} its top bit) and <b>depart</b> (bits 32–63)
 * are separate fields of one masked FAA ({@link #BOUNDARY}): a reader adds 1 to arrive on entry
 * and 1 to depart on exit (or to undo a refused entry); the head writer adds {@code W} to arrive.
 * Readers inside = {@code count(arrive) − depart}. The counters return to 0 when a writer takes
 * the lock and readers have been in, or when the last reader leaves a lock whose count reached
 * the reader threshold while no writer was queued.
 *
 * <p><b>Messages</b> ({@code lock} = lock id): {@link #SUCCESSOR} new tail → predecessor;
 * {@link #HANDOVER} holder → successor, {@code a} = token, {@code b} = consecutive writers so far
 * (the successor's number in the run); {@link #MODE_CHANGED} holder → successor after giving the
 * lock to readers, {@code a} = token: the successor is now the queue head and must drain readers.
 */
public final class RmaRwLayout {
    public static final int ENTRY_BYTES = 16;

    public static final long TAIL_MASK = EndpointId.PACKED_MASK;
    public static final int COUNT_SHIFT = EndpointId.PACKED_BITS;
    public static final int COUNT_BITS = Long.SIZE - COUNT_SHIFT;
    public static final long COUNT_FIELD_MASK = ((1L << COUNT_BITS) - 1) << COUNT_SHIFT;

    /** Byte offset of the counter word (the high word: flag and counters) in an entry. */
    public static final int COUNTER_WORD_OFFSET = 8;
    public static final long WRITE_FLAG = 1L << 31;
    public static final long ARRIVE_MASK = 0xFFFF_FFFFL;
    public static final long ARRIVE_COUNT_MASK = WRITE_FLAG - 1;
    public static final int DEPART_SHIFT = 32;
    public static final long DEPART_MASK = 0xFFFF_FFFFL << DEPART_SHIFT;

    /** Field tops for the masked FAA: word 0's count and tail, word 1's arrive and depart. */
    public static final Int128 BOUNDARY = Int128.of((1L << 63) | (1L << (COUNT_SHIFT - 1)),
            (1L << 63) | WRITE_FLAG);
    public static final Int128 ONE_ARRIVE = Int128.of(0, 1);
    public static final Int128 ONE_DEPART = Int128.of(0, 1L << DEPART_SHIFT);
    public static final Int128 SET_WRITE_FLAG = Int128.of(0, WRITE_FLAG);

    public static final int SUCCESSOR = 1;
    public static final int HANDOVER = 2;
    public static final int MODE_CHANGED = 3;

    private RmaRwLayout() {
    }

    public static long tail(Int128 e) {
        return e.lo() & TAIL_MASK;
    }

    public static EndpointId tailEndpoint(Int128 e) {
        return EndpointId.unpack(tail(e));
    }

    public static long releaseCount(Int128 e) {
        return e.lo() >>> COUNT_SHIFT;
    }

    public static boolean writeFlag(Int128 e) {
        return (e.hi() & WRITE_FLAG) != 0;
    }

    public static long arrive(Int128 e) {
        return e.hi() & ARRIVE_COUNT_MASK;
    }

    public static long depart(Int128 e) {
        return e.hi() >>> DEPART_SHIFT;
    }

    /** Readers inside or entering (arrived, not departed). */
    public static long readers(Int128 e) {
        return (arrive(e) - depart(e)) & ARRIVE_COUNT_MASK;
    }

    /** Word 0 with {@code count} as release count and the given packed tail. */
    public static long queueWord(long count, long tail) {
        if ((tail & ~TAIL_MASK) != 0) {
            throw new IllegalArgumentException("not a packed tail: 0x" + Long.toHexString(tail));
        }
        return ((count << COUNT_SHIFT) & COUNT_FIELD_MASK) | tail;
    }

    /** Word 1 from its fields. */
    public static long counterWord(boolean writeFlag, long arrive, long depart) {
        return (depart << DEPART_SHIFT) | (writeFlag ? WRITE_FLAG : 0) | (arrive & ARRIVE_COUNT_MASK);
    }

    public static Int128 entry(long count, long tail, boolean writeFlag, long arrive, long depart) {
        return Int128.of(queueWord(count, tail), counterWord(writeFlag, arrive, depart));
    }
}
