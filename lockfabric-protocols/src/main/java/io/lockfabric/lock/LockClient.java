package io.lockfabric.lock;

import java.util.Optional;

/**
 * One client's handle on a table of mutex / reader-writer locks. Belongs to one thread at a time,
 * like the endpoint it runs on.
 */
public interface LockClient extends AutoCloseable {
    /**
     * Blocks until the lock is granted in {@code mode}. Retries that the protocol needs (resets,
     * recoveries) happen inside, up to a bounded number.
     *
     * @throws IllegalArgumentException if {@code lockId} is not in [0, locks)
     * @throws LockUnavailableException if the lock cannot be had
     */
    Grant acquire(long lockId, Mode mode);

    /** Releases a grant this client holds. */
    void release(Grant grant);

    /** Number of locks in the table. */
    long locks();

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
