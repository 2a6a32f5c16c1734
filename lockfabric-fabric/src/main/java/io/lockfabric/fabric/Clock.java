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

    /**
     * Whether protocol clients on this clock time the steps of their acquisitions and releases
     * for their latency breakdown (ShiftLock's Table 2 items, reported in their statistics).
     * Timing only reads the clock and changes no outcome. Default: true, as on the simulator,
     * whose virtual clocks cost nothing to read and whose runs reproduce the paper's Tables 3 and 4.
     * {@link io.lockfabric.fabric.realtime.RealTimeClock} says false: there a reading is a
     * {@code clock_gettime} of 20-40 ns, an uncontended acquisition and release on a local or shm
     * fabric would read it five times for the breakdown alone, and nothing reads real-time
     * breakdowns; the operation counts are kept, the times read 0.
     */
    default boolean timesBreakdowns() {
        return true;
    }
}
