package io.lockfabric.lock;

import java.util.Optional;

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

    /**
     * What this client counted so far, by name (see {@link LockStats}): at least its retries,
     * aborts and resets, for protocols that have them. Default: nothing.
     */
    default LockStats stats() {
        return LockStats.ZERO;
    }

    /**
     * What the memory word at {@code address} is to this client's protocol (a tree node, a queue
     * header, a counter), if it can tell: for reports that name the words a memory node is busiest
     * with. Default: empty.
     */
    default Optional<String> describeAddress(long address) {
        return Optional.empty();
    }

    @Override
    default void close() {
    }
}
