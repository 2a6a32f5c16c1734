package io.lockfabric.txn;

/**
 * How a transaction's simulated work is spent: a busy spin on a real clock, or the simulator's
 * virtual time. Injected, so that the engine never reads a clock of its own.
 */
@FunctionalInterface
public interface Work {
    /** Spends {@code ns} nanoseconds of work on the calling thread. */
    void spend(long ns);

    /** A busy spin on {@code clock} (the paper's transactions compute, they do not sleep). */
    static Work spinOn(java.util.function.LongSupplier clock) {
        return ns -> {
            long end = clock.getAsLong() + ns;
            while (clock.getAsLong() < end) {
                Thread.onSpinWait();
            }
        };
    }
}
