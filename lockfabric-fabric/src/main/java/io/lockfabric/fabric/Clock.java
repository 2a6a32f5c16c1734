package io.lockfabric.fabric;

/**
 * A client's time. Protocol code reads time and waits only through its endpoint's clock (or a
 * queue pair or mailbox), never through {@code System.nanoTime} or {@code Thread.sleep}: that is
 * what lets the simulator run the same code in virtual time, with clocks that drift.
 */
public interface Clock {
    /** Monotonic nanoseconds on this client's clock (which may run at 1 ± δ of true time). */
    long nanoTime();

    /** Waits {@code nanos} on this clock. */
    void sleepNanos(long nanos);

    /** A fresh idle strategy for a wait on a condition the caller re-checks. */
    IdleStrategy idleStrategy();

    /**
     * Whether {@link #nanoTime} is {@link System#nanoTime()} itself: then a reading of this clock is
     * also a reading of a real-time fabric's observer time ({@link Fabric#observerNanoTime}), and a
     * caller that needs both may read once. Default: false.
     */
    default boolean isSystemNanoTime() {
        return false;
    }
}
