package io.lockfabric.lock.shiftlock;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;

/**
 * The ShiftLock table (FAST'25 figure 3; bit order of the authors' artifact): one 16-byte,
 * 16-aligned entry per lock, then the memory node's era counters.
 *
 * <pre>
 * entry, word 0 (at lockId × 16):
 *  63                      40 39             24 23                        1   0
 * +--------------------------+-----------------+---------------------------+---+
 * |  TailPtr.QueueNum (24)   | TailPtr.Node(16)|        RdrCnt (23)        | E |
 * +--------------------------+-----------------+---------------------------+---+
 * entry, word 1 (at lockId × 16 + 8):
 *  63                                                                          0
 * +----------------------------------------------------------------------------+
 * |                               RelCnt (64)                                  |
 * +----------------------------------------------------------------------------+
 * era counters (at locks × 16 + i × 8, i in [0, eras)):
 * +----------------------------------------------------------------------------+
 * |                                 era (64)                                   |
 * +----------------------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 * <li><b>E</b> (Epoch, the artifact's "mode"): flipped by a writer that gives the lock to
 * readers; a waiting reader is granted when it changes.</li>
 * <li><b>RdrCnt</b>: readers holding or waiting.</li>
 * <li><b>TailPtr</b>: the last queued writer's mailbox address, an {@link EndpointId} (node,
 * queue) stored as its two fields; 0 = no writer queued. Since an EndpointId is exactly 40 bits
 * and never 0, the 40 bits <em>are</em> the address a successor sends to: no directory needed.</li>
 * <li><b>RelCnt</b>: releases so far (every reader release, every writer release including
 * writer-to-writer handovers). A recovery adds {@link #LEAP} to it.</li>
 * <li><b>era</b>: bumped by the memory node at each recovery it performs; read by clients with
 * READ and echoed in the recovery rpc, so a stale recovery request is rejected.</li>
 * </ul>
 *
 * Word 0's four fields are separate MFAA128 fields ({@link #BOUNDARIES}): a reader's
 * {@code RdrCnt ± 1} never carries into TailPtr, an Epoch flip ({@code +1} on bit 0) never carries
 * into RdrCnt.
 */
public final class ShiftLockLayout {
    public static final int ENTRY_BYTES = 16;
    public static final int RELCNT_OFFSET = 8;
    public static final int ERA_BYTES = 8;

    public static final int EPOCH_SHIFT = 0;
    public static final int RDRCNT_SHIFT = 1;
    public static final int RDRCNT_BITS = 23;
    public static final int NODE_SHIFT = 24;
    public static final int QUEUE_SHIFT = 40;

    public static final long EPOCH_MASK = 1L << EPOCH_SHIFT;
    public static final long RDRCNT_MAX = (1L << RDRCNT_BITS) - 1;
    public static final long RDRCNT_MASK = RDRCNT_MAX << RDRCNT_SHIFT;
    public static final long NODE_MASK = (long) EndpointId.MAX_NODE << NODE_SHIFT;
    public static final long QUEUE_MASK = (long) EndpointId.MAX_QUEUE << QUEUE_SHIFT;
    public static final long TAIL_MASK = NODE_MASK | QUEUE_MASK;

    /** MFAA128 field tops: Epoch (bit 0), RdrCnt (23), NodeId (39), QueueNum (63); RelCnt is bit 127. */
    public static final Int128 BOUNDARIES = Int128.of(
            (1L << EPOCH_SHIFT) | (1L << (RDRCNT_SHIFT + RDRCNT_BITS - 1)) | (1L << (QUEUE_SHIFT - 1)) | (1L << 63), 0);

    /** What a recovery adds to RelCnt: a jump no run of releases makes (2^63 releases = 292 years at 1/ns). */
    public static final long LEAP = Long.MIN_VALUE;
    /**
     * A RelCnt advance this large (unsigned) since a client's reference value means a recovery
     * happened: real progress between two looks of one acquisition stays far below it.
     */
    public static final long LEAP_DETECT = 1L << 62;

    /** Reader acquire: RdrCnt + 1. */
    public static final Int128 READER_ACQUIRE_ADD = Int128.of(1L << RDRCNT_SHIFT, 0);
    /** Reader release: RdrCnt − 1 (all ones in the field: a dropped carry) and RelCnt + 1. */
    public static final Int128 READER_RELEASE_ADD = Int128.of(RDRCNT_MASK, 1);
    /** Swap mask of a writer's enqueue (fetch-and-store of TailPtr). */
    public static final Int128 TAIL_SWAP_MASK = Int128.of(TAIL_MASK, 0);

    private ShiftLockLayout() {
    }

    public static int epoch(long word0) {
        return (int) ((word0 & EPOCH_MASK) >>> EPOCH_SHIFT);
    }

    public static long rdrCnt(long word0) {
        return (word0 & RDRCNT_MASK) >>> RDRCNT_SHIFT;
    }

    /** The TailPtr bits of {@code word0} in place (0 = no writer queued). */
    public static long tail(long word0) {
        return word0 & TAIL_MASK;
    }

    /** The TailPtr field that names {@code id}. */
    public static long tailOf(EndpointId id) {
        return ((long) id.node() << NODE_SHIFT) | ((long) id.queue() << QUEUE_SHIFT);
    }

    /** The endpoint a non-zero TailPtr field names. */
    public static EndpointId endpointOf(long tail) {
        if (tail == 0 || (tail & ~TAIL_MASK) != 0) {
            throw new IllegalArgumentException("not a TailPtr: 0x" + Long.toHexString(tail));
        }
        return new EndpointId((int) ((tail & NODE_MASK) >>> NODE_SHIFT), (int) ((tail & QUEUE_MASK) >>> QUEUE_SHIFT));
    }

    public static long word0(int epoch, long rdrCnt, long tail) {
        if ((epoch & ~1) != 0 || rdrCnt < 0 || rdrCnt > RDRCNT_MAX || (tail & ~TAIL_MASK) != 0) {
            throw new IllegalArgumentException("bad entry fields: epoch " + epoch + ", rdrCnt " + rdrCnt + ", tail 0x"
                    + Long.toHexString(tail));
        }
        return ((long) epoch << EPOCH_SHIFT) | (rdrCnt << RDRCNT_SHIFT) | tail;
    }

    /** Whether {@code now} is at least {@code LEAP_DETECT} past {@code base}: a recovery happened. */
    public static boolean leapt(long base, long now) {
        return Long.compareUnsigned(now - base, LEAP_DETECT) >= 0;
    }

    /** Byte offset of lock {@code lockId}'s entry. */
    public static long entryOffset(long lockId) {
        return lockId * ENTRY_BYTES;
    }

    /** Byte offset of era counter {@code era} in a table of {@code locks} locks. */
    public static long eraOffset(long locks, int era) {
        return locks * ENTRY_BYTES + (long) era * ERA_BYTES;
    }

    /** Table size: the entries, then the era counters. */
    public static long tableBytes(long locks, int eras) {
        return Math.addExact(Math.multiplyExact(locks, ENTRY_BYTES), Math.multiplyExact(eras, ERA_BYTES));
    }

    /** The era counter of a lock: a hash of the lock id (so neighbouring locks use different eras). */
    public static int eraOf(long lockId, int eras) {
        long h = lockId * 0x9E3779B97F4A7C15L;
        return (int) Long.remainderUnsigned(h ^ (h >>> 32), eras);
    }
}
