package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.Verb;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.citron.CitronProfile.Phase;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * CITRON client (Gao et al., "CITRON: Distributed Range Lock Management with One-sided RDMA",
 * FAST'23 §3, Algorithms 1–3; layout in {@link CitronLayout}).
 *
 * <p><b>Acquire [l, r)</b>. A part past N takes the spillover mutex first (ORing r into the
 * maximizer in the same round trip), so it is first in the global lock order. The part in [0, N)
 * is split locally into at most {@code k} nodes with the least covered-but-unrequested area
 * ({@link RangeSplitter}), locked one by one in ascending order. Per node, until ACQUIRED:
 * <ol type="a">
 * <li>internal node: MFAA {TMax + 1} takes a bakery ticket; READ until TCnt reaches it;</li>
 * <li>READ every ancestor (one batch, posted at {@code t1}); abort if the root has Exp; if some
 * ancestor is occupied, READ the lowest occupied one until its Occ clears, then read them all
 * again (a fresh {@code t1} for every ancestor);</li>
 * <li>leaf: MCAS the requested bits (failure: back to (b); failing for {@code starve-ns}: give
 * the leaf up for its parent's bakery lock); internal: MFAA {Occ + 1} at {@code t0};</li>
 * <li>MFAA {DMax + 1} on the parent and every m-th ancestor above it (levels above m − 1 are
 * replaced by the level-(m − 1) ancestor), done at {@code t2};
 * abort if {@code t2 − t1 > (1 − δ) T_wait / (1 + δ)} (the occupier above might have missed the
 * notification) or a DMax + 1 or the Occ + 1 returned a newer generation's Exp mark (a scale-up
 * read the node first; see Scaling); an internal node
 * sleeps until {@code t0 + T_wait} and READs itself and its internal descendants within m levels
 * (one READ per level: they are contiguous) until each has DCnt = DMax.</li>
 * </ol>
 * An abort releases what the node took and retries it after a randomized backoff (so that an
 * occupier whose notifications keep coming late does not hold the requests below it off for
 * good: T_wait must exceed the round trips from t1 to t2, two on the fast path and three off it,
 * or every attempt aborts). <b>Fast path</b> (§3.8, option): (a)+(b)
 * and (c)+(d) are posted as one batch each (a failed leaf MCAS rolls its notifications back with
 * DCnt + 1), and a node whose children are leaves also MCASes all 256 child bits from 0: if all
 * four succeed it skips the wait. Best case two round trips.
 *
 * <p><b>Release</b> (Algorithm 3), one batch: leaf MCAS clears its bits; internal {Occ − 1,
 * TCnt + 1} as a masked CAS on our own turn (TCnt = our ticket, Occ set; the paper's MFAA would,
 * after a takeover, vacate the new turn holder's) and clears the child bits it took; DCnt + 1 on
 * every notified ancestor, unless the notification is old enough to have been reset (below);
 * spillover MFAA {nX + 1}.
 *
 * <p><b>Deadlock freedom</b> (not discussed by the paper). Nodes are taken in ascending order,
 * but an occupier waits for holders below it (priority to smaller ranges), so a request holding
 * an earlier node below an occupied ancestor of its next node would wait for an occupier that
 * waits for it. Such a request releases everything it holds at once (when the occupied ancestor
 * covers a node it holds) or once it has held others for {@code hold-wait-ns} (a chain through
 * bakery tickets; counted from the first node held, across aborts and retries of the node under
 * way, and checked again when that node is acquired); it finishes the node under way (a ticket
 * cannot be handed back before its turn), releases it and restarts. A request that holds nothing
 * waits for nobody who waits for it.
 *
 * <p><b>(m, T_wait) at run time</b>: with a {@link CitronTuning}, each node acquisition takes its
 * parameters from it when it begins (two-phase change: min/max while a change is proposed).
 *
 * <p><b>Lease recovery</b> (§3.10, option {@code lease-ns} = L; lease unit U = L + hold-wait +
 * T_wait). Detection is lazy, at the waits: (line 11) a ticket waiter that sees TCnt and Occ
 * unchanged for Δ·(h + 2)·U (Δ tickets ahead, h the node's height) sets TCnt to its ticket and
 * clears Occ with one masked CAS against what it saw; (line 18) a request that sees an occupied
 * ancestor's TCnt and Occ unchanged for L locks that ancestor instead (always safe: it queues for
 * a ticket); (line 36) an occupier that sees a descendant's DCnt/DMax unchanged for h·U sets DCnt =
 * DMax (masked CAS); (line 22) a leaf whose MCAS keeps failing for min(starve-ns, L/2) is given up
 * for its parent, which, once held after a recovery or escalation, READs its four leaf children
 * and zeroes any whose word stays unchanged for U (no live client holds their bits then; a live
 * request that set bits before the parent was occupied and notifies too late clears them itself
 * within U, and zeroing them earlier would let its late release clear a later holder's). The spillover
 * mutex resets a stuck nX the same way. Our bounds are the paper's (T_lease, H·T_lease) widened to
 * cover what a <em>live</em> client may legitimately spend: an occupier waits for its descendants
 * before its hold begins, and a multi-node request holds earlier nodes up to hold-wait (at most
 * L/4); an internal node's turn holder that waits 1.5 L in step (b) hands its turn on (masked CAS)
 * so that nobody mistakes it for dead. A waiter whose ticket TCnt has passed (a holder paused past
 * its lease vacated after a takeover) takes a new ticket. Holders paused past their lease break the
 * protocol's assumption; fencing tokens are the guard. Their late releases must not break it for
 * anyone else (issue 6: a DCnt + 1 after a DCnt reset left DCnt above DMax, and every later check
 * passed one request early): a vacate is a CAS on the holder's own turn, and a release more than
 * height(y) lease units (less T_wait, drift-adjusted) after notifying y skips y's DCnt + 1 — if
 * nobody had reset it, DCnt stays one behind until an occupier does (a delay, not an overlap).
 * Assumption left: a release posted before that bound lands within T_wait.
 *
 * <p><b>Fencing tokens</b> (option {@code fencing}, on by default; off, as in the paper, every
 * token is 0): every node acquisition posts one FAA on a 64-bit counter in the table
 * header, in the batch that completes it (behind the leaf MCAS or the four child MCASes, which it
 * cannot overtake) or, after a descendant check, in a round trip of its own (a FAA batched behind
 * READs could overtake them). The grant's token is that of the node acquired last, so it is taken
 * while the grant holds every node, after every overlapping earlier grant released: overlapping
 * grants get increasing tokens. Cost: one 8-byte atomic per node on one shared word (no extra
 * round trip on the fast paths; one on an internal node's slow path, which already waits T_wait).
 * No local counter works: leaves are bare bitmaps and overlapping grants may use disjoint nodes.
 *
 * <p><b>Scaling</b> (§3.9, {@link CitronTree}), as Algorithm 4 has it. A request past N ORs its
 * right end into the maximizer. A background poller per client machine and table
 * ({@link CitronScalePoller}, option {@code scale-poll-ns}) READs it and runs {@link #scaleUp}:
 * spillover mutex; an ALLOCATE rpc to the table's {@link CitronService} for the zeroed expansion;
 * one batch that writes the new generation into the Exp mark of every internal node of the old
 * tree's top m levels (root first) and returns their words; one batch that carries their
 * ΣDCnt and Σ(DMax + Occ) into the nodes added above the old root, publishes the configuration
 * word, clears the maximizer and releases the mutex. No holder is waited for. Requests meet the
 * scale-up three ways: step (b) READs a marked root (its tree is a subtree now) and retries on the
 * new tree; a DMax + 1 or Occ + 1 that returns a mark above the request's generation (line 33: the
 * scale-up read that node first, so the count was not carried) aborts and retries; anything else
 * was carried and proceeds. A release (or abort) that pays DCnt + 1 on a node, or vacates one,
 * whose returned mark shows that scale-ups carried it, pays DCnt + 1 on their new nodes too
 * (Algorithm 3 lines 10–12, {@link #payCarried}; the configuration of a scale-up not yet
 * published comes from the service). A grant releases in the configuration it was taken in (old
 * nodes keep their place). The Exp flag is a 3-bit mark (the generation, at most 7 scale-ups):
 * with the paper's 1-bit flag set by MFAA, a node in the top m levels of two trees in a row (any
 * scale-up by fewer than m levels) has its flag flipped back by the second scale-up, and a
 * release cannot tell whether its count was carried. The carry goes into every node added above
 * the old root, not the paper's ancestors m, 2m, … levels up (for a step of fewer than m levels
 * there are none, and the old root's occupier, who notifies nobody, would be invisible to an
 * occupier of the new root). A release follows the marks assuming the marked levels (the largest
 * m in use) do not change between scale-ups: with a {@link CitronTuning}, change m only while the
 * tree does not scale. {@link #scaleDown} stays blocking: it drains
 * the tree by locking its root, clears the kept tree's marks, publishes and retires the old root.
 * A scaler that crashes between its marks and its publication leaves a marked root: requests
 * retry until a poller takes the spillover mutex over (lease) and redoes the scale-up with a
 * large DMax margin ({@link #INTERRUPTED_MARGIN}): occupiers of the new top nodes wait for a DCnt
 * reset (h lease units), never pass early.
 *
 * <p><b>Not implemented</b>: shared (reader) range locks; grants are exclusive.
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

    /**
     * A tree node held by a grant: its leaf bits (0 for an internal node), whom it notified and
     * when ({@code notifiedAt}, this client's clock, once the notifications had landed), and for an
     * internal node the ticket whose turn it holds (-1 for a leaf). {@code occBase} (−1 for a leaf)
     * and {@code notifiedBase[i]}: the generation after which scale-ups carry the node's Occ and
     * notification i (the Exp mark the verb returned, at least {@code cfg}'s generation); a grant
     * has them all equal to its generation ({@link #payCarried}).
     */
    record Held(long node, long leafMask, long[] notified, boolean childrenLocked, CitronTree cfg, int ticket,
                long notifiedAt, int occBase, int[] notifiedBase) {
        @Override
        public String toString() {
            return "node " + node + (leafMask != 0 ? " bits " + Long.toHexString(leafMask) : "")
                    + " notified " + Arrays.toString(notified) + (childrenLocked ? " +256 leaf bits" : "");
        }
    }

    /** A CITRON grant: the tree nodes held and whether the spillover mutex is held. */
    record CitronGrant(long start, long end, long fencingToken, List<Held> nodes, boolean spillover)
            implements RangeGrant {
        @Override
        public Mode mode() {
            return Mode.EXCLUSIVE;
        }
    }

    private enum Outcome { ACQUIRED, ABORTED, ESCALATE }

    /** How a ticket wait ended: our turn came, we took a stuck turn over, or TCnt passed our ticket. */
    private enum Turn { SERVED, RESET, SKIPPED }

    /** How a wait for an occupied ancestor ended. */
    private enum Vacated { VACATED, ANCESTOR_STUCK, TURN_TOO_LONG }

    /**
     * Backoff after an abort or restart grows to at most poll-ns × 2^this (512 µs at 1 µs). Every
     * aborted attempt still costs two atomics on the hottest notified ancestor (the level m − 1
     * stand-in under Zipf borders); with a 64 µs cap, 192 simulated clients kept that word's queue
     * above T_wait and nearly every attempt aborted for good (a congestion collapse, see
     * citron-fig12); from 2^9 the retries thin out enough for grants to get through.
     */
    static final int MAX_BACKOFF_DOUBLINGS = 9;

    /** One acquisition's tree part: what it holds so far and whether it gave that up. */
    private static final class Attempt {
        final List<Held> held = new ArrayList<>();
        boolean yielded;
        /**
         * When the earliest node in {@link #held} was acquired. A live request keeps earlier nodes
         * at most hold-wait-ns in all (the lease recoveries of others count on it), however many
         * times the node under way aborts and retries (issue 6).
         */
        long heldSince;
        Held acquired;
        /** Fencing token taken by the last node acquired (0: none yet). */
        long token;
        /** Where an ESCALATE outcome goes: the parent (leaf starvation) or a stuck ancestor. */
        long escalateTo;
        /** The node under way was reached by escalation or a ticket reset: stale leaf bits may remain. */
        boolean recovering;
    }

    private final QueuePair qp;
    private final Clock clock;
    private final RandomGenerator random;
    private final Table table;
    /** The tree configuration this client uses (refreshed when it meets Exp or a new generation). */
    private CitronTree cur;
    /** {@code cur.layout()}: the index arithmetic of the current tree. */
    private CitronLayout tree;
    private RangeSplitter splitter;
    private final Endpoint endpoint;
    private final CitronLayout baseTree;
    private final long configAddress;
    private final long maximizerAddress;
    /** Configurations newer than ours fetched from the service while following carries (by generation). */
    private final Map<Integer, CitronTree> lookedUp = new HashMap<>();
    /** The background maximizer poller (null with scale-poll-ns = inf). */
    private final CitronScalePoller poller;
    private long lastScaleUpNs;
    /** Scale-ups this client completed for a scaler that died between its marks and its publication. */
    private long interruptedScaleUps;
    private boolean closed;
    /** DCnt + 1 paid on new ancestors for counts a scale-up carried ({@link #payCarried}). */
    private long carriedReleases;
    /**
     * The last word of the node under way seen in its ticket wait: for the root, whose Exp mark it
     * shows (a root with a mark heads a tree that was scaled up).
     */
    private long turnWord;
    private long scaleUps;
    private long scaleDowns;
    private long refetches;
    private final SpilloverMutex spillover;
    private final Params p;
    private final CitronTuning.Participant tuning;
    /** The parameters of the node acquisition under way. */
    private CitronTuning.Effective eff;
    /** Grants not yet released, by identity (a grant released twice would corrupt counters). */
    private final Set<CitronGrant> outstanding = Collections.newSetFromMap(new IdentityHashMap<>());
    private long retries;
    private long aborts;
    private long timingAborts;
    private long escalations;
    private long yields;
    private long ticketResets;
    private long ancestorEscalations;
    private long descendantResets;
    private long leafClears;
    /** Releases that skipped a DCnt + 1 older than a reset of it could be ({@link #mayHaveBeenReset}). */
    private long staleNotifications;
    private final long fenceAddress;
    /** Where acquisitions spend their time ({@link CitronProfile}). */
    private final CitronProfile.Recorder profile = new CitronProfile.Recorder();

    CitronClient(Endpoint endpoint, Table table, CitronLayout tree, Params params) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.clock = endpoint.clock();
        this.random = endpoint.random();
        this.table = table;
        this.endpoint = endpoint;
        this.baseTree = tree;
        this.configAddress = table.at(CitronLayout.CONFIG_OFFSET);
        this.maximizerAddress = table.at(CitronLayout.MAXIMIZER_OFFSET);
        this.p = params;
        install(new CitronTree(new int[] {tree.levels()}, new long[] {table.at(CitronLayout.TREE_OFFSET)}));
        this.tuning = params.tuning() == null ? null : params.tuning().join();
        this.eff = new CitronTuning.Effective(params.m(), params.m(), params.tWaitNs(), params.tWaitNs());
        this.fenceAddress = table.address() + CitronLayout.FENCE_OFFSET;
        this.spillover = new SpilloverMutex(qp, clock, table.at(CitronLayout.SPILLOVER_OFFSET),
                table.at(CitronLayout.MAXIMIZER_OFFSET), params.pollNs(), spilloverStallNs(params));
        this.poller = params.scalePollNs() == Long.MAX_VALUE ? null
                : CitronScalePoller.join(this, endpoint, table, tree, params.withScalePollNs(Long.MAX_VALUE),
                        params.scalePollNs());
    }

    /** Thrown where a request meets a scale-up (Exp on its root, or a newer configuration). */
    private static final class ConfigChanged extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ConfigChanged() {
            super("citron tree scaled up", null, false, false);
        }
    }

    private void install(CitronTree t) {
        lookedUp.clear();
        cur = t;
        tree = t.layout();
        splitter = new RangeSplitter(tree);
    }

    /** READs the configuration word; installs it if newer. Returns whether it was newer. */
    private boolean refreshConfig() {
        return refreshConfig(qp.read8(configAddress));
    }

    private boolean refreshConfig(long word) {
        if (word == cur.word()) {
            return false;
        }
        int[] levels = CitronTree.decode(word, baseTree.levels());
        CitronTree t;
        if (levels.length == 1) {
            t = new CitronTree(levels, new long[] {table.at(CitronLayout.TREE_OFFSET)});
        } else {
            // The metadata query (§3.9.1): the expansions' addresses come from the table's service.
            t = CitronService.decodeConfig(qp.rpc(table.service(), CitronService.lookupRequest(levels.length - 1)));
            if (!Arrays.equals(t.levels(), levels)) {
                throw new IllegalStateException("citron table " + table.spec().name() + ": the configuration word says "
                        + Arrays.toString(levels) + ", its service " + Arrays.toString(t.levels()));
            }
        }
        install(t);
        refetches++;
        return true;
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

    @Override
    public RangeGrant acquire(long start, long end, Mode mode) {
        if (start < 0 || end <= start) {
            throw new IllegalArgumentException("range [" + start + ", " + end + ") is not a non-empty part of [0, inf)");
        }
        profile.acquisitions++;
        profile.enter(Phase.OTHER, clock.nanoTime());
        try {
            while (true) {
                try {
                    return acquireIn(start, end);
                } catch (ConfigChanged e) {
                    // Everything taken was given back: retry on the new tree. Not published yet (the
                    // scaler is between its marks and its publication, two round trips): wait a poll.
                    if (!refreshConfig()) {
                        clock.sleepNanos(Math.max(1, p.pollNs()));
                    }
                }
            }
        } finally {
            profile.enter(null, clock.nanoTime());
        }
    }

    /** Where this client's acquisitions spent their time so far. */
    CitronProfile profile() {
        return profile.snapshot();
    }

    /**
     * What the memory word at {@code address} is in this client's table: a node of the tree as
     * first created (index, level, units), a header word, or empty if it is neither (an expansion
     * table's node, another table).
     */
    @Override
    public Optional<String> describeAddress(long address) {
        long base = table.at(CitronLayout.TREE_OFFSET);
        if (address >= base && address < base + baseTree.nodes() * CitronLayout.WORD_BYTES) {
            long x = (address - base) / CitronLayout.WORD_BYTES + CitronLayout.ROOT;
            return Optional.of("node " + x + " (level " + baseTree.level(x) + (baseTree.isLeaf(x) ? ", leaf" : "")
                    + ", units [" + baseTree.rangeStart(x) + ", " + baseTree.rangeEnd(x) + "))");
        }
        if (address == maximizerAddress) {
            return Optional.of("maximizer");
        }
        if (address == configAddress) {
            return Optional.of("configuration word");
        }
        if (address == fenceAddress) {
            return Optional.of("fencing counter");
        }
        if (address == table.at(CitronLayout.SPILLOVER_OFFSET)) {
            return Optional.of("spillover mutex");
        }
        return Optional.empty();
    }

    private void enter(Phase phase) {
        profile.enter(phase, clock.nanoTime());
    }

    private RangeGrant acquireIn(long start, long end) {
        long n = tree.units();
        boolean spill = end > n;
        if (spill) {
            // A scale-up holds the spillover mutex while it publishes: once we hold it, the
            // configuration word tells whether [N, end) still lies past the tree.
            long config = spillover.acquire(end, configAddress);
            if (refreshConfig(config)) {
                Batch b = new Batch();
                spillover.release(b);
                qp.execute(b);
                throw new ConfigChanged();
            }
        }
        try {
            List<Held> nodes;
            long token;
            if (start < n) {
                Attempt done = lockTree(start, Math.min(end, n));
                nodes = done.held;
                token = done.token;
            } else {
                nodes = List.of();
                token = takeToken(); // the spillover ticket wraps: the global counter does not
            }
            var g = new CitronGrant(start, end, token, List.copyOf(nodes), spill);
            outstanding.add(g);
            return g;
        } catch (RuntimeException e) {
            if (spill) {
                Batch b = new Batch();
                spillover.release(b);
                qp.execute(b);
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ scale-up (§3.9.1)

    /**
     * Algorithm 4. Takes the spillover mutex (one scaler at a time; requests past N wait behind
     * it), READs the maximizer again (someone may have scaled), then:
     * <ol>
     * <li>line 3: an ALLOCATE rpc to the table's {@link CitronService}, which registers a fresh
     * zeroed region for the new levels (the old tree stays in place as the new tree's leftmost
     * subtree) and records the configuration it completes;</li>
     * <li>lines 4–5: one batch of masked CASes (compare mask 0: a plain set) writes the new
     * generation into the Exp mark of every internal node of the old tree's top levels (the
     * largest m in use), in index order, root first; each returns the node's word v as the mark
     * landed;</li>
     * <li>lines 7–8, 9–11 in one batch: MFAA {DCnt + ΣDCnt(v), DMax + Σ(DMax(v) + Occ(v))} on every
     * node the scale-up adds above the old root, WRITE the configuration word (publication), WRITE
     * 0 to the maximizer, release the spillover mutex.</li>
     * </ol>
     * Nothing waits for holders: a request of the old configuration that updated a marked node
     * before its mark is carried (its DMax, or its Occ as DMax + 1, now also counts at the new
     * ancestors, where every occupier of a new node checks it: it checks itself, and the new nodes
     * above the old root are exactly its carry targets), and it pays DCnt + 1 there when it releases
     * ({@link #payCarried}); one that updated a node after its mark sees the mark in the verb's
     * result and aborts (its counts were not carried), as does one that READs the old root's mark
     * in step (b). Cost: one rpc, one round trip of marks (85 masked CASes for m = 4) and one
     * round trip of carries and publication, under the spillover mutex.
     *
     * <p>Deviation from the paper: the carry goes into every new ancestor of the old root (1 node
     * at factor 4, 2 at 16) instead of the new ancestors m, 2m, … levels above each marked node:
     * with a scale-up of fewer than m levels those do not exist, and the old root's occupier, which
     * notifies nobody, would be seen by no occupier of the new root.
     */
    void scaleUp() {
        scaleUp(false);
    }

    /**
     * DMax added to every carry target when a scale-up finds the one before it interrupted (the old
     * root already carries this generation's mark: its scaler died between its marks and its
     * publication, and the spillover mutex was taken over). What that scaler's marks did is
     * unknown: a holder may since have paid a carried count into a region no carry reached, and
     * the counts are carried again. DMax that far above DCnt makes every occupier of the new nodes
     * wait until it resets DCnt = DMax as a dead client's (h lease units, §3.10 line 36), by which
     * time every payment is made or skipped as too late ({@link #mayHaveBeenReset}): a wait,
     * never an early pass (2^13 exceeds the payments any number of live clients can make).
     */
    static final int INTERRUPTED_MARGIN = 1 << 13;

    /**
     * {@link #scaleUp()}; with {@code stopAfterMarks} (tests only) it stops right after its marks
     * and keeps the spillover mutex, as a scaler that crashes there.
     */
    void scaleUp(boolean stopAfterMarks) {
        long word = spillover.acquire(0, configAddress);
        boolean released = false;
        try {
            refreshConfig(word);
            long max = qp.read8(maximizerAddress);
            int[] levels = cur.levels();
            int top = levels[levels.length - 1];
            int next = top;
            while (CitronTree.unitsOf(next) < max && next + p.scaleLevels() <= CitronLayout.MAX_LEVELS) {
                next += p.scaleLevels();
            }
            if (max <= tree.units() || next == top || levels.length > CitronTree.MAX_GENERATIONS) {
                Batch b = new Batch();
                if (max != 0 && max <= tree.units()) {
                    b.write8(maximizerAddress, 0); // stale: already covered
                }
                spillover.release(b);
                released = true;
                qp.execute(b);
                return;
            }
            long began = clock.nanoTime();
            int g = levels.length - 1;
            int[] grown = Arrays.copyOf(levels, g + 2);
            grown[g + 1] = next;
            long[] bases = Arrays.copyOf(cur.bases(), g + 2);
            bases[g + 1] = CitronService.allocated(qp.rpc(table.service(), CitronService.allocateRequest(grown,
                    cur.bases())));
            var grownTree = new CitronTree(grown, bases);
            // Lines 4–5: mark the internal nodes of the top levels, root first.
            long lastMarked = CitronLayout.levelStart(Math.min(markLevels(), tree.leafLevel())) - 1;
            Batch marks = new Batch();
            for (long y = CitronLayout.ROOT; y <= lastMarked; y++) {
                marks.maskedCas(cur.address(y), 0, 0, CitronLayout.markOf(g + 1), CitronLayout.EXP_FIELD);
            }
            qp.execute(marks);
            if (stopAfterMarks) {
                released = true; // "crashed": the mutex stays held until a waiter takes it over
                return;
            }
            long dcnt = 0;
            // Root first: its mark shows whether a scaler of this generation marked before us.
            boolean interrupted = CitronLayout.expMark(marks.longResult(0)) > g;
            long dmax = interrupted ? INTERRUPTED_MARGIN : 0;
            interruptedScaleUps += interrupted ? 1 : 0;
            for (int i = 0; i < marks.size(); i++) {
                long v = marks.longResult(i);
                dcnt += CitronLayout.dcnt(v);
                dmax += CitronLayout.dmax(v) + (CitronLayout.occupied(v) ? 1 : 0); // an Occ counts as DMax + 1
            }
            long carry = ((dcnt & CitronLayout.COUNTER_MASK) << CitronLayout.DCNT_SHIFT)
                    | ((dmax & CitronLayout.COUNTER_MASK) << CitronLayout.DMAX_SHIFT);
            // Lines 7–11, in this order on one queue pair: the carries land before the publication.
            Batch b = new Batch();
            for (long t : carryTargets(grownTree)) {
                b.maskedFaa(grownTree.address(t), carry, CitronLayout.BOUNDARY_MASK);
            }
            b.write8(configAddress, CitronTree.encode(grown));
            b.write8(maximizerAddress, 0);
            spillover.release(b);
            released = true;
            qp.execute(b);
            scaleUps++;
            lastScaleUpNs = clock.nanoTime() - began;
            refreshConfig();
        } finally {
            if (!released) {
                Batch b = new Batch();
                spillover.release(b);
                qp.execute(b);
            }
        }
    }

    /**
     * Levels of a tree whose internal nodes a scale-up marks and carries: every request's highest
     * notified node lies in the top m levels (§3.5.5's stand-in rule), so the largest m in use.
     */
    private int markLevels() {
        int m = p.m();
        if (p.tuning() != null) {
            m = Math.max(m, p.tuning().current().m());
            var proposed = p.tuning().proposed();
            if (proposed != null) {
                m = Math.max(m, proposed.m());
            }
        }
        return m;
    }

    /** Scale-ups this client completed after another scaler's crash (see {@link #INTERRUPTED_MARGIN}). */
    long interruptedScaleUps() {
        return interruptedScaleUps + (poller != null && poller.startedBy(this) ? poller.interruptedScaleUps() : 0);
    }

    /** Virtual or real nanoseconds the last scale-up of this client took, from its allocation rpc to publication. */
    long lastScaleUpNs() {
        return lastScaleUpNs;
    }

    /**
     * Scale-down (§3.9.2) to the tree of an earlier generation covering [0, units), for a caller
     * that blocks every other use of the resource (e.g. a truncate holding the file's mutex; range
     * requests may still arrive and are served correctly, they just wait). Takes the spillover
     * mutex, drains the current tree by locking its root, then in one batch: clears the Exp marks
     * that the scale-ups from the kept size left on its top levels, publishes the shorter
     * configuration, marks the current root retired ({@link CitronLayout#MAX_MARK}: its users
     * refetch), vacates it and releases the mutex. The dropped expansions stay allocated (the
     * fabric has no table removal) and are not reused: a later scale-up allocates afresh. The
     * caller must hold no grant of this client.
     *
     * @throws IllegalArgumentException if {@code units} is not the size of an earlier generation
     *                                  of the current tree
     * @throws IllegalStateException    if this client holds a grant
     */
    public void scaleDown(long units) {
        if (!outstanding.isEmpty()) {
            throw new IllegalStateException("scale-down drains the tree: release this client's grants first");
        }
        long word = spillover.acquire(0, configAddress);
        boolean released = false;
        try {
            refreshConfig(word);
            int[] levels = cur.levels();
            int keep = -1;
            for (int i = 0; i < levels.length - 1; i++) {
                if (CitronTree.unitsOf(levels[i]) == units) {
                    keep = i;
                }
            }
            if (keep < 0) {
                throw new IllegalArgumentException("citron can scale down to an earlier size of its tree "
                        + Arrays.toString(Arrays.stream(levels).mapToLong(CitronTree::unitsOf).toArray())
                        + " other than the current one, not " + units);
            }
            Attempt drained = lockTree(0, tree.units());
            CitronTree kept = cur.upTo(keep);
            Batch b = new Batch();
            long lastMarked = CitronLayout.levelStart(Math.min(markLevels(), kept.layout().leafLevel())) - 1;
            for (long y = CitronLayout.ROOT; y <= lastMarked; y++) {
                b.maskedCas(kept.address(y), 0, 0, 0, CitronLayout.EXP_FIELD);
            }
            b.write8(configAddress, kept.word());
            b.maskedCas(cur.address(CitronLayout.ROOT), 0, 0, CitronLayout.markOf(CitronLayout.MAX_MARK),
                    CitronLayout.EXP_FIELD);
            for (Held h : drained.held) {
                addRelease(b, h, true, null); // in the retired tree: nothing to follow
            }
            spillover.release(b);
            released = true;
            qp.execute(b);
            scaleDowns++;
            refreshConfig();
        } finally {
            if (!released) {
                Batch b = new Batch();
                spillover.release(b);
                qp.execute(b);
            }
        }
    }

    /** Scale-downs this client performed. */
    long scaleDowns() {
        return scaleDowns;
    }

    /** Scale-ups this client performed, and those of the background poller it started. */
    long scaleUps() {
        return scaleUps + (poller != null && poller.startedBy(this) ? poller.scaleUps() : 0);
    }

    /** This client's background poller (null if scale-poll-ns = inf). */
    CitronScalePoller poller() {
        return poller;
    }

    /** DCnt + 1 this client paid on new ancestors for counts that scale-ups carried. */
    long carriedReleases() {
        return carriedReleases;
    }

    /**
     * The poller's check (one round trip): READs the maximizer and the configuration word; installs
     * a newer configuration; returns whether a request reached past the tree.
     */
    boolean scaleUpWanted() {
        Batch b = new Batch();
        int mi = b.read8(maximizerAddress);
        int ci = b.read8(configAddress);
        qp.execute(b);
        refreshConfig(b.longResult(ci));
        return b.longResult(mi) > tree.units();
    }

    /** Configurations this client fetched after a scale-up. */
    long refetches() {
        return refetches;
    }

    /** Units the client's current tree covers now (N; grows when it takes part in or sees a scale-up). */
    public long units() {
        return tree.units();
    }

    @Override
    public void release(RangeGrant grant) {
        if (!(grant instanceof CitronGrant g) || !outstanding.remove(g)) {
            // A second release would add to TCnt/DCnt again and corrupt the tree for everyone.
            throw new IllegalArgumentException("not a grant this citron client holds: " + grant);
        }
        Batch b = new Batch();
        List<Owed> owed = new ArrayList<>();
        for (Held h : g.nodes()) {
            addRelease(b, h, true, owed);
        }
        if (g.spillover()) {
            spillover.release(b);
        }
        if (b.size() > 0) {
            qp.execute(b);
            payCarried(b, owed);
        }
    }

    /** Retries and aborts (no resets), the counts of {@link CitronCounters} and the {@link CitronProfile}. */
    @Override
    public LockStats stats() {
        long[] r = recoveries();
        LockStats.Builder b = LockStats.builder().counter(LockStats.RETRIES, retries)
                .counter(LockStats.ABORTS, aborts).counter(LockStats.RESETS, 0);
        new CitronCounters(timingAborts, yields, escalations, r[0], r[1], r[2], r[3]).addTo(b);
        return profile.snapshot().addTo(b).build();
    }

    @Override
    public void close() {
        if (poller != null && !closed) {
            poller.leave();
        }
        closed = true;
        if (tuning != null) {
            p.tuning().leave(tuning);
        }
    }

    /** Lease recoveries: ticket resets (tree and spillover), escalations to stuck ancestors, DCnt resets, stale leaves cleared. */
    long[] recoveries() {
        return new long[] {ticketResets + spillover.resets(), ancestorEscalations, descendantResets, leafClears};
    }

    /** Notifications released too late to be counted (see {@code mayHaveBeenReset}). */
    long staleNotifications() {
        return staleNotifications;
    }

    /** Leaves given up for their parent's bakery lock (starvation avoidance). */
    long escalations() {
        return escalations;
    }

    /** Acquisitions that released their earlier nodes to break a possible deadlock. */
    long yields() {
        return yields;
    }

    /** Node acquisitions aborted because a notification may have come too late (inequation 1). */
    long timingAborts() {
        return timingAborts;
    }

    // ------------------------------------------------------------------ step 1 and the node loop

    private Attempt lockTree(long l, long r) {
        for (int restart = 0; ; restart++) {
            long[] targets = splitter.split(l, r, p.k()).nodes();
            Attempt a = new Attempt();
            boolean complete = true;
            for (long x : targets) {
                if (coveredByHeld(a, x)) {
                    continue; // an earlier node was escalated to a parent that covers this one
                }
                Held h;
                try {
                    h = lockNodeUntilAcquired(x, l, r, a);
                } catch (RuntimeException e) {
                    releaseNow(a.held); // giving up: the nodes already taken must not stay locked
                    throw e;
                }
                if (!a.yielded) {
                    // Re-validate after the act: the unchecked stretches of this node (T_wait,
                    // round trips, a pause of this client) count against the earlier nodes too;
                    // past hold-wait a waiter may have reset their notifications as a dead
                    // client's, so the grant must not be built on them.
                    checkHoldWait(a);
                }
                if (a.yielded) {
                    if (h != null) {
                        releaseNow(List.of(h));
                    }
                    complete = false;
                    break;
                }
                if (a.held.isEmpty()) {
                    a.heldSince = clock.nanoTime();
                }
                a.held.add(h);
            }
            if (complete) {
                return a;
            }
            aborts++;
            if (restart >= p.maxRestarts()) {
                throw new LockUnavailableException("citron range [" + l + ", " + r + "): restarted " + (restart + 1)
                        + " times; gave up after max-restarts=" + p.maxRestarts());
            }
            // Randomized pause so that the requests that deadlocked do not meet again in step.
            enter(Phase.BACKOFF);
            clock.sleepNanos(random.nextLong(Math.max(1, p.pollNs()) << Math.min(restart + 1, MAX_BACKOFF_DOUBLINGS)));
        }
    }

    private boolean coveredByHeld(Attempt a, long x) {
        for (Held h : a.held) {
            if (tree.covers(h.node(), x)) {
                return true;
            }
        }
        return false;
    }

    /** Steps 2(a)–(d) on {@code x} until acquired; null if the attempt yielded before that. */
    private Held lockNodeUntilAcquired(long x, long l, long r, Attempt a) {
        long node = x;
        for (int tries = 0; ; tries++) {
            Outcome o = lockNode(node, l, r, a);
            if (o == Outcome.ACQUIRED) {
                return a.acquired;
            }
            if (o == Outcome.ESCALATE) {
                // Even after a yield: a leaf whose bits a crashed client left set is cleared only
                // once its parent is held, so a request that gave its earlier nodes up (hold-wait <
                // starve) and dropped the escalation would meet the same leaf after every restart.
                node = a.escalateTo;
                a.recovering = true;
                releaseCovered(a, node); // it covers them: holding both would wait on oneself
                continue;
            }
            if (a.yielded) {
                return null;
            }
            aborts++;
            if (tries >= p.maxRestarts()) {
                throw new LockUnavailableException("citron node " + node + ": aborted " + (tries + 1)
                        + " times; gave up after max-restarts=" + p.maxRestarts() + " (" + timingAborts
                        + " aborts so far because the notification took longer than t-wait-ns=" + eff.abortTNs()
                        + " allows: is T_wait above two round trips?)");
            }
            // A node aborted and retaken at once keeps its Occ set nearly all the time and
            // starves the requests below it; a randomized, growing pause lets them through.
            enter(Phase.BACKOFF);
            clock.sleepNanos(random.nextLong(Math.max(1, p.pollNs()) << Math.min(tries + 1, MAX_BACKOFF_DOUBLINGS)));
            // Retries (slow round trips abort again and again) do not restart the hold-wait
            // clock of the nodes we hold: past it they are given up (issue 6).
            checkHoldWait(a);
            if (a.yielded) {
                return null;
            }
        }
    }

    private void releaseCovered(Attempt a, long parent) {
        List<Held> covered = a.held.stream().filter(h -> tree.covers(parent, h.node())).toList();
        if (!covered.isEmpty()) {
            releaseNow(covered);
            a.held.removeAll(covered);
        }
    }

    /** Gives up every node the attempt holds: it will restart once the node under way is done. */
    private void yieldHeld(Attempt a) {
        if (!a.yielded && !a.held.isEmpty()) {
            yields++;
            releaseNow(a.held);
            a.held.clear();
            a.yielded = true;
        }
    }

    /**
     * While holding earlier nodes, a wait longer than hold-wait-ns may be part of a cycle; and
     * earlier nodes held longer than that may already have been taken for a dead client's (their
     * DCnt reset by a waiting occupier): give them up.
     */
    private void checkHoldWait(Attempt a) {
        if (!a.held.isEmpty() && clock.nanoTime() - a.heldSince > p.holdWaitNs()) {
            yieldHeld(a);
        }
    }

    // ------------------------------------------------------------------ step 2

    private Outcome lockNode(long x, long l, long r, Attempt a) {
        Outcome o;
        if (tuning == null) {
            o = lockNodeWith(x, l, r, a);
        } else {
            eff = tuning.begin();
            try {
                o = lockNodeWith(x, l, r, a);
            } finally {
                tuning.end();
            }
        }
        if (o == Outcome.ACQUIRED) {
            a.recovering = false;
        }
        return o;
    }

    private Outcome lockNodeWith(long x, long l, long r, Attempt a) {
        profile.nodeAttempts++;
        boolean leaf = tree.isLeaf(x);
        long addr = nodeAddress(x);
        long[] anc = ancestors(x);
        long[] ancWords = null;
        long t1 = 0;
        int ticket = -1;
        long turnAt = 0;
        if (!leaf) { // (a)
            enter(Phase.TICKET);
            Batch b = new Batch();
            int ti = b.maskedFaa(addr, CitronLayout.ONE_TMAX, CitronLayout.BOUNDARY_MASK);
            int first = -1;
            if (p.fastPath()) {
                for (long y : anc) {
                    int idx = b.read8(nodeAddress(y));
                    first = first < 0 ? idx : first;
                }
            }
            long posted = clock.nanoTime();
            qp.execute(b);
            long old = b.longResult(ti);
            ticket = CitronLayout.tmax(old);
            turnWord = old;
            if (CitronLayout.tcnt(old) == ticket && p.fastPath()) {
                ancWords = new long[anc.length];
                for (int i = 0; i < anc.length; i++) {
                    ancWords[i] = b.longResult(first + i);
                }
                t1 = posted;
            } else {
                Turn t = waitTicket(x, addr, ticket, old, a);
                if (t == Turn.SKIPPED) {
                    return Outcome.ABORTED; // nothing to hand back: take a new ticket
                }
                a.recovering |= t == Turn.RESET;
            }
            turnAt = clock.nanoTime();
        }
        long leafMask = leaf ? tree.leafMask(x, l, r) : 0;
        long firstCasFailure = -1;
        while (true) {
            enter(Phase.ANCESTORS);
            if (ancWords == null) { // (b)
                Batch b = new Batch();
                for (long y : anc) {
                    b.read8(nodeAddress(y));
                }
                t1 = clock.nanoTime();
                if (b.size() > 0) {
                    qp.execute(b);
                }
                profile.ancestorReadNs += clock.nanoTime() - t1;
                ancWords = new long[anc.length];
                for (int i = 0; i < anc.length; i++) {
                    ancWords[i] = b.longResult(i);
                }
            }
            // The root's Exp: a scale-up made this tree a subtree (x itself if it is the root).
            long rootWord = anc.length > 0 ? ancWords[anc.length - 1] : turnWord;
            if (CitronLayout.expanded(rootWord)) {
                if (!leaf) {
                    handTurnOn(addr, ticket);
                }
                throw new ConfigChanged();
            }
            int occ = lowestOccupied(ancWords);
            if (occ >= 0) {
                if (!a.held.isEmpty() && coversHeld(anc[occ], a)) {
                    yieldHeld(a); // that occupier waits for a node we hold
                }
                Vacated v = waitVacated(anc[occ], a, leaf ? -1 : turnAt);
                if (v != Vacated.VACATED) {
                    if (!leaf) {
                        handTurnOn(addr, ticket);
                    }
                    if (v == Vacated.TURN_TOO_LONG) {
                        return Outcome.ABORTED;
                    }
                    // §3.10 line 18: the occupier may have crashed; lock its node instead (a ticket
                    // there reduces to the ticket wait and its reset).
                    ancestorEscalations++;
                    a.escalateTo = anc[occ];
                    return Outcome.ESCALATE;
                }
                ancWords = null;
                continue;
            }
            long[] notify = notifySet(x);
            enter(Phase.LOCK);
            if (leaf) { // (c) + (d)
                Batch b = new Batch();
                int ci = b.maskedCas(addr, 0, leafMask, leafMask, leafMask);
                int ni = -1;
                int fi = -1;
                if (p.fastPath()) {
                    ni = addNotify(b, notify);
                    addRootRead(b, notify);
                    fi = addToken(b); // after the MCAS: not reordered before it
                }
                qp.execute(b);
                boolean locked = (b.longResult(ci) & leafMask) == 0;
                if (!locked) {
                    retries++;
                    profile.leafCasFailures++;
                    enter(Phase.LEAF_RETRY);
                    if (p.fastPath() && notify.length > 0) {
                        // roll the notifications back (and any a scale-up carried meanwhile)
                        releaseNow(List.of(new Held(x, 0, notify, false, cur, -1, clock.nanoTime(), -1,
                                notifiedBases(b, ni, notify.length))), false);
                    }
                    long now = clock.nanoTime();
                    firstCasFailure = firstCasFailure < 0 ? now : firstCasFailure;
                    if (now - firstCasFailure >= starveNs()) {
                        // Starvation, or (§3.10 line 22) bits of a crashed holder: the parent's
                        // bakery lock settles both (stale bits are cleared once it is held).
                        escalations++;
                        a.escalateTo = CitronLayout.parent(x);
                        return Outcome.ESCALATE;
                    }
                    checkHoldWait(a);
                    clock.sleepNanos(p.pollNs());
                    ancWords = null;
                    continue;
                }
                if (!p.fastPath()) {
                    b = new Batch();
                    ni = addNotify(b, notify);
                    addRootRead(b, notify);
                    fi = addToken(b);
                    qp.execute(b);
                }
                long t2 = clock.nanoTime();
                Held h = new Held(x, leafMask, notify, false, cur, -1, t2, -1, notifiedBases(b, ni, notify.length));
                if (notMarked(h) && !(notify.length > 0 && tooLate(t1, t2))) {
                    a.acquired = h;
                    a.token = tokenOf(b, fi);
                    profile.nodesAcquired++;
                    return Outcome.ACQUIRED;
                }
                enter(Phase.BACKOFF);
                releaseNow(List.of(h));
                if (!notMarked(h)) {
                    throw new ConfigChanged(); // a scale-up read a node before our update: retry on the new tree
                }
                return Outcome.ABORTED;
            }
            // (c) + (d), internal node
            boolean childrenAreLeaves = tree.level(x) == tree.leafLevel() - 1;
            boolean lockChildren = p.fastPath() && childrenAreLeaves;
            Batch b = new Batch();
            b.maskedFaa(addr, CitronLayout.OCC_BIT, CitronLayout.BOUNDARY_MASK);
            int ni = -1;
            int kids = -1;
            int fi = -1;
            if (p.fastPath()) {
                ni = addNotify(b, notify);
                addRootRead(b, notify);
                if (lockChildren) {
                    for (int i = 0; i < CitronLayout.FANOUT; i++) {
                        int idx = b.maskedCas(nodeAddress(CitronLayout.child(x, i)), 0, CitronLayout.ALL_UNITS,
                                CitronLayout.ALL_UNITS, CitronLayout.ALL_UNITS);
                        kids = kids < 0 ? idx : kids;
                    }
                    fi = addToken(b); // used only if all four children were free
                }
            }
            qp.execute(b);
            long t0 = clock.nanoTime();
            long occWord = b.longResult(0); // its Exp mark: did a scale-up read x before our Occ?
            if (!p.fastPath() && notify.length > 0) {
                b = new Batch();
                ni = addNotify(b, notify);
                addRootRead(b, notify);
                qp.execute(b);
            }
            long t2 = clock.nanoTime();
            boolean childrenLocked = false;
            boolean staleChildren = a.recovering && childrenAreLeaves;
            if (lockChildren) {
                childrenLocked = true;
                Batch undo = new Batch();
                for (int i = 0; i < CitronLayout.FANOUT; i++) {
                    if (b.longResult(kids + i) == 0) {
                        addClearLeaf(undo, CitronLayout.child(x, i));
                    } else {
                        childrenLocked = false;
                    }
                }
                if (!childrenLocked) {
                    profile.childLockFailures++;
                    staleChildren = p.leases(); // in use now, or left by a crashed holder
                    if (undo.size() > 0) {
                        retries++;
                        qp.execute(undo); // some child is in use: give back the ones we set
                    }
                }
            }
            Held h = new Held(x, 0, notify, childrenLocked, cur, ticket, t2,
                    Math.max(cur.generation(), CitronLayout.expMark(occWord)), notifiedBases(b, ni, notify.length));
            if (!notMarked(h) || (notify.length > 0 && tooLate(t1, t2))) {
                enter(Phase.BACKOFF);
                releaseNow(List.of(h));
                if (!notMarked(h)) {
                    throw new ConfigChanged(); // a scale-up read a node before our update: retry on the new tree
                }
                return Outcome.ABORTED;
            }
            a.acquired = h;
            if (childrenLocked) {
                a.token = tokenOf(b, fi);
                profile.nodesAcquired++;
                return Outcome.ACQUIRED; // nothing below can be held: skip the wait
            }
            enter(Phase.T_WAIT);
            long wake = t0 + eff.waitTNs();
            for (long now = clock.nanoTime(); now < wake; now = clock.nanoTime()) {
                clock.sleepNanos(wake - now);
            }
            enter(Phase.DESCENDANTS);
            waitDescendants(x, a);
            if (staleChildren && p.leases()) {
                clearStaleChildren(x, a);
            }
            enter(Phase.LOCK);
            // The token must follow the descendant check; a FAA behind a READ in one batch might
            // overtake it (only writes and atomics order later verbs), so it takes a round trip.
            a.token = takeToken();
            profile.nodesAcquired++;
            return Outcome.ACQUIRED;
        }
    }

    /** The words of {@code count} consecutive nodes of one level (one READ per memory run). */
    private long[] readLevelRun(long first, int count) {
        List<long[]> runs = cur.runs(first, count);
        Batch b = new Batch();
        for (long[] run : runs) {
            b.read(run[0], Math.toIntExact(run[1] * CitronLayout.WORD_BYTES));
        }
        qp.execute(b);
        long[] out = new long[count];
        int n = 0;
        for (int i = 0; i < runs.size(); i++) {
            ByteBuffer bytes = ByteBuffer.wrap(b.bytesResult(i)).order(ByteOrder.LITTLE_ENDIAN);
            for (int j = 0; j < runs.get(i)[1]; j++) {
                out[n++] = bytes.getLong(j * CitronLayout.WORD_BYTES);
            }
        }
        return out;
    }

    /** One FAA on the fencing counter: a token above every token taken before it (0 with fencing off). */
    private long takeToken() {
        return p.fencing() ? qp.faa(fenceAddress, 1) + 1 : 0;
    }

    /** Adds the fencing FAA to {@code b}: its result index, or −1 with fencing off. */
    private int addToken(Batch b) {
        return p.fencing() ? b.faa(fenceAddress, 1) : -1;
    }

    /** The token the FAA at {@code index} of {@code b} took (0 with fencing off). */
    private static long tokenOf(Batch b, int index) {
        return index < 0 ? 0 : b.longResult(index) + 1;
    }

    /** A starved leaf gives up for its parent after starve-ns; with leases, within half a lease. */
    private long starveNs() {
        return p.leases() ? Math.min(p.starveNs(), p.leaseNs() / 2) : p.starveNs();
    }

    /** Lease unit: the longest a live client leaves a node's counters unchanged per level of height. */
    private long leaseUnitNs() {
        return p.leaseNs() + p.holdWaitNs() + Math.max(p.tWaitNs(), eff.waitTNs());
    }

    /**
     * §3.10 line 22: we hold leaf-parent {@code x} after its descendants drained, so no live client
     * holds a child's bits. Bits still set belong to a crashed client, or to a live leaf request
     * that READ the ancestors before x was occupied, set its bits, and has not notified x yet (slow
     * path: MCAS and notification are two round trips, and its client may stall in between). That
     * request's notification lands past T_wait: it aborts and clears its own bits by a masked CAS on
     * exactly them. A WRITE 0 at once would let a later holder set the same bits, and that late
     * release would clear them under it, letting a third request in (issue 6;
     * CitronLeafClearSimTest). So a child is zeroed only once its word stayed unchanged for a lease
     * unit (every live request releases within it), by a masked CAS against the word seen; we return
     * once all four children read 0. No request can set bits under x after it was occupied and
     * checked, except such late ones, which clear them again.
     */
    private void clearStaleChildren(long x, Attempt a) {
        long first = CitronLayout.child(x, 0);
        long[] seen = new long[CitronLayout.FANOUT];
        long[] since = new long[CitronLayout.FANOUT];
        while (true) {
            long[] words = readLevelRun(first, CitronLayout.FANOUT);
            long now = clock.nanoTime();
            boolean busy = false;
            Batch b = new Batch();
            for (int i = 0; i < CitronLayout.FANOUT; i++) {
                if (words[i] == 0) {
                    continue;
                }
                busy = true;
                if (words[i] != seen[i]) {
                    seen[i] = words[i];
                    since[i] = now;
                } else if (now - since[i] >= leaseUnitNs()) {
                    b.maskedCas(nodeAddress(first + i), seen[i], CitronLayout.ALL_UNITS, 0, CitronLayout.ALL_UNITS);
                }
            }
            if (!busy) {
                return;
            }
            if (b.size() > 0) {
                qp.execute(b);
                for (int i = 0; i < b.size(); i++) {
                    if (b.longResult(i) == ((Verb.MaskedCas) b.verbs().get(i)).compare()) {
                        leafClears++;
                    }
                }
                continue; // re-read at once
            }
            checkHoldWait(a);
            clock.sleepNanos(p.pollNs());
        }
    }

    /**
     * Gives our turn at {@code addr} to the next ticket without having occupied the node: TCnt + 1
     * if TCnt is still our ticket and Occ clear (a masked CAS, so that a waiter that reset the turn
     * past us is not skipped a second time).
     */
    private void handTurnOn(long addr, int ticket) {
        qp.maskedCas(addr, CitronLayout.turnOf(ticket), CitronLayout.TURN_FIELDS, CitronLayout.turnOf(ticket + 1),
                CitronLayout.TURN_FIELDS);
    }

    /** Inequation (1): the notification may have landed after an occupier above stopped waiting. */
    private boolean tooLate(long t1, long t2) {
        // Alice's wait may run fast by δ on her clock while Bob's interval runs slow by δ on his.
        long budget = (long) Math.floor(eff.abortTNs() * (1 - p.drift()) / (1 + p.drift()));
        profile.spans++;
        profile.spanNs += t2 - t1;
        if (t2 - t1 > budget) {
            timingAborts++;
            return true;
        }
        return false;
    }

    /**
     * Algorithm 2 line 33, made exact: every count this node acquisition added (Occ on an internal
     * node, DMax on each notified node) landed before any scale-up of its configuration read that
     * node, so a scale-up, if one is under way, carries all of them into the new ancestors.
     */
    private static boolean notMarked(Held h) {
        int g = h.cfg().generation();
        if (h.occBase() > g) {
            return false;
        }
        for (int base : h.notifiedBase()) {
            if (base > g) {
                return false;
            }
        }
        return true;
    }

    /**
     * For each of the {@code n} DMax + 1 at {@code first} in {@code b}: the generation after which
     * scale-ups carry it (the node's Exp mark when it landed, at least the current generation).
     */
    private int[] notifiedBases(Batch b, int first, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = Math.max(cur.generation(), CitronLayout.expMark(b.longResult(first + i)));
        }
        return out;
    }

    /**
     * Step (a)'s wait for TCnt to reach {@code ticket}. With leases (§3.10 line 11): if TCnt and
     * Occ stay unchanged for Δ lease units × (height + 2), Δ the tickets ahead of ours, the turn is
     * taken over: a masked CAS sets TCnt to our ticket and clears Occ if they are still as seen.
     * If TCnt ever passes our ticket (a holder paused past its lease vacated a turn that had
     * been taken over), the ticket is void: SKIPPED, and the caller takes a new one.
     */
    private Turn waitTicket(long x, long addr, int ticket, long seen, Attempt a) {
        long w = seen;
        long state = w & CitronLayout.TURN_FIELDS;
        long since = clock.nanoTime();
        // A live turn holder changes TCnt or Occ within: 1.5 leases in step (b) (then it hands the
        // turn on), or once Occ is set, T_wait + its descendant check (height units) + a leaf
        // parent's clear of stale leaf bits (one unit) + its hold.
        long stall = (tree.height(x) + 2) * leaseUnitNs();
        while (CitronLayout.tcnt(w) != ticket) {
            turnWord = w;
            checkHoldWait(a);
            clock.sleepNanos(p.pollNs());
            w = qp.read8(addr);
            long now = clock.nanoTime();
            if ((w & CitronLayout.TURN_FIELDS) != state) {
                state = w & CitronLayout.TURN_FIELDS;
                since = now;
                continue;
            }
            if (!p.leases() || CitronLayout.tcnt(w) == ticket) {
                continue;
            }
            long gap = (ticket - CitronLayout.tcnt(w)) & CitronLayout.COUNTER_MASK;
            if (gap >= ((CitronLayout.tmax(w) - CitronLayout.tcnt(w)) & CitronLayout.COUNTER_MASK)) {
                return Turn.SKIPPED; // our ticket is not in [TCnt, TMax) any more
            }
            if (now - since >= gap * stall) {
                long old = qp.maskedCas(addr, state, CitronLayout.TURN_FIELDS, CitronLayout.turnOf(ticket),
                        CitronLayout.TURN_FIELDS);
                if ((old & CitronLayout.TURN_FIELDS) == state) {
                    ticketResets++;
                    turnWord = old;
                    return Turn.RESET;
                }
                w = old;
                state = old & CitronLayout.TURN_FIELDS;
                since = clock.nanoTime();
            }
        }
        turnWord = w;
        return Turn.SERVED;
    }

    /**
     * Step (b)'s wait for ancestor {@code y} to be vacated. With leases: y's TCnt and Occ unchanged
     * for a lease ⇒ ANCESTOR_STUCK (§3.10 line 18: lock y instead, safe even if its occupier is
     * alive); our own turn at an internal node (since {@code turnAt}, −1 for a leaf) lasting 1.5
     * leases ⇒ TURN_TOO_LONG, so that waiters behind us never take a live turn for a dead one.
     */
    private Vacated waitVacated(long y, Attempt a, long turnAt) {
        long addr = nodeAddress(y);
        long state = -1;
        long since = clock.nanoTime();
        while (true) {
            checkHoldWait(a);
            clock.sleepNanos(p.pollNs());
            long w = qp.read8(addr);
            if (!CitronLayout.occupied(w)) {
                return Vacated.VACATED;
            }
            if (!p.leases()) {
                continue;
            }
            long now = clock.nanoTime();
            if ((w & CitronLayout.TURN_FIELDS) != state) {
                state = w & CitronLayout.TURN_FIELDS;
                since = now;
            } else if (now - since >= p.leaseNs()) {
                return Vacated.ANCESTOR_STUCK;
            }
            if (turnAt >= 0 && now - turnAt >= p.leaseNs() + p.leaseNs() / 2) {
                return Vacated.TURN_TOO_LONG;
            }
        }
    }

    /**
     * Step 2(d)'s check: {@code x} and its internal descendants within m levels have DCnt = DMax.
     * With leases (§3.10 line 36): a node whose DCnt and DMax stay unchanged for height lease units
     * gets DCnt = DMax (a masked CAS against what was seen): every live notifier below it releases
     * within that time.
     */
    private void waitDescendants(long x, Attempt a) {
        int level = tree.level(x);
        int lastLevel = Math.min(level + eff.checkM() - 1, tree.leafLevel() - 1);
        List<long[]> pending = new ArrayList<>(); // {first node, count}
        for (int d = level; d <= lastLevel; d++) {
            pending.add(new long[] {CitronLayout.firstDescendant(x, d - level), CitronLayout.levelWidth(d - level)});
        }
        Map<Long, long[]> stuck = new HashMap<>(); // node -> {DCnt/DMax seen, since}
        while (true) {
            Batch b = new Batch();
            List<List<long[]>> runsOf = new ArrayList<>();
            for (long[] block : pending) {
                List<long[]> runs = cur.runs(block[0], block[1]); // one per block unless scaled up
                runsOf.add(runs);
                for (long[] run : runs) {
                    b.read(run[0], Math.toIntExact(run[1] * CitronLayout.WORD_BYTES));
                }
            }
            qp.execute(b);
            long now = clock.nanoTime();
            int resultIndex = 0;
            List<long[]> still = new ArrayList<>();
            Batch resets = new Batch();
            for (int i = 0; i < pending.size(); i++) {
                long[] block = pending.get(i);
                long[] words = new long[Math.toIntExact(block[1])];
                int filled = 0;
                for (long[] run : runsOf.get(i)) {
                    ByteBuffer bytes = ByteBuffer.wrap(b.bytesResult(resultIndex++)).order(ByteOrder.LITTLE_ENDIAN);
                    for (int j = 0; j < run[1]; j++) {
                        words[filled++] = bytes.getLong(j * CitronLayout.WORD_BYTES);
                    }
                }
                int firstBusy = -1;
                for (int j = 0; j < block[1]; j++) {
                    long w = words[j];
                    if (CitronLayout.descendantsDone(w)) {
                        continue;
                    }
                    firstBusy = firstBusy < 0 ? j : firstBusy;
                    if (!p.leases()) {
                        break; // re-read from the first node that is not done
                    }
                    long y = block[0] + j;
                    long seen = w & CitronLayout.NOTIFY_FIELDS;
                    long[] st = stuck.get(y);
                    if (st == null || st[0] != seen) {
                        stuck.put(y, new long[] {seen, now});
                    } else if (now - st[1] >= tree.height(y) * leaseUnitNs()) {
                        long dmax = CitronLayout.dmax(w);
                        resets.maskedCas(nodeAddress(y), seen, CitronLayout.NOTIFY_FIELDS,
                                (dmax << CitronLayout.DCNT_SHIFT) | (dmax << CitronLayout.DMAX_SHIFT),
                                CitronLayout.NOTIFY_FIELDS);
                        st[1] = now; // a failed reset (it changed) starts a new period
                    }
                }
                if (firstBusy >= 0) {
                    still.add(new long[] {block[0] + firstBusy, block[1] - firstBusy});
                }
            }
            if (resets.size() > 0) {
                qp.execute(resets);
                for (int i = 0; i < resets.size(); i++) {
                    var v = (Verb.MaskedCas) resets.verbs().get(i);
                    if ((resets.longResult(i) & CitronLayout.NOTIFY_FIELDS) == v.compare()) {
                        descendantResets++;
                    }
                }
                continue; // re-read at once
            }
            if (still.isEmpty()) {
                return;
            }
            pending = still;
            checkHoldWait(a);
            clock.sleepNanos(p.pollNs());
        }
    }

    // ------------------------------------------------------------------ tree helpers

    private long nodeAddress(long x) {
        return cur.address(x);
    }

    /** Ancestors of {@code x}, parent first, root last. */
    private long[] ancestors(long x) {
        int level = tree.level(x);
        long[] anc = new long[level];
        long y = x;
        for (int i = 0; i < level; i++) {
            y = CitronLayout.parent(y);
            anc[i] = y;
        }
        return anc;
    }

    private static int lowestOccupied(long[] ancWords) {
        for (int i = 0; i < ancWords.length; i++) {
            if (CitronLayout.occupied(ancWords[i])) {
                return i;
            }
        }
        return -1;
    }

    private boolean coversHeld(long y, Attempt a) {
        for (Held h : a.held) {
            if (tree.covers(y, h.node())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The ancestors {@code x} notifies, lowest first: its parent, and every m-th ancestor above
     * the parent; one in the top m − 1 levels (other than the parent) is replaced by the ancestor
     * at level m − 1, which every occupier in the top levels checks (§3.5.5).
     */
    long[] notifySet(long x) {
        return notifySet(x, eff.notifyM());
    }

    long[] notifySet(long x, int m) {
        int level = tree.level(x);
        if (level == 0) {
            return new long[0];
        }
        long start = tree.rangeStart(x);
        long[] out = new long[level];
        int n = 0;
        int standIn = m - 1;
        for (int d = level - 1; d >= 0; d -= m) {
            int target = d;
            if (d < standIn && d != level - 1) {
                if (standIn >= level) {
                    continue;
                }
                target = standIn;
            }
            long y = tree.nodeAt(target, start);
            if (n == 0 || out[n - 1] != y) {
                out[n++] = y;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /**
     * Algorithm 2 line 31's READ of the root behind the notifications, kept for the paper's verb
     * profile (the experiments compare verb counts). Its value decides nothing here: line 33's
     * test is made exact by the Exp marks the notifications return ({@link #notMarked}).
     */
    private void addRootRead(Batch b, long[] notify) {
        if (notify.length > 0) {
            b.read8(nodeAddress(CitronLayout.ROOT));
        }
    }

    private int addNotify(Batch b, long[] notify) {
        int first = -1;
        for (long y : notify) {
            int idx = b.maskedFaa(nodeAddress(y), CitronLayout.ONE_DMAX, CitronLayout.BOUNDARY_MASK);
            first = first < 0 ? idx : first;
        }
        return first;
    }

    private void addClearLeaf(Batch b, long leaf) {
        b.maskedCas(nodeAddress(leaf), CitronLayout.ALL_UNITS, CitronLayout.ALL_UNITS, 0, CitronLayout.ALL_UNITS);
    }

    /**
     * Adds the release of {@code h} to {@code b}: its node ({@code nodes}; else only its
     * notifications, as when a leaf's failed MCAS rolls them back) and its notifications. Each
     * paid count a scale-up may have carried goes on {@code owed} (null: none is followed, for a
     * drained tree) for {@link #payCarried}.
     */
    private void addRelease(Batch b, Held h, boolean nodes, List<Owed> owed) {
        CitronTree at = h.cfg(); // the configuration it was taken in: indices are relative to it
        long addr = at.address(h.node());
        long age = clock.nanoTime() - h.notifiedAt();
        if (nodes && h.leafMask() != 0) {
            b.maskedCas(addr, h.leafMask(), h.leafMask(), 0, h.leafMask());
        } else if (nodes) {
            // Vacate only our own turn (TCnt = our ticket, Occ set): if a waiter took the turn over
            // as a dead client's (§3.10 line 11) while we were paused, a blind MFAA {Occ - 1, TCnt + 1}
            // would clear the new holder's Occ and hand its turn on while it holds (issue 6).
            long ours = CitronLayout.turnOf(h.ticket()) | CitronLayout.OCC_BIT;
            int vi = b.maskedCas(addr, ours, CitronLayout.TURN_FIELDS, CitronLayout.turnOf(h.ticket() + 1),
                    CitronLayout.TURN_FIELDS);
            if (owed != null && h.occBase() >= 0) {
                owed.add(new Owed(h.occBase(), vi, age, ours)); // a scale-up carries an Occ as DMax + 1
            }
            if (h.childrenLocked()) {
                for (int i = 0; i < CitronLayout.FANOUT; i++) {
                    b.maskedCas(at.address(CitronLayout.child(h.node(), i)), CitronLayout.ALL_UNITS,
                            CitronLayout.ALL_UNITS, 0, CitronLayout.ALL_UNITS);
                }
            }
        }
        long[] notified = h.notified();
        for (int i = 0; i < notified.length; i++) {
            long y = notified[i];
            if (mayHaveBeenReset(at, y, age)) {
                staleNotifications++;
                continue;
            }
            int di = b.maskedFaa(at.address(y), CitronLayout.ONE_DCNT, CitronLayout.BOUNDARY_MASK);
            if (owed != null) {
                owed.add(new Owed(h.notifiedBase()[i], di, age, -1));
            }
        }
    }

    /**
     * A count a release paid (DCnt + 1 on a notified node, or the vacate of an occupied one) that a
     * scale-up may have carried into new ancestors: {@code base} is the generation after which
     * scale-ups carry it, {@code index} the result of the paying verb, {@code vacated} the turn a
     * vacate expected (−1 for a DCnt + 1).
     */
    private record Owed(int base, int index, long ageNs, long vacated) {
    }

    /**
     * Algorithm 3 lines 10–12 ("continue for the new ancestors"), for every scale-up that carried
     * a paid count: the paying verb returned the node's Exp mark M; a count carried since
     * generation {@code base} was carried by each scale-up base → base + 1, …, M − 1 → M (a node
     * stays in the marked top levels for consecutive scale-ups, then sinks below them), each into
     * every node that scale-up added above the old root. Those get DCnt + 1 in turn, and their
     * marks are followed the same way. A scale-up marked but not yet published is found through
     * the table's service (it allocates before it marks). A vacate that failed (a waiter took the
     * turn over as a dead client's and cleared our Occ) pays nothing: the count it would owe stays,
     * and an occupier above resets it after h lease units, a wait, never an overlap.
     */
    private void payCarried(Batch paid, List<Owed> owed) {
        Batch done = paid;
        List<Owed> pending = owed;
        while (!pending.isEmpty()) {
            Batch b = new Batch();
            List<Owed> next = new ArrayList<>();
            for (Owed o : pending) {
                long w = done.longResult(o.index());
                if (o.vacated() >= 0 && (w & CitronLayout.TURN_FIELDS) != o.vacated()) {
                    continue;
                }
                int mark = CitronLayout.expMark(w);
                for (int g = o.base(); g < mark; g++) {
                    CitronTree to = configAt(g + 1);
                    if (to == null) {
                        break; // no such generation (a dropped tree's retired root): nothing was carried
                    }
                    for (long t : carryTargets(to)) {
                        if (mayHaveBeenReset(to, t, o.ageNs())) {
                            staleNotifications++;
                            continue;
                        }
                        int idx = b.maskedFaa(to.address(t), CitronLayout.ONE_DCNT, CitronLayout.BOUNDARY_MASK);
                        next.add(new Owed(g + 1, idx, o.ageNs(), -1));
                    }
                }
            }
            if (b.size() == 0) {
                return;
            }
            qp.execute(b);
            carriedReleases += b.size();
            done = b;
            pending = next;
        }
    }

    /**
     * The nodes scale-up {@code to.generation()} added above the old root (its new ancestors, the
     * leftmost node of each new level): where it carries the counters of the old top levels.
     */
    static long[] carryTargets(CitronTree to) {
        int[] lv = to.levels();
        int g = lv.length - 1;
        long[] out = new long[lv[g] - lv[g - 1]];
        for (int d = 0; d < out.length; d++) {
            out[d] = CitronLayout.levelStart(d);
        }
        return out;
    }

    /** Configuration of generation {@code g}: a prefix of ours, or (newer) the service's record. */
    private CitronTree configAt(int g) {
        if (g <= cur.generation()) {
            return cur.upTo(g);
        }
        CitronTree t = lookedUp.get(g);
        if (t == null) {
            try {
                t = CitronService.decodeConfig(qp.rpc(table.service(), CitronService.lookupRequest(g)));
            } catch (io.lockfabric.fabric.RpcException unknown) {
                return null;
            }
            lookedUp.put(g, t);
        }
        return t;
    }

    /**
     * Whether a notification of {@code y} made {@code ageNs} ago may have been reset by an occupier
     * above as a dead client's (§3.10 line 36: DCnt/DMax unchanged for height(y) lease units, on
     * its clock). Its DCnt + 1 would then leave DCnt one above DMax for good, and every later
     * occupier's check would pass while one request below it still holds (issue 6): such a release
     * is skipped instead. If no reset happened, DCnt stays one behind until an occupier resets it
     * (a wait of height(y) lease units, never an overlap). The margin of one T_wait covers the
     * release's flight (the protocol already assumes round trips well below T_wait).
     */
    private boolean mayHaveBeenReset(CitronTree at, long y, long ageNs) {
        if (!p.leases()) {
            return false;
        }
        double resetAfter = at.layout().height(y) * (double) leaseUnitNs() * (1 - p.drift()) / (1 + p.drift());
        return ageNs > resetAfter - Math.max(p.tWaitNs(), eff.waitTNs());
    }

    private void releaseNow(List<Held> held) {
        releaseNow(held, true);
    }

    /** Releases {@code held} now (their nodes too unless {@code nodes} is false), following carries. */
    private void releaseNow(List<Held> held, boolean nodes) {
        Batch b = new Batch();
        List<Owed> owed = new ArrayList<>();
        for (Held h : held) {
            addRelease(b, h, nodes, owed);
        }
        if (b.size() > 0) {
            qp.execute(b);
            payCarried(b, owed);
        }
    }
}
