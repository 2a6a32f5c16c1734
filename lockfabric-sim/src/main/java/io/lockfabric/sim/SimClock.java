package io.lockfabric.sim;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.IdleStrategy;

/**
 * A client's clock in virtual time, running at {@code rate} = 1 ± δ of true time (never
 * synchronized). Waiting blocks the calling simulated process until the true time that the local
 * duration corresponds to.
 */
final class SimClock implements Clock {
    static final long IDLE_MIN_NS = 50;
    static final long IDLE_MAX_NS = 10_000;

    private final SimFabric fabric;
    private final double rate;

    SimClock(SimFabric fabric, double rate) {
        this.fabric = fabric;
        this.rate = rate;
    }

    double rate() {
        return rate;
    }

    @Override
    public long nanoTime() {
        return (long) (fabric.simulation().now() * rate);
    }

    /** The true time at which this clock shows {@code local} (the first such nanosecond). */
    long trueTimeOf(long local) {
        if (local == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return (long) Math.ceil(local / rate);
    }

    @Override
    public void sleepNanos(long nanos) {
        if (nanos <= 0) {
            return;
        }
        long trueNanos = (long) Math.ceil(nanos / rate);
        fabric.sleepTrue(trueNanos);
    }

    @Override
    public IdleStrategy idleStrategy() {
        return new IdleStrategy() {
            private long next = IDLE_MIN_NS;

            @Override
            public void idle() {
                sleepNanos(next);
                next = Math.min(next * 2, IDLE_MAX_NS);
            }

            @Override
            public void reset() {
                next = IDLE_MIN_NS;
            }
        };
    }
}
