package io.lockfabric.apps.btree;

import java.util.List;
import java.util.Objects;

/**
 * How a B+-tree is made and locked: the node lock variant ({@link BTreeLocks#VARIANTS}), the
 * fan-out (entries per node), the capacity in nodes of its data table, the size of its lock table
 * (node {@code i} takes lock {@code i mod locks}, as Sherman hashes nodes to its on-chip lock
 * table), the lock protocol's options ({@code name=value}) and Sherman's handover bound. Every
 * client of one tree must open it with the same fan-out, capacity, lock variant and lock count.
 * Immutable.
 *
 * @param lock          the lock variant: {@code sherman}, {@code sherman-nh}, {@code declock},
 *                      {@code shiftlock}, {@code cas-rw}, or any registered protocol's name
 * @param fanout        entries per node, in [{@link BTreeLayout#MIN_FANOUT}, {@link BTreeLayout#MAX_FANOUT}]
 * @param capacity      nodes the data table holds
 * @param locks         locks in the node lock table
 * @param lockOptions   the lock protocol's options, as {@code name=value}
 * @param handoverBound the {@code sherman} variant's consecutive local handovers
 * @param indexCache    whether clients keep Sherman's index cache: copies of internal nodes per
 *                      compute node, so a descent READs only the leaf ({@code IndexCache})
 */
public record BTreeOptions(String lock, int fanout, long capacity, long locks, List<String> lockOptions,
                           int handoverBound, boolean indexCache) {
    /** Sherman's own lock, Sherman's node size class (32 entries), room for 64 Ki nodes. */
    public static final BTreeOptions DEFAULTS = new BTreeOptions("sherman", 32, 65_536, 65_536, List.of(),
            ShermanLock.DEFAULT_HANDOVER_BOUND, true);
    /** The most locks a node lock table gets by default ({@link #forKeys}). */
    public static final long MAX_DEFAULT_LOCKS = 65_536;

    public BTreeOptions {
        Objects.requireNonNull(lock, "lock");
        lockOptions = List.copyOf(lockOptions);
        new BTreeLayout(fanout); // validates the fan-out
        if (capacity < 1 || capacity > (1L << 32)) {
            throw new IllegalArgumentException("capacity must be in [1, 2^32] nodes, got " + capacity);
        }
        if (locks < 1) {
            throw new IllegalArgumentException("lock table must have at least 1 lock, got " + locks);
        }
        if (handoverBound < 0) {
            throw new IllegalArgumentException("handover bound must be >= 0, got " + handoverBound);
        }
    }

    public BTreeOptions withLock(String value) {
        return new BTreeOptions(value, fanout, capacity, locks, lockOptions, handoverBound, indexCache);
    }

    public BTreeOptions withFanout(int value) {
        return new BTreeOptions(lock, value, capacity, locks, lockOptions, handoverBound, indexCache);
    }

    public BTreeOptions withCapacity(long value) {
        return new BTreeOptions(lock, fanout, value, locks, lockOptions, handoverBound, indexCache);
    }

    public BTreeOptions withLocks(long value) {
        return new BTreeOptions(lock, fanout, capacity, value, lockOptions, handoverBound, indexCache);
    }

    public BTreeOptions withLockOptions(List<String> value) {
        return new BTreeOptions(lock, fanout, capacity, locks, value, handoverBound, indexCache);
    }

    public BTreeOptions withHandoverBound(int value) {
        return new BTreeOptions(lock, fanout, capacity, locks, lockOptions, value, indexCache);
    }

    public BTreeOptions withIndexCache(boolean value) {
        return new BTreeOptions(lock, fanout, capacity, locks, lockOptions, handoverBound, value);
    }

    /**
     * These options sized for a key space of {@code keys} keys: room for every key in nodes at
     * least half full (what splits leave) twice over, plus slack, and one lock per node up to
     * {@link #MAX_DEFAULT_LOCKS}.
     */
    public BTreeOptions forKeys(long keys) {
        if (keys < 1) {
            throw new IllegalArgumentException("key space must be at least 1 key, got " + keys);
        }
        long nodes = Math.max(1_024, 4 * keys / fanout + 256);
        return withCapacity(nodes).withLocks(Math.min(nodes + 1, MAX_DEFAULT_LOCKS));
    }
}
