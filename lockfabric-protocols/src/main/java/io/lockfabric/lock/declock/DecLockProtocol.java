package io.lockfabric.lock.declock;

import io.lockfabric.fabric.Durations;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;

import java.util.List;
import java.util.Locale;

/**
 * {@code declock-tf} and {@code declock-pf}: DecLock with timestamp-based hierarchical locking
 * (§5), task-fair or phase-fair among a compute node's local waiters. See {@link DecLockClient}.
 *
 * <p><b>Capacity.</b> The queue holds one participant per compute node, so its capacity is by
 * default the number of compute nodes (§5: "the queue capacity is the number of CNs"), rounded up
 * to a power of two (the queue index is taken modulo the capacity). Neither the fabric SPI nor the
 * table spec knows the cluster's size when the table is made, so it comes from option {@code cns}
 * (default 8, the paper's testbed; the artifact fixes 2^5 entries); the benchmarks pass
 * their topology's compute-node count. {@code capacity} overrides it. A client opening the table
 * from more nodes than qsize can count ({@code 2 x capacity - 1}) is refused with a message to
 * raise {@code cns}. The capacity is at least 8, not because of the paper's design but of this
 * implementation's fencing token: the CQL token has {@code 62 - 2C} bits (RSTCNT's {@code 37 - 2C}
 * and the 25-bit index) and the local grant count adds 7, within 63 bits only for C >= 3. A
 * cluster of fewer than 8 nodes thus has a few unused entries per lock (8 bytes each, and the
 * release's batched READ of the queue is that much longer).
 */
public final class DecLockProtocol implements LockProtocol {
    /** The paper's testbed: 8 compute nodes. */
    public static final long DEFAULT_CNS = 8;
    public static final long MIN_CAPACITY = 8;
    public static final LockOption CNS = new LockOption("cns", DEFAULT_CNS,
            "compute nodes that use the table; the queue capacity is this rounded up to a power of two, at least 8");
    public static final LockOption CAPACITY = new LockOption("capacity", 0,
            "queue entries per lock, a power of two >= 8 (counts up to 2 x capacity - 1 nodes); 0: from cns");
    public static final LockOption MAX_CLIENTS = new LockOption("max-clients", 1024,
            "member slots of the table, the most clients (on all nodes) that may open it");
    public static final LockOption POLICY = LockOption.choice("policy",
            "who goes first between local and remote waiters", "timestamp", "remote-prefer", "local-prefer",
            "local-bound");
    /** The paper's interval between clock barriers. */
    public static final long DEFAULT_SYNC_INTERVAL_NS = 1_000_000_000L;
    public static final LockOption SYNC_INTERVAL_NS = new LockOption("sync-interval-ns", DEFAULT_SYNC_INTERVAL_NS,
            "with sync-cns, the nodes pass the clock barrier again this often (the paper: 1 s; with the simulator's"
                    + " clock drift of 1e-4, 10 ms keeps nodes within 2 us)");
    public static final LockOption SYNC_CNS = new LockOption("sync-cns", 0,
            "compute nodes taking part in the clock-synchronization barrier (0: none, clocks used as they are)");

    private final boolean phaseFair;

    private DecLockProtocol(boolean phaseFair) {
        this.phaseFair = phaseFair;
    }

    public static DecLockProtocol taskFair() {
        return new DecLockProtocol(false);
    }

    public static DecLockProtocol phaseFair() {
        return new DecLockProtocol(true);
    }

    @Override
    public String name() {
        return phaseFair ? "declock-pf" : "declock-tf";
    }

    @Override
    public String description() {
        return "DecLock hierarchical: CQL queue of compute nodes, per-node local locks with timestamp-fair handover, "
                + (phaseFair ? "phase-fair readers" : "task-fair");
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    /** Strict: the node's CQL token (strict, see {@link CqlProtocol#strictFencing()}) then the local grant count. */
    @Override
    public boolean strictFencing() {
        return true;
    }

    @Override
    public List<LockOption> options() {
        return List.of(CNS, CAPACITY, MAX_CLIENTS, POLICY, SYNC_CNS, SYNC_INTERVAL_NS, CqlProtocol.LEASE_NS, CqlProtocol.TIMEOUT_NS,
                CqlProtocol.SIGNAL_POLL_NS, CqlProtocol.MAX_RESTARTS);
    }

    /**
     * Safety as {@code cql} (a client paused past the lease while holding is the hazard). A crashed
     * client is found by its node's local waiters within {@code lease/4} (they look every
     * {@code lease/8} at clients there for {@code lease/8}) and released for; what it left on
     * the memory node (an entry, a grant) is recovered by the CQL reset. Bound per crash: the
     * {@code cql} bound ({@code timeout + 3·lease + slack}) plus a lease for the local detection
     * and a node's re-acquisition that queues behind its dead client's entry.
     */
    @Override
    public FailureModel failureModel(LockOptions options) {
        CqlProtocol.Settings s = settings(options);
        long bound = s.timeoutNs() + 4 * s.leaseNs() + CqlProtocol.RECOVERY_SLACK_NS;
        return FailureModel.lease(s.leaseNs(), bound, "cql for the memory-node queue (waiters time out after "
                + Durations.format(s.timeoutNs()) + " and reset the lock, dead clients not awaited); on a compute"
                + " node, local waiters ping a holder or CQL acquirer there for lease/8 and release for it if that"
                + " fails (RNR), or if a holder held 2 x lease");
    }

    /** The queue capacity: {@code capacity} if set, else {@code cns} rounded up to a power of two, at least 8. */
    static long capacity(LockOptions options) {
        long cns = options.get(CNS);
        if (cns < 1 || cns > 1 << CqlLayout.MAX_CAPACITY_BITS) {
            throw new IllegalArgumentException("cns must be in [1, " + (1 << CqlLayout.MAX_CAPACITY_BITS) + "], got " + cns);
        }
        long set = options.get(CAPACITY);
        if (set != 0) {
            return CqlProtocol.validCapacity(set);
        }
        return Math.max(MIN_CAPACITY, Long.highestOneBit(cns - 1) << 1);
    }

    static CqlProtocol.Settings settings(LockOptions options) {
        long capacity = capacity(options);
        if (capacity < MIN_CAPACITY) {
            throw new IllegalArgumentException("capacity must be >= " + MIN_CAPACITY + " for the hierarchical protocols,"
                    + " got " + capacity);
        }
        long maxClients = options.get(MAX_CLIENTS);
        if (maxClients < 1 || maxClients > CqlLayout.MAX_SLOTS) {
            throw new IllegalArgumentException("max-clients must be in [1, " + CqlLayout.MAX_SLOTS + "], got " + maxClients);
        }
        if (options.get(SYNC_CNS) < 0) {
            throw new IllegalArgumentException("sync-cns must be >= 0, got " + options.get(SYNC_CNS));
        }
        if (options.get(SYNC_INTERVAL_NS) < 1) {
            throw new IllegalArgumentException("sync-interval-ns must be >= 1, got " + options.get(SYNC_INTERVAL_NS));
        }
        policy(options);
        return CqlProtocol.settings(options, new CqlLayout((int) capacity, (int) maxClients,
                CqlLayout.HIERARCHICAL_TIMESTAMP_BITS));
    }

    static DecLockClient.Policy policy(LockOptions options) {
        String name = POLICY.choiceName(options.get(POLICY));
        return DecLockClient.Policy.valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        if (locks < 1) {
            throw new IllegalArgumentException("a table needs at least one lock, got " + locks);
        }
        return new TableSpec(tableName, name(), locks, settings(options).layout().tableBytes(locks));
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        CqlProtocol.Settings s = settings(options);
        long expected = s.layout().tableBytes(table.spec().locks());
        if (table.spec().bytes() != expected) {
            throw new IllegalArgumentException(table.spec() + " has " + table.spec().bytes() + " bytes; a " + name()
                    + " table of " + table.spec().locks() + " locks with " + s.layout() + " has " + expected);
        }
        return new DecLockClient(endpoint, table, s, phaseFair, policy(options), options.get(SYNC_CNS),
                options.get(SYNC_INTERVAL_NS));
    }
}
