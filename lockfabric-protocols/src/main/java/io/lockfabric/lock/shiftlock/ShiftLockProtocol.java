package io.lockfabric.lock.shiftlock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.FabricTiming;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;

import java.util.List;
import java.util.Objects;

/**
 * {@code shiftlock}: ShiftLock (FAST'25), an RDMA reader-writer lock whose writers queue MCS-style
 * and hand the lock over by client-to-client messages, with lease-based, server-arbitrated
 * recovery from client failures. See {@link ShiftLockClient} for the protocol.
 */
public final class ShiftLockProtocol implements LockProtocol {
    public static final String NAME = "shiftlock";
    /**
     * The paper's lease (§3.6), on RDMA; as many round trips on another fabric, and at least
     * {@link FabricTiming#LEASE_STALLS} of its stalls (shm: 200 ms, not 10 ms).
     */
    public static final long DEFAULT_LEASE_NS = 10_000_000;
    public static final LockOption LEASE_NS = LockOption.wait("lease-ns",
            t -> t.scaledAtLeast(DEFAULT_LEASE_NS, FabricTiming.LEASE_STALLS),
            "longest a client may hold the lock; waiters recover a lock whose RelCnt is stuck for 3 x lease"
                    + " (inf: no failure detection)");
    /** The paper's threshold of consecutive writers (§3.5.2). */
    public static final long DEFAULT_THRESHOLD = 16;
    public static final LockOption THRESHOLD = new LockOption("threshold", DEFAULT_THRESHOLD,
            "N: at most N consecutive writers hold the lock before waiting readers get it (inf: never)");
    public static final LockOption ERAS = new LockOption("eras", 1,
            "era counters on the memory node; a lock uses one by hash, so recoveries of locks on different"
                    + " eras run in parallel");
    public static final LockOption DRIFT_PPM = new LockOption("drift-ppm", 100,
            "clock drift bound delta in parts per million: every timed wait T lasts (1 + delta) T");
    public static final LockOption POLL_NS = new LockOption("poll-ns", 2_000,
            "first gap between READs of a waiting client (doubles per READ)");
    public static final LockOption MAX_POLL_NS = new LockOption("max-poll-ns", 20_000,
            "largest gap between READs of a waiting client (never more than lease / 2)");
    public static final LockOption MAX_RESTARTS = new LockOption("max-restarts", 16,
            "restarts of one acquisition (after a recovery or a grant seen past its lease) before giving up");
    /** A lease must leave room for round trips and timer slack. */
    public static final long MIN_LEASE_NS = 100_000;
    /** Round trips, rpcs and timer overshoot allowed for in the recovery bound. */
    public static final long RECOVERY_SLACK_NS = 500_000;
    static final int MAX_ERAS = 1 << 20;
    static final long MAX_DRIFT_PPM = 10_000;

    private final ShiftLockProbe probe;

    public ShiftLockProtocol() {
        this(ShiftLockProbe.NONE);
    }

    private ShiftLockProtocol(ShiftLockProbe probe) {
        this.probe = probe;
    }

    /** This protocol with a test probe called at the protocol points of every client it makes. */
    public static ShiftLockProtocol withProbe(ShiftLockProbe probe) {
        return new ShiftLockProtocol(Objects.requireNonNull(probe, "probe"));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "ShiftLock reader-writer lock: MCS writer queue with message handover, reader counter, epoch flips,"
                + " lease recovery by the memory node";
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    /**
     * Not strict: the token is RelCnt at the grant, which increases from grant to grant between
     * recoveries, but a recovery adds 2^63 to RelCnt modulo 2^64, so the token falls (as a signed
     * number) at the first recovery of a lock and returns to its old range at the second. A waiting
     * reader's token comes from a 16-byte READ that may tear: it can be the token of the writer
     * released just before the reader's grant instead of one more.
     */
    @Override
    public boolean strictFencing() {
        return false;
    }

    @Override
    public List<LockOption> options() {
        return List.of(LEASE_NS, THRESHOLD, ERAS, DRIFT_PPM, POLL_NS, MAX_POLL_NS, MAX_RESTARTS);
    }

    /**
     * With lease {@code L} and drift δ: a lock held by a crashed client, or whose queue a crashed
     * client broke, is usable again within {@code 4·L·(1+δ) + slack} of the crash: a waiter has
     * seen RelCnt's last value by {@code L/2} after it was written (its checks are at most
     * {@code L/2} apart), recovers {@code 3·L·(1+δ)} after that, and the other waiters see the
     * leap within {@code L/2} and re-enqueue. A recovery request rejected because another lock of
     * the same era recovered first costs one more {@code L} (more era counters make that rare).
     * {@code k} crashed clients in one lock's queue cost up to {@code k} bounds.
     */
    @Override
    public FailureModel failureModel(LockOptions options) {
        long lease = validLease(options);
        if (lease == Long.MAX_VALUE) {
            return FailureModel.NONE;
        }
        double drift = 1 + options.get(DRIFT_PPM) / 1e6;
        long bound = (long) Math.min(Long.MAX_VALUE / 2.0, 4 * lease * drift) + RECOVERY_SLACK_NS;
        return FailureModel.lease(lease, bound, "waiters that see RelCnt stuck for 3 x lease ask the memory node"
                + " to reset the entry (once per era, RelCnt + 2^63) and restart; a writer waiting a lease for its"
                + " successor's message drops the lock; releases after a reset are guarded by RelCnt and do not land");
    }

    static long validLease(LockOptions options) {
        long lease = options.get(LEASE_NS);
        if (lease != Long.MAX_VALUE && lease < MIN_LEASE_NS) {
            throw new IllegalArgumentException("lease-ns must be >= " + MIN_LEASE_NS + " (or inf), got " + lease);
        }
        long drift = options.get(DRIFT_PPM);
        if (drift < 0 || drift > MAX_DRIFT_PPM) {
            throw new IllegalArgumentException("drift-ppm must be in [0, " + MAX_DRIFT_PPM + "], got " + drift);
        }
        return lease;
    }

    private static int eras(LockOptions options) {
        long eras = options.get(ERAS);
        if (eras < 1 || eras > MAX_ERAS) {
            throw new IllegalArgumentException("eras must be in [1, " + MAX_ERAS + "], got " + eras);
        }
        return (int) eras;
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        if (locks < 1) {
            throw new IllegalArgumentException("a table needs at least one lock, got " + locks);
        }
        int eras = eras(options);
        return new TableSpec(tableName, NAME, locks, ShiftLockLayout.tableBytes(locks, eras))
                .withService(TableSpec.ServiceFactory.dependingOn(List.of(ERAS.name() + "=" + eras),
                        host -> new ShiftLockRecovery(host.table(), locks, eras)));
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        long lease = validLease(options);
        long threshold = options.get(THRESHOLD);
        if (threshold < 1) {
            throw new IllegalArgumentException("threshold must be >= 1 (or inf), got " + threshold);
        }
        int eras = eras(options);
        long expected = ShiftLockLayout.tableBytes(table.spec().locks(), eras);
        if (table.spec().bytes() != expected) {
            throw new IllegalArgumentException(table.spec() + " has " + table.spec().bytes() + " bytes; with eras="
                    + eras + " a shiftlock table of " + table.spec().locks() + " locks has " + expected);
        }
        long poll = options.get(POLL_NS);
        long maxPoll = options.get(MAX_POLL_NS);
        if (poll < 0 || maxPoll < poll) {
            throw new IllegalArgumentException("need 0 <= poll-ns <= max-poll-ns, got " + poll + ", " + maxPoll);
        }
        long maxRestarts = options.get(MAX_RESTARTS);
        if (maxRestarts < 0 || maxRestarts > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("max-restarts must be in [0, " + Integer.MAX_VALUE + "], got " + maxRestarts);
        }
        var timing = new ShiftLockClient.Timing(lease, options.get(DRIFT_PPM) / 1e6, poll, maxPoll);
        return new ShiftLockClient(endpoint, table, timing, threshold, eras, (int) maxRestarts, probe);
    }
}
