package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.RangeLockProtocol;

import java.util.List;

/**
 * {@code citron}: CITRON's range lock (FAST'23 §3) over [0, ∞): a segment-tree lock for [0, N)
 * ({@link CitronLayout}) and a spillover mutex for [N, ∞). See {@link CitronClient} for the
 * protocol (lease recovery, fencing tokens, scale-up and scale-down included). Exclusive only by
 * default (shared requests are granted exclusive); option {@code shared-lanes} ≥ 2 adds reader
 * lanes ({@link ReaderLanes}). Its clients are {@link CitronClient}s: code that knows it
 * runs CITRON opens them here to reach CITRON's own operations (tree size, scale-down); what they
 * counted is in their {@link io.lockfabric.lock.LockStats} ({@link CitronCounters#of},
 * {@link CitronProfile#of}).
 */
public final class CitronProtocol implements RangeLockProtocol {
    public static final String NAME = "citron";
    public static final LockOption UNITS = new LockOption("units", CitronLayout.DEFAULT_UNITS,
            "N: the lock tree covers [0, N), 64 x 4^j units (2^28: 12 levels, 42.7 MiB); [N, inf) takes the spillover mutex");
    public static final LockOption K = new LockOption("k", 2,
            "most tree nodes one request is split into (step 1; 1 = lowest covering node)");
    public static final LockOption M = new LockOption("m", 4,
            "meet-in-the-middle distance: notify every m-th ancestor, check m levels of descendants");
    /**
     * T_wait on RDMA: three round trips of 5 us (§3.7). On another fabric as many round trips plus
     * one stall: it bounds the time between two steps of one client, which a scheduler may delay.
     */
    public static final long DEFAULT_T_WAIT_NS = 15_000;
    public static final LockOption T_WAIT_NS = LockOption.wait("t-wait-ns", t -> t.scaled(DEFAULT_T_WAIT_NS, 1),
            "T_wait: an occupier waits this long before checking descendants (paper: 15 us, 5 us per round trip)");
    public static final LockOption DRIFT_PPM = new LockOption("drift-ppm", 100,
            "delta: bound on clock rate error, in parts per million (paper: 1e-4)");
    public static final LockOption FAST_PATH = new LockOption("fast-path", 1,
            "1: batch (a)+(b) and (c)+(d), lock the 256 leaf bits under a lowest internal node (s3.8); 0: off");
    /** On RDMA; as many round trips on another fabric. */
    public static final long DEFAULT_POLL_NS = 1_000;
    public static final LockOption POLL_NS = LockOption.wait("poll-ns", t -> t.scaled(DEFAULT_POLL_NS),
            "wait between two READs of a polled word (ticket, Occ, DCnt, spillover)");
    /** On RDMA; on another fabric as many round trips plus one stall of the occupier that starves it. */
    public static final long DEFAULT_STARVE_NS = 100_000;
    public static final LockOption STARVE_NS = LockOption.wait("starve-ns", t -> t.scaled(DEFAULT_STARVE_NS, 1),
            "a leaf whose masked CAS keeps failing this long is given up for its parent's bakery lock (inf: never)");
    /** On RDMA; on another fabric as many round trips plus two stalls (the holder's and the waiter's own). */
    public static final long DEFAULT_HOLD_WAIT_NS = 1_000_000;
    public static final LockOption HOLD_WAIT_NS = LockOption.wait("hold-wait-ns",
            t -> t.scaled(DEFAULT_HOLD_WAIT_NS, 2),
            "a request holding earlier nodes that waits this long for the next releases them and restarts (at most lease-ns / 4)");
    /**
     * Default lease: 1 s. The paper cites DSLR's 10 ms (§3.10) for dedicated machines; on shared
     * cores the local fabric's threads are descheduled for over 100 ms at times (seen in the local
     * contract run), and a holder stalled past the lease is taken for dead. Pass
     * {@code lease-ns=10ms} for the paper's setting (the simulator keeps its promises).
     */
    public static final long DEFAULT_LEASE_NS = 1_000_000_000;
    public static final LockOption LEASE_NS = new LockOption("lease-ns", DEFAULT_LEASE_NS,
            "T_lease: holders release within it; waiters recover from crashed clients at the four waits of s3.10 (inf: no recovery)");
    public static final LockOption SCALE_POLL_NS = new LockOption("scale-poll-ns", 10_000_000,
            "a background poller per client machine and table READs the maximizer this often and scales the tree up"
                    + " (Algorithm 4) when a request reached past N (paper: 10 ms; inf: never scale, no poller)");
    public static final LockOption SCALE_FACTOR = new LockOption("scale-factor", 4,
            "growth of N per scale-up step: 4 (one level) or 16 (two levels)");
    public static final LockOption FENCING = new LockOption("fencing", 1,
            "1: strict fencing tokens from one FAA counter word per tree that every node acquisition hits;"
                    + " 0: off (the paper's protocol), tokens are 0");
    public static final LockOption SHARED_LANES = new LockOption("shared-lanes", 1,
            "reader lanes R (beyond the paper): 1 = exclusive only, shared requests granted exclusive (the paper's"
                    + " protocol); 2..64 = R lock trees (R tables), a reader locks its range in one random lane, a writer in all R");
    /** Round trips and timer overshoot on top of the recovery bound's waits. */
    static final long RECOVERY_SLACK_NS = 1_000_000;
    public static final LockOption MAX_RESTARTS = new LockOption("max-restarts", 100_000,
            "aborts and restarts one acquisition may take before giving up");

    /** A lease must leave room for round trips and timer slack. */
    public static final long MIN_LEASE_NS = 20_000;
    /** The lease must be at least this many polls, so that stuck state is seen early in it. */
    public static final int LEASE_PER_POLL = 16;

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

    /**
     * False: with the default options ({@code shared-lanes=1}, the paper's protocol) shared requests
     * are granted exclusive. See {@link #supportsShared(LockOptions)}.
     */
    @Override
    public boolean supportsShared() {
        return false;
    }

    /**
     * True with {@code shared-lanes} ≥ 2 ({@link ReaderLanes}): readers then overlap readers. The
     * default stays exclusive-only so that every exclusive use (the paper's experiments, the
     * benchmarks) runs the published protocol on one tree, unchanged.
     */
    @Override
    public boolean supportsShared(LockOptions options) {
        return options.get(SHARED_LANES) >= 2;
    }

    /**
     * With the default options: tokens come from one 64-bit FAA counter on the memory node, taken
     * once every node of the grant is held, so overlapping grants get increasing tokens (see
     * {@link CitronClient}). With {@code fencing=0} they do not: see {@link #strictFencing(LockOptions)}.
     */
    @Override
    public boolean strictFencing() {
        return FENCING.defaultValue() == 1;
    }

    /** Strict unless {@code fencing=0}, which takes no tokens (every grant's token is 0). */
    @Override
    public boolean strictFencing(LockOptions options) {
        return options.get(FENCING) == 1;
    }

    /**
     * With a finite lease {@code L}: lease unit {@code U = L + hold-wait + T_wait}. A crashed client
     * holding or queued at a node of height {@code h} blocks waiters for at most: detection at an
     * ancestor (L), a ticket reset ({@code (h + 2) U} per crashed ticket ahead), the descendant
     * check's DCnt reset ({@code h U}), a starved leaf's escalation (starve-ns, at most L/2) and
     * the clear of a crashed holder's leaf bits once unchanged for U, and slack. Per crashed
     * client: {@code L + starve + 2 H U + slack}, H the number of levels (the largest, 16, if the
     * tree may scale up).
     */
    @Override
    public FailureModel failureModel(LockOptions options) {
        long lease = options.get(LEASE_NS);
        if (lease == Long.MAX_VALUE) {
            return FailureModel.NONE;
        }
        // Scale-ups raise the height: with scaling on, bound it for the tallest tree.
        int levels = options.get(SCALE_POLL_NS) == Long.MAX_VALUE ? layout(options).levels() : CitronLayout.MAX_LEVELS;
        long tWait = options.get(T_WAIT_NS);
        long unit = lease + Math.min(options.get(HOLD_WAIT_NS), lease / 4) + tWait;
        long starve = Math.min(options.get(STARVE_NS), lease / 2);
        long bound;
        try {
            bound = Math.addExact(Math.addExact(lease + starve, Math.multiplyExact(2L * levels, unit)),
                    RECOVERY_SLACK_NS);
        } catch (ArithmeticException huge) {
            bound = Long.MAX_VALUE;
        }
        long lanes = options.get(SHARED_LANES);
        if (lanes > 1) {
            // a writer meets a crashed client's holds in every lane, one after another
            bound = bound > Long.MAX_VALUE / lanes ? Long.MAX_VALUE : bound * lanes;
        }
        return FailureModel.lease(lease, bound, "waiters reset a stuck ticket, escalate past a stuck occupier, reset"
                + " a stuck DCnt and clear a crashed holder's leaf bits");
    }

    @Override
    public List<LockOption> options() {
        return List.of(UNITS, K, M, T_WAIT_NS, DRIFT_PPM, FAST_PATH, POLL_NS, STARVE_NS, HOLD_WAIT_NS, LEASE_NS,
                SCALE_POLL_NS, SCALE_FACTOR, FENCING, MAX_RESTARTS, SHARED_LANES);
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
        // The service allocates scale-up expansions and answers configuration queries (§3.9.1);
        // a remote memory node rebuilds it from the table's name and units.
        return new TableSpec(tableName, NAME, tree.units(), tree.tableBytes()).withService(
                TableSpec.ServiceFactory.dependingOn(List.of(UNITS.name() + "=" + tree.units()),
                        CitronService.factory(tableName)));
    }

    /**
     * Opens (creating if needed) the named table on {@code endpoint}'s fabric and returns a citron
     * client; waits not given take their defaults for this fabric ({@link LockOptions#onUnlessBound}),
     * as {@link RangeLockProtocol#open} says.
     */
    @Override
    public CitronClient open(Endpoint endpoint, String tableName, LockOptions options) {
        options.validate(name(), options());
        options = options.onUnlessBound(endpoint.fabric().timing());
        return client(endpoint, endpoint.openTable(tableSpec(tableName, options)), options);
    }

    @Override
    public CitronClient client(Endpoint endpoint, Table table, LockOptions options) {
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
        long lease = options.get(LEASE_NS);
        if (lease != Long.MAX_VALUE) {
            if (lease < MIN_LEASE_NS) {
                throw new IllegalArgumentException("lease-ns must be >= " + MIN_LEASE_NS + " (or inf), got " + lease);
            }
            if (poll > lease / LEASE_PER_POLL) {
                throw new IllegalArgumentException("lease-ns (" + lease + ") must be at least " + LEASE_PER_POLL
                        + " x poll-ns (" + poll + "): stuck state must be seen early in a lease");
            }
            // A live multi-node request must give its earlier nodes up well within a lease, or a
            // waiter would take it for dead.
            holdWait = Math.min(holdWait, lease / 4);
            if (lease <= 4 * tWait) {
                throw new IllegalArgumentException("lease-ns (" + lease + ") must exceed 4 x t-wait-ns (" + tWait + ")");
            }
        }
        long scalePoll = options.get(SCALE_POLL_NS);
        if (scalePoll <= 0) {
            throw new IllegalArgumentException("scale-poll-ns must be positive (or inf), got " + scalePoll);
        }
        long factor = options.get(SCALE_FACTOR);
        if (factor != 4 && factor != 16) {
            throw new IllegalArgumentException("scale-factor must be 4 or 16, got " + factor);
        }
        long fencing = options.get(FENCING);
        if (fencing != 0 && fencing != 1) {
            throw new IllegalArgumentException("fencing must be 0 or 1, got " + fencing);
        }
        long lanes = options.get(SHARED_LANES);
        if (lanes < 1 || lanes > ReaderLanes.MAX_LANES) {
            throw new IllegalArgumentException("shared-lanes must be in [1, " + ReaderLanes.MAX_LANES + "], got " + lanes);
        }
        var params = new CitronClient.Params((int) k, (int) m, tWait, ppm * 1e-6, fast == 1, poll, starve, holdWait,
                (int) maxRestarts, lease, scalePoll, factor == 4 ? 1 : 2, fencing == 1, tuning);
        var lane0 = new CitronClient(endpoint, table, tree, params);
        if (lanes == 1) {
            return lane0;
        }
        List<CitronClient> all = new java.util.ArrayList<>();
        all.add(lane0);
        long fence = table.address() + CitronLayout.FENCE_OFFSET; // every lane's tokens from lane 0's counter
        for (int j = 1; j < lanes; j++) {
            Table t = endpoint.openTable(tableSpec(laneTableName(table.spec().name(), j), options)
                    .onMemoryNode(table.memoryNode())); // with lane 0's counter
            all.add(new CitronClient(endpoint, t, tree, params, fence));
        }
        lane0.attachLanes(new ReaderLanes(all, endpoint.random(), poll, (int) maxRestarts));
        return lane0;
    }

    /** The table of reader lane {@code lane} ≥ 1 of citron table {@code tableName} (lane 0 is the table itself). */
    public static String laneTableName(String tableName, int lane) {
        return tableName + "/citron-lane-" + lane;
    }
}
