package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.citron.CitronProfile.Phase;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * CITRON client (Gao et al., "CITRON: Distributed Range Lock Management with One-sided RDMA",
 * FAST'23 §3, Algorithms 1–4; layout in {@link CitronLayout}): range locks over [0, ∞) taken and
 * given back with one-sided verbs only.
 *
 * <p><b>Acquire [l, r)</b> (Algorithm 1). A part past N takes the spillover mutex first (ORing r
 * into the maximizer in the same round trip, {@link SpilloverMutex}), so it is first in the global
 * lock order; behind it the configuration word tells whether a scale-up has moved N meanwhile. The
 * part in [0, N) is locked on the lock tree ({@link TreeLocker}): Step 1 splits it into at most
 * {@code k} nodes, Step 2 locks them in ascending order. A request that meets a scale-up gives back
 * everything and retries on the new tree ({@link ConfigChanged}).
 *
 * <p><b>Release</b> (Algorithm 3, {@link TreeReleaser}): one batch gives back every node of the
 * grant and the spillover mutex, then pays what scale-ups carried.
 *
 * <p><b>The pieces</b>, one per part of the paper, each opening with the text it implements:
 * <ul>
 * <li>{@link TreeLocker}: Step 1 and the ascending node loop (§3.5.1, Algorithm 2 lines 4–7),
 * aborts, restarts and escalations;</li>
 * <li>{@link NodeLocker}: Step 2 on one node, phases (a)–(d) with T_wait and Inequation (1), the
 * fast path and leaf bitmaps (§3.5.2–§3.5.5, §3.8, Algorithm 2 lines 8–37);</li>
 * <li>{@link NodeWaits}: the waits of Algorithm 2 and their lease recovery (§3.10, lines 11, 18,
 * 22, 36);</li>
 * <li>{@link HoldWait}: deadlock freedom across the nodes of one request (not in the paper);</li>
 * <li>{@link TreeReleaser}: Algorithm 3, release batches, late releases, carried counts;</li>
 * <li>{@link TreeScaler}: scale-up (§3.9.1, Algorithm 4) and scale-down (§3.9.2);</li>
 * <li>{@link TreeConfig}: the tree configuration this client uses and the metadata query;</li>
 * <li>{@link FencingCounter}: the grants' fencing tokens (not in the paper);</li>
 * <li>{@link SpilloverMutex} for [N, ∞) and {@link CitronScalePoller}, the background poller.</li>
 * </ul>
 * They share one {@link ClientContext} (queue pair, clock, parameters, configuration, profile).
 *
 * <p><b>Shared ranges</b> (beyond the paper): with {@code shared-lanes} R ≥ 2 this client is lane
 * 0 of R independent trees ({@link ReaderLanes}): a reader locks its range in one lane, a writer in
 * all R. With R = 1 (the default) grants are exclusive, as in the paper.
 *
 * <p>{@link #stats()} reports retries and aborts, the counts of {@link CitronCounters} and the
 * phase profile of {@link CitronProfile}; {@link #units()} and {@link #scaleDown} are for callers
 * that opened the client through {@link CitronProtocol} and know it runs CITRON.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
public final class CitronClient implements RangeLockClient {
    /** Tunables, validated by {@link CitronProtocol}. */
    record Params(int k, int m, long tWaitNs, double drift, boolean fastPath, long pollNs, long starveNs,
                  long holdWaitNs, int maxRestarts, long leaseNs, long scalePollNs, int scaleLevels, boolean fencing,
                  CitronTuning tuning) {
        boolean leases() {
            return leaseNs != Long.MAX_VALUE;
        }

        /** These parameters with another maximizer poll period. */
        Params withScalePollNs(long ns) {
            return new Params(k, m, tWaitNs, drift, fastPath, pollNs, starveNs, holdWaitNs, maxRestarts, leaseNs, ns,
                    scaleLevels, fencing, tuning);
        }

    }

    /** A CITRON grant: the tree nodes held and whether the spillover mutex is held. */
    record CitronGrant(long start, long end, long fencingToken, List<HeldNode> nodes, boolean spillover)
            implements RangeGrant {
        @Override
        public Mode mode() {
            return Mode.EXCLUSIVE;
        }
    }

    private final ClientContext ctx;
    private final Table table;
    private final CitronLayout baseTree;
    private final TreeConfig config;
    private final long maximizerAddress;
    private final FencingCounter fencing;
    private final SpilloverMutex spillover;
    private final TreeReleaser releaser;
    private final HoldWait holdWait;
    private final NodeWaits waits;
    private final NodeLocker nodes;
    private final TreeLocker locker;
    private final TreeScaler scaler;
    /** The background maximizer poller (null with scale-poll-ns = inf). */
    private final CitronScalePoller poller;
    private final CitronTuning.Participant tuning;
    private boolean closed;
    /** Reader lanes ({@code shared-lanes} ≥ 2, this client is lane 0); null: exclusive only. */
    private ReaderLanes lanes;
    /** Grants not yet released, by identity (a grant released twice would corrupt counters). */
    private final Set<CitronGrant> outstanding = Collections.newSetFromMap(new IdentityHashMap<>());

    CitronClient(Endpoint endpoint, Table table, CitronLayout tree, Params params) {
        this(endpoint, table, tree, params, table.address() + CitronLayout.FENCE_OFFSET);
    }

    /**
     * A client whose grants take their fencing tokens from the counter word at {@code fenceAddress}
     * on the table's memory node: its own table's, or (a reader lane) lane 0's.
     */
    CitronClient(Endpoint endpoint, Table table, CitronLayout tree, Params params, long fenceAddress) {
        QueuePair qp = endpoint.queuePair(table.memoryNode());
        Clock clock = endpoint.clock();
        RandomGenerator random = endpoint.random();
        this.table = table;
        this.baseTree = tree;
        this.maximizerAddress = table.at(CitronLayout.MAXIMIZER_OFFSET);
        this.config = new TreeConfig(qp, table, tree);
        this.tuning = params.tuning() == null ? null : params.tuning().join();
        this.ctx = new ClientContext(qp, clock, random, params, config);
        this.fencing = new FencingCounter(qp, fenceAddress, params.fencing());
        this.spillover = new SpilloverMutex(qp, clock, table.at(CitronLayout.SPILLOVER_OFFSET),
                table.at(CitronLayout.MAXIMIZER_OFFSET), params.pollNs(), spilloverStallNs(params));
        this.releaser = new TreeReleaser(ctx);
        this.holdWait = new HoldWait(ctx, releaser);
        this.waits = new NodeWaits(ctx, holdWait);
        this.nodes = new NodeLocker(ctx, waits, releaser, holdWait, tuning, fencing);
        this.locker = new TreeLocker(ctx, nodes, releaser, holdWait);
        this.scaler = new TreeScaler(ctx, table, spillover, locker, releaser, maximizerAddress);
        this.poller = params.scalePollNs() == Long.MAX_VALUE ? null
                : CitronScalePoller.join(this, endpoint, table, tree, params.withScalePollNs(Long.MAX_VALUE),
                        params.scalePollNs());
    }

    /** Makes this client lane 0 of {@code lanes} (by {@link CitronProtocol#client}, once). */
    void attachLanes(ReaderLanes lanes) {
        this.lanes = lanes;
    }

    /** This client's clock (reader lanes time their hold-wait on it). */
    Clock clock() {
        return ctx.clock;
    }

    /** Sets, or clears with null, the earlier lanes a reader-lane writer holds while this lane waits. */
    void outer(OuterHold outer) {
        ctx.outer = outer;
        spillover.outer = outer;
    }

    /** This client's table. */
    Table table() {
        return table;
    }

    /** This client's queue pair to its table's memory node. */
    QueuePair queuePair() {
        return ctx.qp;
    }

    /** The hold-wait bound this client's parameters give (see {@link HoldWait}). */
    long holdWaitNs() {
        return ctx.p.holdWaitNs();
    }

    /**
     * A live spillover holder keeps nX unchanged while it locks its tree part (at most the tree's
     * recovery time, 2H lease units) and holds the range (a lease).
     */
    private static long spilloverStallNs(Params p) {
        if (!p.leases()) {
            return Long.MAX_VALUE;
        }
        long unit = p.leaseNs() + p.holdWaitNs() + p.tWaitNs();
        return (2L * CitronLayout.MAX_LEVELS + 1) * unit; // the tree may grow to the largest height
    }

    // ------------------------------------------------------------------ Algorithm 1 and Algorithm 3

    /**
     * Algorithm 1. With {@code shared-lanes=1} (the default, the paper's protocol) every grant is
     * exclusive, whatever {@code mode} asks; with reader lanes a shared request locks its range in
     * one lane and an exclusive one in every lane ({@link ReaderLanes}).
     */
    @Override
    public RangeGrant acquire(long start, long end, Mode mode) {
        if (start < 0 || end <= start) {
            throw new IllegalArgumentException("range [" + start + ", " + end + ") is not a non-empty part of [0, inf)");
        }
        if (lanes != null) {
            return lanes.acquire(start, end, mode);
        }
        return acquireTree(start, end);
    }

    /**
     * This tree's part of an acquisition (lane 0's and every other lane's, with reader lanes):
     * the exclusive grant of [start, end) on this client's table alone.
     */
    CitronGrant acquireTree(long start, long end) {
        ctx.profile.acquisitions++;
        ctx.enter(Phase.OTHER);
        try {
            while (true) {
                try {
                    return acquireIn(start, end);
                } catch (ConfigChanged e) {
                    // Everything taken was given back: retry on the new tree. Not published yet (the
                    // scaler is between its marks and its publication, two round trips): wait a poll.
                    if (!config.refresh()) {
                        ctx.clock.sleepNanos(Math.max(1, ctx.p.pollNs()));
                    }
                }
            }
        } finally {
            ctx.profile.enter(null, ctx.clock.nanoTime());
        }
    }

    /** Algorithm 1 on the configuration in use: the spillover mutex for [N, end), the tree for [start, N). */
    private CitronGrant acquireIn(long start, long end) {
        long n = config.layout().units();
        boolean spill = end > n;
        if (spill) {
            // A scale-up holds the spillover mutex while it publishes: once we hold it, the
            // configuration word tells whether [N, end) still lies past the tree.
            long word = spillover.acquire(end, config.wordAddress());
            if (config.refresh(word)) {
                releaseSpillover();
                throw new ConfigChanged();
            }
        }
        try {
            List<HeldNode> held;
            long token;
            if (start < n) {
                Attempt done = locker.lock(start, Math.min(end, n));
                held = done.held;
                token = done.token;
            } else {
                held = List.of();
                token = fencing.take(); // the spillover ticket wraps: the global counter does not
            }
            var g = new CitronGrant(start, end, token, List.copyOf(held), spill);
            outstanding.add(g);
            return g;
        } catch (RuntimeException e) {
            if (spill) {
                releaseSpillover();
            }
            throw e;
        }
    }

    private void releaseSpillover() {
        Batch b = new Batch();
        spillover.release(b);
        ctx.qp.execute(b);
    }

    @Override
    public void release(RangeGrant grant) {
        if (lanes != null) {
            lanes.release(grant);
            return;
        }
        releaseTree(grant);
    }

    /** Algorithm 3 for a grant of this tree alone ({@link #acquireTree}). */
    void releaseTree(RangeGrant grant) {
        if (!(grant instanceof CitronGrant g) || !outstanding.remove(g)) {
            // A second release would add to TCnt/DCnt again and corrupt the tree for everyone.
            throw new IllegalArgumentException("not a grant this citron client holds: " + grant);
        }
        Batch b = new Batch();
        List<TreeReleaser.Owed> owed = new ArrayList<>();
        for (HeldNode h : g.nodes()) {
            releaser.add(b, h, true, owed);
        }
        if (g.spillover()) {
            spillover.release(b);
        }
        releaser.post(b, owed);
    }

    /** Retries and aborts (no resets), the counts of {@link CitronCounters} and the {@link CitronProfile}. */
    @Override
    public LockStats stats() {
        return lanes == null ? treeStats() : lanes.stats();
    }

    /** What this tree's client counted (with reader lanes: this lane's). */
    LockStats treeStats() {
        long[] r = recoveries();
        LockStats.Builder b = LockStats.builder().counter(LockStats.RETRIES, nodes.retries())
                .counter(LockStats.ABORTS, locker.aborts()).counter(LockStats.RESETS, 0);
        new CitronCounters(timingAborts(), yields(), escalations(), r[0], r[1], r[2], r[3]).addTo(b);
        return ctx.profile.snapshot().addTo(b).build();
    }

    @Override
    public void close() {
        if (lanes != null) {
            lanes.closeOthers();
        }
        if (poller != null && !closed) {
            poller.leave();
        }
        closed = true;
        if (tuning != null) {
            ctx.p.tuning().leave(tuning);
        }
    }

    // ------------------------------------------------------------------ scaling (§3.9)

    /** Algorithm 4 ({@link TreeScaler#scaleUp}): what the background poller runs. */
    void scaleUp() {
        scaleUp(false);
    }

    /**
     * {@link #scaleUp()}; with {@code stopAfterMarks} (tests only) it stops right after its marks
     * and keeps the spillover mutex, as a scaler that crashes there.
     */
    void scaleUp(boolean stopAfterMarks) {
        scaler.scaleUp(stopAfterMarks);
    }

    /**
     * Blocking scale-down (§3.9.2, {@link TreeScaler#scaleDown}) to an earlier size {@code units}
     * of the tree. The caller must hold no grant of this client.
     *
     * @throws IllegalArgumentException if {@code units} is not the size of an earlier generation
     *                                  of the current tree
     * @throws IllegalStateException    if this client holds a grant
     */
    public void scaleDown(long units) {
        if (lanes != null) {
            lanes.scaleDown(units);
            return;
        }
        scaleDownTree(units);
    }

    /** {@link #scaleDown} of this tree alone. */
    void scaleDownTree(long units) {
        if (!outstanding.isEmpty()) {
            throw new IllegalStateException("scale-down drains the tree: release this client's grants first");
        }
        scaler.scaleDown(units);
    }

    /** The lanes' clients, lane 0 (this) first; just this one with {@code shared-lanes=1}. */
    List<CitronClient> laneClients() {
        return lanes == null ? List.of(this) : lanes.clients();
    }

    /** A shared grant of [start, end) in reader lane {@code lane} (tests pick the lane; needs shared-lanes ≥ 2). */
    RangeGrant acquireSharedIn(long start, long end, int lane) {
        if (lanes == null) {
            throw new IllegalStateException("citron opened without reader lanes (shared-lanes=1)");
        }
        return lanes.acquireShared(start, end, lane);
    }

    /** Whether {@code g} is a grant of this tree's client not yet released. */
    boolean owns(CitronGrant g) {
        return outstanding.contains(g);
    }

    /** N after READing the configuration word (one round trip): the tree's size now, not as last seen. */
    long currentUnits() {
        config.refresh();
        return units();
    }

    /** Whether this tree's client holds a grant. */
    boolean holdsGrants() {
        return !outstanding.isEmpty();
    }

    /**
     * The poller's check (one round trip): READs the maximizer and the configuration word; installs
     * a newer configuration; returns whether a request reached past the tree.
     */
    boolean scaleUpWanted() {
        return scaler.scaleUpWanted();
    }

    /**
     * The nodes scale-up {@code to.generation()} added above the old root: where it carries the
     * counters of the old top levels ({@link TreeScaler#carryTargets}).
     */
    static long[] carryTargets(CitronTree to) {
        return TreeScaler.carryTargets(to);
    }

    /** The ancestors {@code x} notifies in step (d), lowest first ({@link NodeLocker#notifySet}). */
    long[] notifySet(long x) {
        return nodes.notifySet(x);
    }

    long[] notifySet(long x, int m) {
        return nodes.notifySet(x, m);
    }

    // ------------------------------------------------------------------ what the client counted

    /** Where this client's acquisitions spent their time so far. */
    CitronProfile profile() {
        return ctx.profile.snapshot();
    }

    /**
     * What the memory word at {@code address} is in this client's table: a node of the tree as
     * first created (index, level, units), a header word, or empty if it is neither (an expansion
     * table's node, another table).
     */
    @Override
    public Optional<String> describeAddress(long address) {
        return lanes == null ? describeTreeAddress(address) : lanes.describeAddress(address);
    }

    /** {@link #describeAddress} in this tree's table alone. */
    Optional<String> describeTreeAddress(long address) {
        long base = table.at(CitronLayout.TREE_OFFSET);
        if (address >= base && address < base + baseTree.nodes() * CitronLayout.WORD_BYTES) {
            long x = (address - base) / CitronLayout.WORD_BYTES + CitronLayout.ROOT;
            return Optional.of("node " + x + " (level " + baseTree.level(x) + (baseTree.isLeaf(x) ? ", leaf" : "")
                    + ", units [" + baseTree.rangeStart(x) + ", " + baseTree.rangeEnd(x) + "))");
        }
        if (address == maximizerAddress) {
            return Optional.of("maximizer");
        }
        if (address == config.wordAddress()) {
            return Optional.of("configuration word");
        }
        if (address == fencing.address()) {
            return Optional.of("fencing counter");
        }
        if (address == table.at(CitronLayout.SPILLOVER_OFFSET)) {
            return Optional.of("spillover mutex");
        }
        return Optional.empty();
    }

    /** Scale-ups this client completed after another scaler's crash (see {@link TreeScaler#INTERRUPTED_MARGIN}). */
    long interruptedScaleUps() {
        return scaler.interruptedScaleUps() + (poller != null && poller.startedBy(this) ? poller.interruptedScaleUps() : 0);
    }

    /** Virtual or real nanoseconds the last scale-up of this client took, from its allocation rpc to publication. */
    long lastScaleUpNs() {
        return scaler.lastScaleUpNs();
    }

    /** Scale-downs this client performed. */
    long scaleDowns() {
        return scaler.scaleDowns();
    }

    /** Scale-ups this client performed, and those of the background poller it started. */
    long scaleUps() {
        return scaler.scaleUps() + (poller != null && poller.startedBy(this) ? poller.scaleUps() : 0);
    }

    /** This client's background poller (null if scale-poll-ns = inf). */
    CitronScalePoller poller() {
        return poller;
    }

    /** DCnt + 1 this client paid on new ancestors for counts that scale-ups carried. */
    long carriedReleases() {
        return releaser.carriedReleases();
    }

    /** Configurations this client fetched after a scale-up. */
    long refetches() {
        return config.refetches();
    }

    /** Units the client's current tree covers now (N; grows when it takes part in or sees a scale-up). */
    public long units() {
        return config.layout().units();
    }

    /** Lease recoveries: ticket resets (tree and spillover), escalations to stuck ancestors, DCnt resets, stale leaves cleared. */
    long[] recoveries() {
        return new long[] {waits.ticketResets() + spillover.resets(), nodes.ancestorEscalations(),
                waits.descendantResets(), waits.leafClears()};
    }

    /** Notifications released too late to be counted (see {@link TreeReleaser}). */
    long staleNotifications() {
        return releaser.staleNotifications();
    }

    /** Leaves given up for their parent's bakery lock (starvation avoidance). */
    long escalations() {
        return nodes.escalations();
    }

    /** Acquisitions that released their earlier nodes to break a possible deadlock. */
    long yields() {
        return holdWait.yields();
    }

    /** Node acquisitions aborted because a notification may have come too late (inequation 1). */
    long timingAborts() {
        return nodes.timingAborts();
    }
}
