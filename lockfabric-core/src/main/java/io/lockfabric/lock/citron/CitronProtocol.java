package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;

import java.util.List;

/**
 * {@code citron}: CITRON's range lock (FAST'23 §3) over [0, ∞): a segment-tree lock for [0, N)
 * ({@link CitronLayout}) and a spillover mutex for [N, ∞). See {@link CitronClient} for the
 * protocol. Exclusive only: shared requests are granted exclusive.
 */
public final class CitronProtocol implements RangeLockProtocol {
    public static final String NAME = "citron";
    public static final LockOption UNITS = new LockOption("units", CitronLayout.DEFAULT_UNITS,
            "N: the lock tree covers [0, N), 64 x 4^j units (2^28: 12 levels, 42.7 MiB); [N, inf) takes the spillover mutex");
    public static final LockOption K = new LockOption("k", 2,
            "most tree nodes one request is split into (step 1; 1 = lowest covering node)");
    public static final LockOption M = new LockOption("m", 4,
            "meet-in-the-middle distance: notify every m-th ancestor, check m levels of descendants");
    public static final LockOption T_WAIT_NS = new LockOption("t-wait-ns", 15_000,
            "T_wait: an occupier waits this long before checking descendants (paper: 15 us, 5 us per round trip)");
    public static final LockOption DRIFT_PPM = new LockOption("drift-ppm", 100,
            "delta: bound on clock rate error, in parts per million (paper: 1e-4)");
    public static final LockOption FAST_PATH = new LockOption("fast-path", 1,
            "1: batch (a)+(b) and (c)+(d), lock the 256 leaf bits under a lowest internal node (s3.8); 0: off");
    public static final LockOption POLL_NS = new LockOption("poll-ns", 1_000,
            "wait between two READs of a polled word (ticket, Occ, DCnt, spillover)");
    public static final LockOption STARVE_NS = new LockOption("starve-ns", 100_000,
            "a leaf whose masked CAS keeps failing this long is given up for its parent's bakery lock (inf: never)");
    public static final LockOption HOLD_WAIT_NS = new LockOption("hold-wait-ns", 1_000_000,
            "a request holding earlier nodes that waits this long for the next releases them and restarts");
    public static final LockOption MAX_RESTARTS = new LockOption("max-restarts", 100_000,
            "aborts and restarts one acquisition may take before giving up");

    private final CitronTuning tuning;

    /** Parameters (m, T_wait) fixed by the options. */
    public CitronProtocol() {
        this(null);
    }

    private CitronProtocol(CitronTuning tuning) {
        this.tuning = tuning;
    }

    /**
     * A citron whose clients take (m, T_wait) from {@code tuning}, which a cluster manager may
     * change at run time; the {@code m} and {@code t-wait-ns} options are then ignored.
     */
    public static CitronProtocol withTuning(CitronTuning tuning) {
        return new CitronProtocol(java.util.Objects.requireNonNull(tuning, "tuning"));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "CITRON range lock: segment tree of leaf bitmaps (MCAS) and bakery nodes (MFAA), meet-in-the-middle";
    }

    @Override
    public boolean supportsShared() {
        return false;
    }

    /** Tokens are the spillover mutex's 16-bit ticket for requests reaching past N, 0 otherwise. */
    @Override
    public boolean strictFencing() {
        return false;
    }

    @Override
    public List<LockOption> options() {
        return List.of(UNITS, K, M, T_WAIT_NS, DRIFT_PPM, FAST_PATH, POLL_NS, STARVE_NS, HOLD_WAIT_NS, MAX_RESTARTS);
    }

    /**
     * The citron-specific counts of a client this protocol made.
     *
     * @throws IllegalArgumentException if {@code client} is not a citron client
     */
    public static CitronCounters counters(RangeLockClient client) {
        if (!(client instanceof CitronClient c)) {
            throw new IllegalArgumentException("not a citron client: " + client);
        }
        return new CitronCounters(c.timingAborts(), c.yields(), c.escalations());
    }

    /** The tree geometry the options ask for (at least two levels). */
    public static CitronLayout layout(LockOptions options) {
        var tree = new CitronLayout(options.get(UNITS));
        if (tree.levels() < 2) {
            throw new IllegalArgumentException("citron needs units >= 256 (a root above the leaves), got " + tree.units());
        }
        return tree;
    }

    @Override
    public TableSpec tableSpec(String tableName, LockOptions options) {
        CitronLayout tree = layout(options);
        return new TableSpec(tableName, NAME, tree.units(), tree.tableBytes());
    }

    @Override
    public RangeLockClient client(Endpoint endpoint, Table table, LockOptions options) {
        CitronLayout tree = layout(options);
        if (table.spec().bytes() != tree.tableBytes()) {
            throw new IllegalArgumentException("table " + table.spec() + " is not a citron table of " + tree);
        }
        long k = options.get(K);
        long m = options.get(M);
        if (k < 1 || k > 64) {
            throw new IllegalArgumentException("k must be in [1, 64], got " + k);
        }
        if (m < 1 || m > CitronLayout.MAX_LEVELS) {
            throw new IllegalArgumentException("m must be in [1, " + CitronLayout.MAX_LEVELS + "], got " + m);
        }
        long tWait = options.get(T_WAIT_NS);
        if (tWait <= 0 || tWait == Long.MAX_VALUE) {
            throw new IllegalArgumentException("t-wait-ns must be positive and finite, got " + tWait);
        }
        long ppm = options.get(DRIFT_PPM);
        if (ppm < 0 || ppm >= 100_000) {
            throw new IllegalArgumentException("drift-ppm must be in [0, 100000), got " + ppm);
        }
        long fast = options.get(FAST_PATH);
        if (fast != 0 && fast != 1) {
            throw new IllegalArgumentException("fast-path must be 0 or 1, got " + fast);
        }
        long poll = options.get(POLL_NS);
        long starve = options.get(STARVE_NS);
        long holdWait = options.get(HOLD_WAIT_NS);
        if (poll < 0 || starve < 0 || holdWait < 0) {
            throw new IllegalArgumentException("poll-ns, starve-ns and hold-wait-ns must be >= 0");
        }
        long maxRestarts = options.get(MAX_RESTARTS);
        if (maxRestarts < 0 || maxRestarts > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("max-restarts must be in [0, " + Integer.MAX_VALUE + "], got " + maxRestarts);
        }
        var params = new CitronClient.Params((int) k, (int) m, tWait, ppm * 1e-6, fast == 1, poll, starve, holdWait,
                (int) maxRestarts, tuning);
        return new CitronClient(endpoint, table, tree, params);
    }
}
