package io.lockfabric.compare;

/**
 * One system under comparison, connected and ready: its locks, by number, through its own client
 * library. Thread-safe: every client thread of the workload calls {@link #acquire}.
 */
interface PeerClient extends AutoCloseable {
    /** Waits until lock {@code lock} is held, shared or exclusive; what releases it, on the same thread. */
    Release acquire(int lock, boolean shared) throws Exception;

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
