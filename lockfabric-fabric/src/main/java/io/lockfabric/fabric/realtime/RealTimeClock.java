package io.lockfabric.fabric.realtime;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.WaitInterruptedException;

import java.util.concurrent.locks.LockSupport;

/**
 * The JVM's monotonic clock. Short sleeps (the microsecond backoffs of lock protocols) yield
 * until the time has passed, because parking overshoots them by tens of microseconds; long sleeps
 * park, then yield out the rest; on a virtual thread every sleep parks. A sleep of an interrupted thread throws
 * {@link WaitInterruptedException}, as do the idle strategies it gives out. Stateless and
 * thread-safe.
 */
public final class RealTimeClock implements Clock {
    public static final RealTimeClock INSTANCE = new RealTimeClock();

    /** Sleeps shorter than this yield instead of parking. */
    static final long PARK_THRESHOLD_NS = 60_000;
    /** How much earlier than the deadline a long sleep stops parking. */
    static final long PARK_MARGIN_NS = 50_000;

    private RealTimeClock() {
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public boolean isSystemNanoTime() {
        return true;
    }

    /** False: see {@link Clock#timesBreakdowns}. */
    @Override
    public boolean timesBreakdowns() {
        return false;
    }

    /** @throws WaitInterruptedException if the thread is interrupted before or while it sleeps */
    @Override
    public void sleepNanos(long nanos) {
        if (nanos <= 0) {
            return;
        }
        long deadline = System.nanoTime() + nanos;
        if (Thread.currentThread().isVirtual()) {
            // a virtual thread parks for the whole sleep: yielding in a loop can keep its carrier from
            // the virtual threads it waits for (a lock holder) for seconds
            long left;
            while ((left = deadline - System.nanoTime()) > 0) {
                WaitInterruptedException.throwIfInterrupted("the end of a sleep");
                LockSupport.parkNanos(left);
            }
            return;
        }
        if (nanos >= PARK_THRESHOLD_NS) {
            WaitInterruptedException.throwIfInterrupted("the end of a sleep");
            LockSupport.parkNanos(nanos - PARK_MARGIN_NS);
        }
        while (System.nanoTime() < deadline) {
            WaitInterruptedException.throwIfInterrupted("the end of a sleep");
            Thread.yield();
        }
    }

    @Override
    public IdleStrategy idleStrategy() {
        return new BackoffIdleStrategy();
    }
}
