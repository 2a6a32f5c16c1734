package io.lockfabric.lock.declock;

import io.lockfabric.fabric.Durations;
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

/**
 * {@code cql}: DecLock's cooperative queue-notify lock (§4) without the hierarchy: every client
 * queues on the memory node itself. See {@link CqlClient} for the protocol, {@link CqlLayout} for
 * the memory.
 */
public final class CqlProtocol implements LockProtocol {
    public static final String NAME = "cql";
    /** The artifact's capacity without hierarchy (2^9). */
    public static final long DEFAULT_CAPACITY = 512;
    public static final LockOption CAPACITY = new LockOption("capacity", DEFAULT_CAPACITY,
            "queue entries per lock, a power of two in [2, 4096]; more waiters than this overflow the queue and reset"
                    + " the lock");
    public static final LockOption MAX_CLIENTS = new LockOption("max-clients", 0,
            "member slots of the table, the most clients that may open it (0: 2 x capacity - 1, the most qsize can"
                    + " count)");
    /**
     * Long enough for threads of a busy machine, which a scheduler may stall for tens of ms; on a
     * fabric of slower round trips, at least twice the waiters' timeout there, so a resetter does
     * not give up on holders that are only as slow as the fabric.
     */
    public static final long DEFAULT_LEASE_NS = 100_000_000;
    public static final LockOption LEASE_NS = LockOption.wait("lease-ns",
            t -> Math.max(DEFAULT_LEASE_NS, 2 * CqlProtocol.defaultTimeoutNs(t)),
            "longest a client may hold a lock; a resetter waits this long for a live client's answer, then takes it"
                    + " for dead");
    /** On RDMA; as many round trips on another fabric, and at least {@link #TIMEOUT_STALLS} of its stalls. */
    public static final long DEFAULT_TIMEOUT_NS = 10_000_000;
    /**
     * The waiters' timeout is a failure detector for the holder ahead: where clients share cores
     * (shm, tcp) a live holder descheduled a few times in its critical section must not pass for a
     * crashed one. On shm (RDMA's round trips, 2 ms stalls) this makes it 50 ms instead of 10 ms:
     * the two-process file counter on a machine at load 15 reset its lock 6 to 8 times less often
     * (each reset aborts every waiter and waits for the holders' answers). tcp (200 ms) and the RDMA
     * profile of local and sim (no stalls) keep their values.
     */
    static final int TIMEOUT_STALLS = 25;

    /** The default {@code timeout-ns} on a fabric of timing {@code t}. */
    static long defaultTimeoutNs(FabricTiming t) {
        return t.scaledAtLeast(DEFAULT_TIMEOUT_NS, TIMEOUT_STALLS);
    }

    public static final LockOption TIMEOUT_NS = LockOption.wait("timeout-ns", CqlProtocol::defaultTimeoutNs,
            "a waiter not granted within this resets the lock (a crashed holder or queue member)");
    /** On RDMA; where clients share cores, at least one of the fabric's stalls ({@link #defaultSignalPollNs}). */
    public static final long DEFAULT_SIGNAL_POLL_NS = 50_000;

    /**
     * The longest slice of a client's wait before it looks for reset signals and a restart of the
     * memory node: {@link #DEFAULT_SIGNAL_POLL_NS} on RDMA, scaled to the fabric's round trips, and at
     * least one of its stalls. A slice shorter than a sleep is a busy loop: on shm (RDMA's round trips)
     * a waiter sliced at 50 us spun and yielded through its whole wait (thread dumps of two client
     * processes found every waiting thread in a yield), and 8 waiters on 2 cores starved the holders
     * they waited for. A slice of a stall (2 ms) lets a waiter sleep until its message comes; a reset's
     * signal waits at most that for its answer, against a lease of 100 ms or more there.
     */
    static long defaultSignalPollNs(FabricTiming t) {
        return t.scaledAtLeast(DEFAULT_SIGNAL_POLL_NS, 1);
    }

    public static final LockOption SIGNAL_POLL_NS = LockOption.wait("signal-poll-ns", CqlProtocol::defaultSignalPollNs,
            "while waiting, a client looks for reset signals of other locks at least this often");
    public static final LockOption MAX_RESTARTS = new LockOption("max-restarts", 1024,
            "restarts of one acquisition (after resets) before giving up; a queue that overflows all the time (capacity"
                    + " far below the clients) aborts every waiter at each reset");
    public static final LockOption FORCE_RESET_NS = new LockOption("force-reset-ns", 0,
            "experiments only (Fig. 16): every this often the table's first client resets the lock it is about to"
                    + " acquire, as a timed-out waiter would; 0: never");
    /** Round trips, timer overshoot and the resetter's own verbs allowed for in the recovery bound. */
    public static final long RECOVERY_SLACK_NS = 500_000;
    public static final long MIN_LEASE_NS = 100_000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "DecLock CQL reader-writer lock: FAA enqueue on a memory-node queue, ownership handed over by message,"
                + " lock reset on overflow or timeout";
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    /**
     * Strict: the token is {@code RSTCNT × 2^25 + queue index} (see {@link CqlLayout}), increasing
     * across grants and resets until RSTCNT wraps after {@code 2^(37-2C)} resets of one lock.
     */
    @Override
    public boolean strictFencing() {
        return true;
    }

    @Override
    public List<LockOption> options() {
        return List.of(CAPACITY, MAX_CLIENTS, LEASE_NS, TIMEOUT_NS, SIGNAL_POLL_NS, MAX_RESTARTS, FORCE_RESET_NS);
    }

    /**
     * A crashed holder or queue member blocks the lock until a waiter times out ({@code timeout});
     * that waiter resets it, waiting at most {@code lease} for live clients' answers. A resetter
     * that dies mid-reset is taken over {@code 2·lease} after a waiter saw RST (one more crash in
     * the allowance). Bound per crash: {@code timeout + 3·lease + slack}.
     */
    @Override
    public FailureModel failureModel(LockOptions options) {
        Settings s = settings(options);
        long bound = s.timeoutNs() + 3 * s.leaseNs() + RECOVERY_SLACK_NS;
        return FailureModel.lease(s.leaseNs(), bound, "waiters time out after " + Durations.format(s.timeoutNs())
                + " and reset the lock: RST by CAS, signal every registered client, wait at most a lease for holders'"
                + " answers (dead clients not awaited), rewrite queue and header; late releases are CAS-guarded");
    }

    /** Validated option values. */
    record Settings(CqlLayout layout, long leaseNs, long timeoutNs, long signalPollNs, int maxRestarts) {
    }

    static Settings settings(LockOptions options) {
        long capacity = validCapacity(options.get(CAPACITY));
        long maxClients = options.get(MAX_CLIENTS);
        if (maxClients == 0) {
            maxClients = 2 * capacity - 1;
        }
        if (maxClients < 1 || maxClients > 2 * capacity - 1) {
            throw new IllegalArgumentException("max-clients must be in [1, " + (2 * capacity - 1) + "] for capacity "
                    + capacity + " (or 0 for that maximum), got " + maxClients);
        }
        return settings(options, new CqlLayout((int) capacity, (int) maxClients));
    }

    static long validCapacity(long capacity) {
        if (capacity < 2 || capacity > (1 << CqlLayout.MAX_CAPACITY_BITS) || Long.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two in [2, " + (1 << CqlLayout.MAX_CAPACITY_BITS)
                    + "], got " + capacity);
        }
        return capacity;
    }

    /** The timing options (shared with the hierarchical protocols) for {@code layout}. */
    static Settings settings(LockOptions options, CqlLayout layout) {
        long lease = options.get(LEASE_NS);
        long timeout = options.get(TIMEOUT_NS);
        if (lease < MIN_LEASE_NS || lease > Long.MAX_VALUE / 8) {
            throw new IllegalArgumentException("lease-ns must be in [" + MIN_LEASE_NS + ", " + Long.MAX_VALUE / 8
                    + "], got " + lease);
        }
        if (timeout < MIN_LEASE_NS || timeout > Long.MAX_VALUE / 8) {
            throw new IllegalArgumentException("timeout-ns must be in [" + MIN_LEASE_NS + ", " + Long.MAX_VALUE / 8
                    + "], got " + timeout);
        }
        long poll = options.get(SIGNAL_POLL_NS);
        if (poll < 1 || poll > lease) {
            throw new IllegalArgumentException("signal-poll-ns must be in [1, lease-ns], got " + poll);
        }
        long restarts = options.get(MAX_RESTARTS);
        if (restarts < 0 || restarts > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("max-restarts must be in [0, " + Integer.MAX_VALUE + "], got " + restarts);
        }
        return new Settings(layout, lease, timeout, poll, (int) restarts);
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        if (locks < 1) {
            throw new IllegalArgumentException("a table needs at least one lock, got " + locks);
        }
        return new TableSpec(tableName, NAME, locks, settings(options).layout().tableBytes(locks));
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        Settings s = settings(options);
        long expected = s.layout().tableBytes(table.spec().locks());
        if (table.spec().bytes() != expected) {
            throw new IllegalArgumentException(table.spec() + " has " + table.spec().bytes() + " bytes; a cql table of "
                    + table.spec().locks() + " locks with " + s.layout() + " has " + expected);
        }
        long forceResetNs = options.get(FORCE_RESET_NS);
        if (forceResetNs < 0) {
            throw new IllegalArgumentException("force-reset-ns must be >= 0, got " + forceResetNs);
        }
        return new CqlClient(endpoint, table, s, forceResetNs);
    }
}
