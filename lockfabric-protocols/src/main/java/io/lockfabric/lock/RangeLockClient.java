package io.lockfabric.lock;

/** One client's handle on a range lock over the address space [0, ∞). One thread at a time. */
public interface RangeLockClient extends AutoCloseable {
    /**
     * Blocks until [start, end) is granted in {@code mode}.
     *
     * @throws IllegalArgumentException if {@code start < 0} or {@code end <= start}
     * @throws LockUnavailableException if the range cannot be had
     */
    RangeGrant acquire(long start, long end, Mode mode);

    void release(RangeGrant grant);

    /** This client's retry, abort and reset counts so far. */
    default LockStats stats() {
        return LockStats.ZERO;
    }

    @Override
    default void close() {
    }
}
