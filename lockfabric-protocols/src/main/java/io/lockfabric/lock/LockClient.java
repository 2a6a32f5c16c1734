package io.lockfabric.lock;

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

    /** This client's retry, abort and reset counts so far. */
    default LockStats stats() {
        return LockStats.ZERO;
    }

    @Override
    default void close() {
    }
}
