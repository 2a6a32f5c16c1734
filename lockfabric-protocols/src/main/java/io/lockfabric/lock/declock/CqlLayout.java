package io.lockfabric.lock.declock;

import io.lockfabric.fabric.EndpointId;

/**
 * The CQL table (DecLock §4.1, Fig. 4–5; bit order of the authors' artifact) for a queue capacity
 * of {@code 2^C}: a membership region, then one CQL lock per lock id — an 8-byte header followed by
 * its circular queue of {@code 2^C} 8-byte entries, contiguous so that one READ fetches both.
 *
 * <pre>
 * table:   [ members: count (8) | sync (8) | slot 0 (8) | ... | slot maxClients-1 (8) ]
 *          [ lock 0: header (8) | entry 0 (8) | ... | entry 2^C-1 (8) ] [ lock 1 ... ] ...
 *
 * header (one 64-bit word, changed by FAA only, except the RST bit which a resetter sets by CAS):
 *  63            2C+27 2C+26         2C+3 2C+2       C+2 C+1        1   0
 * +------------------+------------------+---------------+------------+-----+
 * |  RSTCNT (37-2C)  |   qhead (24)     |  qsize (C+1)  | wcnt (C+1) | RST |
 * +------------------+------------------+---------------+------------+-----+
 *
 * queue entry (one 64-bit word, written once by a waiter with one WRITE; T = timestamp bits,
 * 0 for cql, 14 for the hierarchical declock-tf/-pf as in the artifact):
 *  63            17+T 16+T         17 16                  1   0
 * +-----------------+----------------+---------------------+----+
 * | ~version (47-T) | timestamp (T)  | client: slot (16)   | op |
 * +-----------------+----------------+---------------------+----+
 *
 * member slot: the packed EndpointId of a registered client (0 = slot not written yet);
 * count: the number of slots handed out (FAA), possibly above the number of slots.
 * sync: the counter of the clock-synchronization barrier of the hierarchical protocols (§5.3).
 * </pre>
 *
 * <ul>
 * <li><b>RST</b>: the lock is being reset. Acquisitions that see it wait for the reset and retry;
 * releases that see it are ignored.</li>
 * <li><b>wcnt</b>: writers in the queue (holding or waiting); <b>qsize</b>: all participants
 * (holders and waiters); one bit wider than the capacity needs, so a queue overflow shows as
 * {@code qsize >= capacity} before it can carry. {@code cql} admits at most {@code 2^(C+1) - 1}
 * clients to a table ({@link #maxParticipants()}), the hierarchical protocols at most that many
 * compute nodes (one participant each), so even with every participant counted once and stale
 * counts of aborted attempts (each adds at most one per lock before the reset wipes them) neither
 * field can carry into the next.</li>
 * <li><b>qhead</b>: queue index of the oldest participant; slot = index mod capacity. Participants
 * hold the indices {@code [qhead, qhead + qsize)}. It never wraps: an index at or beyond
 * {@link #indexLimit()} (the first index whose version would be all-ones, the "never written"
 * value) is version exhaustion, which resets the lock before qhead can reach it; so the release
 * delta's {@code +1} on qhead never carries into RSTCNT.</li>
 * <li><b>RSTCNT</b>: the lock's reset count (its <em>epoch</em>): the resetter swaps in the fresh
 * header with RSTCNT + 1 by CAS; a reset taken over from a dead resetter adds one more while RST is set.
 * It is the reset count that grant messages and reset signals carry, so a client learns it from
 * every FAA result instead of keeping counters per lock.</li>
 * <li><b>version</b> of queue index {@code i}: {@code i >> C} (the number of traversals). Stored
 * complemented, so the zero-filled table, and a queue the resetter zeroed, read as version
 * all-ones: "never written". An entry is valid for index {@code i} iff its version equals
 * {@code version(i)}; a greater version means it was overwritten (a reset trigger).</li>
 * <li><b>op</b>: 1 exclusive, 0 shared. <b>client</b>: the waiter's member slot; the slot holds
 * its mailbox address, which the releaser notifies (slots are written once, so clients cache
 * them and READ the member region only for a slot they have not seen). <b>timestamp</b>: microseconds of the waiter's (synchronized) clock modulo
 * 2^T, compared with wrap-around ({@link Timestamps}).</li>
 * </ul>
 *
 * <p><b>Fencing token</b> of a grant: {@code RSTCNT × 2^25 + index}, the epoch above the
 * participant's queue index. Within an epoch indices grow with FIFO grant order (a writer is
 * granted only at the head, a reader only after every earlier writer released), and every reset
 * raises the epoch, so tokens strictly increase across grants of a lock until RSTCNT wraps (after
 * {@code 2^(37-2C)} resets of that lock).
 *
 * <p>Deltas ({@code *_DELTA}) are composed so that, applied to a header whose fields hold what the
 * protocol allows (a releasing participant is counted in qsize, a releasing writer in wcnt), no
 * field borrows from or carries into another.
 */
public final class CqlLayout {
    /** Bytes of a header, an entry, a member slot, the member count. */
    public static final int WORD_BYTES = 8;
    public static final int MIN_CAPACITY_BITS = 1;
    /** Keeps RSTCNT at 13 bits or more. */
    public static final int MAX_CAPACITY_BITS = 12;
    public static final int QHEAD_BITS = 24;
    /** Bits of the fencing token below the epoch (a queue index is below 2^24 + 2^(C+1)). */
    public static final int TOKEN_INDEX_BITS = 25;

    public static final int RST_SHIFT = 0;
    public static final long RST = 1L << RST_SHIFT;
    public static final int WCNT_SHIFT = 1;

    public static final int OP_SHIFT = 0;
    public static final long OP_EXCLUSIVE = 1L << OP_SHIFT;
    public static final int CLIENT_SHIFT = 1;
    public static final int SLOT_BITS = 16;
    /** The most member slots a table may have. */
    public static final int MAX_SLOTS = 1 << SLOT_BITS;
    public static final long CLIENT_MASK = (long) (MAX_SLOTS - 1) << CLIENT_SHIFT;
    public static final int TIMESTAMP_SHIFT = CLIENT_SHIFT + SLOT_BITS;
    /** Bits left for timestamp and version together. */
    public static final int STAMP_BITS = Long.SIZE - TIMESTAMP_SHIFT;
    /** The artifact's timestamp width in hierarchical mode. */
    public static final int HIERARCHICAL_TIMESTAMP_BITS = 14;
    /** Entries are read as a whole queue; the member region as a whole. */
    public static final int MEMBER_COUNT_OFFSET = 0;
    public static final int SYNC_OFFSET = 8;
    /** Words before the member slots: count and sync. */
    public static final int MEMBER_HEADER_WORDS = 2;

    private final int capacityBits;
    private final int capacity;
    private final int timestampBits;
    private final long timestampMask;
    private final int versionShift;
    private final long versionNever;
    private final int maxClients;
    private final int counterBits;
    private final long wcntOne;
    private final long wcntMask;
    private final int qsizeShift;
    private final long qsizeOne;
    private final long qsizeMask;
    private final int qheadShift;
    private final long qheadOne;
    private final long qheadMask;
    private final int rstcntShift;
    private final int rstcntBits;
    private final long rstcntOne;
    private final long rstcntMask;

    /** A layout without timestamps (cql). */
    public CqlLayout(int capacity, int maxClients) {
        this(capacity, maxClients, 0);
    }

    /**
     * @param capacity      queue capacity, a power of two in [2^1, 2^12]
     * @param maxClients    member slots, at least 1 (cql admits at most {@link #maxParticipants()})
     * @param timestampBits entry timestamp bits, in [0, 14]
     */
    public CqlLayout(int capacity, int maxClients, int timestampBits) {
        if (timestampBits < 0 || timestampBits > HIERARCHICAL_TIMESTAMP_BITS) {
            throw new IllegalArgumentException("timestamp bits must be in [0, " + HIERARCHICAL_TIMESTAMP_BITS + "], got "
                    + timestampBits);
        }
        this.timestampBits = timestampBits;
        this.timestampMask = (1L << timestampBits) - 1;
        this.versionShift = TIMESTAMP_SHIFT + timestampBits;
        this.versionNever = (1L << (STAMP_BITS - timestampBits)) - 1;
        if (capacity < (1 << MIN_CAPACITY_BITS) || capacity > (1 << MAX_CAPACITY_BITS) || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two in [" + (1 << MIN_CAPACITY_BITS) + ", "
                    + (1 << MAX_CAPACITY_BITS) + "], got " + capacity);
        }
        this.capacityBits = Integer.numberOfTrailingZeros(capacity);
        this.capacity = capacity;
        this.counterBits = capacityBits + 1;
        this.wcntOne = 1L << WCNT_SHIFT;
        this.wcntMask = ((1L << counterBits) - 1) << WCNT_SHIFT;
        this.qsizeShift = WCNT_SHIFT + counterBits;
        this.qsizeOne = 1L << qsizeShift;
        this.qsizeMask = ((1L << counterBits) - 1) << qsizeShift;
        this.qheadShift = qsizeShift + counterBits;
        this.qheadOne = 1L << qheadShift;
        this.qheadMask = ((1L << QHEAD_BITS) - 1) << qheadShift;
        this.rstcntShift = qheadShift + QHEAD_BITS;
        this.rstcntBits = Long.SIZE - rstcntShift;
        this.rstcntOne = 1L << rstcntShift;
        this.rstcntMask = -1L << rstcntShift;
        if (maxClients < 1 || maxClients > MAX_SLOTS) {
            throw new IllegalArgumentException("max-clients must be in [1, " + MAX_SLOTS + "], got " + maxClients);
        }
        this.maxClients = maxClients;
    }

    /** The most clients a table of this capacity admits: what qsize holds without carrying. */
    public int maxParticipants() {
        return (1 << counterBits) - 1;
    }

    public int capacity() {
        return capacity;
    }

    public int capacityBits() {
        return capacityBits;
    }

    public int maxClients() {
        return maxClients;
    }

    // ------------------------------------------------------------------ table geometry

    /** Bytes of the member region: count, sync and the slots. */
    public long memberBytes() {
        return (long) WORD_BYTES * (MEMBER_HEADER_WORDS + maxClients);
    }

    /** Offset of member slot {@code i}. */
    public long memberSlotOffset(int i) {
        return (long) WORD_BYTES * (MEMBER_HEADER_WORDS + i);
    }

    /** Bytes of one lock: header and queue. */
    public long lockBytes() {
        return (long) WORD_BYTES * (1 + capacity);
    }

    public long queueBytes() {
        return (long) WORD_BYTES * capacity;
    }

    public long tableBytes(long locks) {
        return Math.addExact(memberBytes(), Math.multiplyExact(locks, lockBytes()));
    }

    /** Offset of lock {@code lockId}'s header in the table. */
    public long headerOffset(long lockId) {
        return memberBytes() + lockId * lockBytes();
    }

    /** Offset of queue index {@code index}'s entry, relative to the lock's header. */
    public long entryOffset(long index) {
        return WORD_BYTES * (1 + (index & (capacity - 1)));
    }

    /** Slot of queue index {@code index} in a READ of the queue (entries only). */
    public int slotOf(long index) {
        return (int) (index & (capacity - 1));
    }

    // ------------------------------------------------------------------ header

    public static boolean rst(long header) {
        return (header & RST) != 0;
    }

    public long wcnt(long header) {
        return (header & wcntMask) >>> WCNT_SHIFT;
    }

    public long qsize(long header) {
        return (header & qsizeMask) >>> qsizeShift;
    }

    public long qhead(long header) {
        return (header & qheadMask) >>> qheadShift;
    }

    /** The lock's reset count (epoch). */
    public long rstcnt(long header) {
        return (header & rstcntMask) >>> rstcntShift;
    }

    /** A header from its fields (each masked to its width). */
    public long header(boolean rst, long wcnt, long qsize, long qhead, long rstcnt) {
        return (rst ? RST : 0) | ((wcnt << WCNT_SHIFT) & wcntMask) | ((qsize << qsizeShift) & qsizeMask)
                | ((qhead << qheadShift) & qheadMask) | ((rstcnt << rstcntShift) & rstcntMask);
    }

    /** The header a reset leaves: empty queue, RST clear, reset count {@code rstcnt}. */
    public long freshHeader(long rstcnt) {
        return header(false, 0, 0, 0, rstcnt);
    }

    /** Enqueue a reader: qsize + 1. */
    public long acquireSharedDelta() {
        return qsizeOne;
    }

    /** Enqueue a writer: qsize + 1, wcnt + 1. */
    public long acquireExclusiveDelta() {
        return qsizeOne + wcntOne;
    }

    /** Dequeue a reader: qhead + 1, qsize - 1 (qsize >= 1, so no borrow). */
    public long releaseSharedDelta() {
        return qheadOne - qsizeOne;
    }

    /** Dequeue a writer: qhead + 1, qsize - 1, wcnt - 1 (both >= 1, so no borrow). */
    public long releaseExclusiveDelta() {
        return qheadOne - qsizeOne - wcntOne;
    }

    /** Added while RST is set by a client taking over a dead resetter's reset. */
    public long takeoverDelta() {
        return rstcntOne;
    }

    public int rstcntBits() {
        return rstcntBits;
    }

    /**
     * The first queue index that is version exhaustion: below it every index has a real version
     * (not all-ones), and qhead + qsize stays below 2^24 even with every participant counted
     * (qhead never passes this limit, qsize never passes {@link #maxParticipants()}).
     */
    public long indexLimit() {
        return Math.min((versionNever << capacityBits), 1L << QHEAD_BITS) - 2L * capacity;
    }

    // ------------------------------------------------------------------ entries

    /** Version of queue index {@code index}. */
    public long version(long index) {
        return index >>> capacityBits;
    }

    /** An entry for the waiter in member slot {@code slot} at {@code index}, without timestamp. */
    public long entry(boolean exclusive, int slot, long index) {
        return entry(exclusive, slot, index, 0);
    }

    /** An entry for a waiter at {@code index} that began waiting at {@code timestamp} (kept modulo 2^T). */
    public long entry(boolean exclusive, int slot, long index, long timestamp) {
        if (slot < 0 || slot >= maxClients) {
            throw new IllegalArgumentException("slot " + slot + " outside [0, " + maxClients + ")");
        }
        long stored = ~version(index) & versionNever;
        return (exclusive ? OP_EXCLUSIVE : 0) | ((long) slot << CLIENT_SHIFT)
                | ((timestamp & timestampMask) << TIMESTAMP_SHIFT) | (stored << versionShift);
    }

    /** The all-ones version, "never written". */
    public long versionNever() {
        return versionNever;
    }

    public int timestampBits() {
        return timestampBits;
    }

    /** The version an entry carries ({@link #versionNever()} if never written). */
    public long entryVersion(long entry) {
        return ~(entry >>> versionShift) & versionNever;
    }

    public long entryTimestamp(long entry) {
        return (entry >>> TIMESTAMP_SHIFT) & timestampMask;
    }

    public static boolean entryExclusive(long entry) {
        return (entry & OP_EXCLUSIVE) != 0;
    }

    /** The member slot of the entry's client. */
    public static int entrySlot(long entry) {
        return (int) ((entry & CLIENT_MASK) >>> CLIENT_SHIFT);
    }

    /** Whether {@code entry} was written for queue index {@code index}. */
    public boolean valid(long entry, long index) {
        return entryVersion(entry) == version(index);
    }

    /** Whether {@code entry} was written for a later traversal than {@code index}'s (overwritten). */
    public boolean overwritten(long entry, long index) {
        long v = entryVersion(entry);
        return v != versionNever && v > version(index);
    }

    // ------------------------------------------------------------------ fencing

    /** The fencing token of the grant at queue index {@code index} in reset epoch {@code rstcnt}. */
    public static long token(long rstcnt, long index) {
        return (rstcnt << TOKEN_INDEX_BITS) | index;
    }

    /** Bits at the top of the token's reset count that carry the memory node's generation. */
    public static final int GENERATION_BITS = 4;

    /**
     * The fencing token of the grant at queue index {@code index} in reset epoch {@code rstcnt} of
     * memory-node generation {@code generation} (the restarts it lived through, see
     * {@link CqlEngine}): in generation 0, {@link #token(long, long)}; after a restart, which
     * zeroes every reset count, the generation takes the top {@link #GENERATION_BITS} bits of the
     * reset count's place, so tokens keep increasing across up to 15 restarts as long as a lock was
     * reset fewer than {@code 2^(rstcntBits - 4)} times within a generation.
     */
    public long token(long generation, long rstcnt, long index) {
        if (generation == 0) {
            return token(rstcnt, index);
        }
        int low = rstcntBits - GENERATION_BITS;
        long epoch = (generation << low) | (rstcnt & ((1L << low) - 1));
        return token(epoch & ((1L << rstcntBits) - 1), index);
    }

    @Override
    public String toString() {
        return "CqlLayout[capacity=" + capacity + ", maxClients=" + maxClients + ", timestampBits=" + timestampBits + "]";
    }
}
