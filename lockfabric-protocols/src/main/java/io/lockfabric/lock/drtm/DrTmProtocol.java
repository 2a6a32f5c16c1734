package io.lockfabric.lock.drtm;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.TruncatedExponentialBackoff;

import java.util.List;

/**
 * {@code drtm}: DrTM's lease-based reader-writer lock word, ShiftLock's DrTM baseline. The table is
 * {@code locks} words followed by one epoch word (the base of cluster time). See
 * {@link DrTmClient} for the protocol and its clock assumption.
 */
public final class DrTmProtocol implements LockProtocol {
    public static final String NAME = "drtm";
    /** A read lease on RDMA; as many round trips on another fabric. */
    public static final long DEFAULT_LEASE_NS = 1_000_000;
    public static final LockOption LEASE_NS = LockOption.wait("lease-ns", t -> t.scaled(DEFAULT_LEASE_NS),
            "length of a read lease");
    public static final LockOption DELTA_NS = new LockOption("delta-ns", 50_000,
            "assumed bound on the clock skew between clients (DrTM/ShiftLock: 50 us with PTP)");
    public static final LockOption DRIFT_PPM = new LockOption("drift-ppm", 100,
            "bound on clock rate error (ppm): writers wait delta + 2 x drift x (time since the table epoch) past a lease end (0: DrTM fixed delta)");
    /** Clock rate errors must stay well below 1. */
    public static final long MAX_DRIFT_PPM = 10_000;
    /**
     * A reader's longest hold on RDMA; on another fabric as many round trips plus two stalls (its
     * critical section's verbs and the scheduler's delays between them).
     */
    public static final long DEFAULT_TX_TIME_NS = 500_000;
    public static final LockOption TX_TIME_NS = LockOption.wait("tx-time-ns", t -> t.scaled(DEFAULT_TX_TIME_NS, 2),
            "longest a reader holds its lock; a lease is shared only if this much (+ delta) is left");
    public static final LockOption BACKOFF_INIT_NS = new LockOption("backoff-init-ns",
            TruncatedExponentialBackoff.DEFAULT_INIT_NS, "initial backoff after meeting a write lock");
    /**
     * Statistic (a counter of {@link LockClient#stats()}): shared grants whose lease had run out
     * when they were released. DrTM validates a read lease at commit ({@code now < end − DELTA} on
     * the reader's clock); a reader that fails it outlived its lease (paused, or held past
     * {@code tx-time-ns}), so a writer may have held the lock with it, and a DrTM transaction
     * would abort. Cumulative per client, like every statistic.
     */
    public static final String LEASE_OVERRUNS = "lease-overruns";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "DrTM lease lock: CAS write lock, shared read leases that expire (needs clocks synchronized within delta)";
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    /** No grant count in the word; tokens are times of clocks synchronized only within delta. */
    @Override
    public boolean strictFencing() {
        return false;
    }

    /**
     * A crashed reader's lease runs out, but a crashed writer blocks its lock forever: no recovery.
     * Readers are leased: a reader shares a lease only while {@code tx-time-ns} (plus DELTA) of it
     * is left, so DrTM's assumption is that a reader holds at most {@code tx-time-ns}; one paused
     * longer may still hold when a writer takes the expired lease (the lease hazard, which the
     * reader learns of at release and counts as {@link #LEASE_OVERRUNS}). Writers hold no lease.
     */
    @Override
    public FailureModel failureModel(LockOptions options) {
        long tx = options.get(TX_TIME_NS);
        if (tx <= 0) {
            return FailureModel.NONE;
        }
        return FailureModel.readLease(tx, "no recovery: a crashed writer keeps its lock forever; a crashed reader's"
                + " lease runs out; a reader joins a shared lease only while tx-time of it is left, and one paused past"
                + " tx-time may overlap a writer and learns of it at release");
    }

    @Override
    public List<LockOption> options() {
        return List.of(LEASE_NS, DELTA_NS, DRIFT_PPM, TX_TIME_NS, BACKOFF_INIT_NS);
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        if (locks < 1) {
            throw new IllegalArgumentException("a table needs at least one lock, got " + locks);
        }
        long bytes = Math.addExact(Math.multiplyExact(locks, DrTmLayout.WORD_BYTES), DrTmLayout.EPOCH_BYTES);
        return new TableSpec(tableName, NAME, locks, bytes);
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        long lease = options.get(LEASE_NS);
        long delta = options.get(DELTA_NS);
        long tx = options.get(TX_TIME_NS);
        long backoff = options.get(BACKOFF_INIT_NS);
        long driftPpm = options.get(DRIFT_PPM);
        if (driftPpm < 0 || driftPpm > MAX_DRIFT_PPM) {
            throw new IllegalArgumentException("drift-ppm must be in [0, " + MAX_DRIFT_PPM + "], got " + driftPpm);
        }
        if (delta < 0 || tx < 0 || backoff < 0) {
            throw new IllegalArgumentException("delta-ns, tx-time-ns and backoff-init-ns must be >= 0");
        }
        if (lease <= delta + tx || lease > DrTmLayout.EPOCH_SLACK_NS) {
            throw new IllegalArgumentException("lease-ns (" + lease + ") must exceed delta-ns + tx-time-ns ("
                    + (delta + tx) + ") so a fresh lease can be shared, and be at most " + DrTmLayout.EPOCH_SLACK_NS);
        }
        return new DrTmClient(endpoint, table, lease, delta, driftPpm / 1e6, tx, backoff);
    }

    static long lockAddress(Table table, long lockId) {
        return LockTables.entryAddress(table, lockId, DrTmLayout.WORD_BYTES);
    }

    static long epochAddress(Table table) {
        return table.at(table.spec().locks() * DrTmLayout.WORD_BYTES);
    }
}
