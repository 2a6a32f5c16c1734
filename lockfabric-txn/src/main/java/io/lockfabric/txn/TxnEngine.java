package io.lockfabric.txn;

import io.lockfabric.lock.Mode;

import java.util.function.LongSupplier;

/**
 * Two-phase locking, one transaction at a time on the calling thread: take the whole lock set
 * through the {@link Locker} (which orders it globally, so no two transactions deadlock), spend the
 * simulated work, run the body, release everything (commit). A body that throws aborts: the set is
 * released all the same and the exception goes to the caller.
 *
 * <p>The same engine runs every workload on every locker: LockFabric's client API on a real fabric
 * ({@link TxnRunner}), a protocol's clients directly on the simulator, Redis's lock. Holds no state
 * but what it is given; thread-safe.
 */
public final class TxnEngine {
    private final Locker locker;
    private final Work work;
    private final LongSupplier clock;

    /**
     * @param locker where the locks come from
     * @param work   how simulated work is spent
     * @param clock  the clock latencies are measured on, in nanoseconds
     */
    public TxnEngine(Locker locker, Work work, LongSupplier clock) {
        this.locker = locker;
        this.work = work;
        this.clock = clock;
    }

    public Locker locker() {
        return locker;
    }

    /** Runs {@code tx} and records it in {@code metrics} if {@code measured}. */
    public void execute(Transaction tx, TxnMetrics metrics, boolean measured) {
        long start = clock.getAsLong();
        long delta;
        long locked;
        int count;
        try (Locked held = locker.lockAll(tx.locks())) {
            locked = clock.getAsLong();
            count = held.count();
            if (tx.workNs() > 0) {
                work.spend(tx.workNs());
            }
            delta = tx.body().run();
        }
        long end = clock.getAsLong();
        if (measured) {
            int shared = 0;
            for (TxnLock l : tx.locks()) {
                if (l.mode() == Mode.SHARED) {
                    shared++;
                }
            }
            metrics.committed(tx.type(), end - start, locked - start, count, shared, tx.locks().size() - shared, delta);
        } else {
            metrics.unmeasured(delta);
        }
    }
}
