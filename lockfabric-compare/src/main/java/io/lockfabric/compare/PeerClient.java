package io.lockfabric.compare;

/**
 * One system under comparison, connected and ready: its locks, by number, through its own client
 * library. Thread-safe: every client thread of the workload calls {@link #acquire}.
 */
interface PeerClient extends AutoCloseable {
    /** Waits until lock {@code lock} is held, shared or exclusive; what releases it, on the same thread. */
    Release acquire(int lock, boolean shared) throws Exception;

    /**
     * How long a client thread may still be inside the peer's lock after the run's end before it
     * is reported stuck. Ten seconds unless the peer documents a longer bound on a waiter's wait
     * (Redisson: a waiter that misses the unlock message retries only when the holder's lease runs
     * out, its watchdog timeout).
     */
    default long stopGraceNs() {
        return java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    }

    /** Disconnects. */
    @Override
    void close();

    /** Releases a held lock. */
    @FunctionalInterface
    interface Release {
        /** Releases it. */
        void release() throws Exception;
    }
}
