package io.lockfabric.fabric.realtime;

import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.WaitInterruptedException;

import java.util.concurrent.locks.LockSupport;

/**
 * Real-time idling in three stages: spin, then yield, then park with a period doubling from
 * {@code minParkNs} up to {@code maxParkNs}. A virtual thread skips the yields (a yielding virtual
 * thread can keep its carrier from the virtual threads it waits for). An interrupted thread's next {@link #idle()} throws
 * {@link WaitInterruptedException}, so no wait built on it outlives its client. Not thread-safe
 * (one per waiting thread).
 */
public final class BackoffIdleStrategy implements IdleStrategy {
    public static final int DEFAULT_MAX_SPINS = 16;
    public static final int DEFAULT_MAX_YIELDS = 16;
    public static final long DEFAULT_MIN_PARK_NS = 1_000;
    public static final long DEFAULT_MAX_PARK_NS = 100_000;

    private final int maxSpins;
    private final int maxYields;
    private final long minParkNs;
    private final long maxParkNs;
    private int spins;
    private int yields;
    private long parkNs;

    public BackoffIdleStrategy() {
        this(DEFAULT_MAX_SPINS, DEFAULT_MAX_YIELDS, DEFAULT_MIN_PARK_NS, DEFAULT_MAX_PARK_NS);
    }

    public BackoffIdleStrategy(int maxSpins, int maxYields, long minParkNs, long maxParkNs) {
        if (maxSpins < 0 || maxYields < 0 || minParkNs <= 0 || maxParkNs < minParkNs) {
            throw new IllegalArgumentException("bad idle strategy bounds");
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNs = minParkNs;
        this.maxParkNs = maxParkNs;
        this.parkNs = minParkNs;
    }

    /** @throws WaitInterruptedException if the thread has been interrupted */
    @Override
    public void idle() {
        WaitInterruptedException.throwIfInterrupted("a condition it polls");
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields && !Thread.currentThread().isVirtual()) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNs);
            parkNs = Math.min(parkNs << 1, maxParkNs);
        }
    }

    @Override
    public void reset() {
        spins = 0;
        yields = 0;
        parkNs = minParkNs;
    }
}
