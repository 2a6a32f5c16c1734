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

    /**
     * Whether other clients may wait for this one's answer to a message while it neither acquires
     * nor releases: then whoever owns its endpoint calls {@link #whileIdle} now and then between
     * operations (the client API: on its endpoints that no one has checked out). DecLock's clients
     * do: a reset of a lock waits for every member's answer to its signal, up to a lease, and a
     * client that does not look at its messages is taken for alive and waited for. Default: false.
     */
    default boolean answersWhileIdle() {
        return false;
    }

    /**
     * Answers what has arrived for this client since its last operation, on the thread that owns
     * its endpoint now; short, and it waits for nothing but its sends. Default: nothing.
     */
    default void whileIdle() {
    }

    @Override
    default void close() {
    }
}
