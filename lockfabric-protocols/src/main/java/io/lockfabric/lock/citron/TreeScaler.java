package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Table;

import java.util.Arrays;

/**
 * Scaling the lock tree (FAST'23 §3.9, {@link CitronTree}): scale-up as Algorithm 4 has it, run
 * by the background poller ({@link CitronScalePoller}), and the blocking scale-down of §3.9.2.
 *
 * <p><b>Scale-up</b>. A request past N ORs its right end into the maximizer (with the spillover
 * ticket, {@link SpilloverMutex}). A background poller per client machine and table (option
 * {@code scale-poll-ns}) READs it ({@link #scaleUpWanted}) and runs {@link #scaleUp}: spillover
 * mutex; an ALLOCATE rpc to the table's {@link CitronService} for the zeroed expansion; one batch
 * that writes the new generation into the Exp mark of every internal node of the old tree's top m
 * levels (root first) and returns their words; one batch that carries their ΣDCnt and
 * Σ(DMax + Occ) into the nodes added above the old root, publishes the configuration word, clears
 * the maximizer and releases the mutex. No holder is waited for.
 *
 * <p>Requests meet the scale-up three ways: step (b) READs a marked root (its tree is a subtree
 * now) and retries on the new tree; a DMax + 1 or Occ + 1 that returns a mark above the request's
 * generation (line 33: the scale-up read that node first, so the count was not carried) aborts and
 * retries; anything else was carried and proceeds. A release (or abort) that pays DCnt + 1 on a
 * node, or vacates one, whose returned mark shows that scale-ups carried it, pays DCnt + 1 on
 * their new nodes too (Algorithm 3 lines 10–12, {@link TreeReleaser#payCarried}). A grant releases
 * in the configuration it was taken in (old nodes keep their place).
 *
 * <p><b>Deviations from the paper.</b> The Exp flag is a 3-bit mark (the generation, at most 7
 * scale-ups): with the paper's 1-bit flag set by MFAA, a node in the top m levels of two trees in
 * a row (any scale-up by fewer than m levels) has its flag flipped back by the second scale-up,
 * and a release cannot tell whether its count was carried. The carry goes into every node added
 * above the old root, not the paper's ancestors m, 2m, … levels up (for a step of fewer than m
 * levels there are none, and the old root's occupier, who notifies nobody, would be invisible to
 * an occupier of the new root). A release follows the marks assuming the marked levels (the
 * largest m in use) do not change between scale-ups: with a {@link CitronTuning}, change m only
 * while the tree does not scale.
 *
 * <p><b>A scaler that crashes</b> between its marks and its publication leaves a marked root:
 * requests retry until a poller takes the spillover mutex over (lease) and redoes the scale-up
 * with a large DMax margin ({@link #INTERRUPTED_MARGIN}): occupiers of the new top nodes wait for
 * a DCnt reset (h lease units), never pass early.
 *
 * <p><b>Scale-down</b> ({@link #scaleDown}) stays blocking: it drains the tree by locking its
 * root, clears the kept tree's marks, publishes and retires the old root.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class TreeScaler {
    /**
     * DMax added to every carry target when a scale-up finds the one before it interrupted (the old
     * root already carries this generation's mark: its scaler died between its marks and its
     * publication, and the spillover mutex was taken over). What that scaler's marks did is
     * unknown: a holder may since have paid a carried count into a region no carry reached, and
     * the counts are carried again. DMax that far above DCnt makes every occupier of the new nodes
     * wait until it resets DCnt = DMax as a dead client's (h lease units, §3.10 line 36), by which
     * time every payment is made or skipped as too late ({@link TreeReleaser}): a wait, never an
     * early pass (2^13 exceeds the payments any number of live clients can make).
     */
    static final int INTERRUPTED_MARGIN = 1 << 13;

    private final ClientContext ctx;
    private final Table table;
    private final SpilloverMutex spillover;
    private final TreeLocker locker;
    private final TreeReleaser releaser;
    private final long maximizerAddress;
    private long lastScaleUpNs;
    /** Scale-ups this client completed for a scaler that died between its marks and its publication. */
    private long interruptedScaleUps;
    private long scaleUps;
    private long scaleDowns;

    TreeScaler(ClientContext ctx, Table table, SpilloverMutex spillover, TreeLocker locker, TreeReleaser releaser,
               long maximizerAddress) {
        this.ctx = ctx;
        this.table = table;
        this.spillover = spillover;
        this.locker = locker;
        this.releaser = releaser;
        this.maximizerAddress = maximizerAddress;
    }

    /**
     * The poller's check (one round trip): READs the maximizer and the configuration word; installs
     * a newer configuration; returns whether a request reached past the tree.
     */
    boolean scaleUpWanted() {
        Batch b = new Batch();
        int mi = b.read8(maximizerAddress);
        int ci = b.read8(ctx.config.wordAddress());
        ctx.qp.execute(b);
        ctx.config.refresh(b.longResult(ci));
        return b.longResult(mi) > ctx.config.layout().units();
    }

    /**
     * Algorithm 4. Takes the spillover mutex (line 2: one scaler at a time; requests past N wait
     * behind it), READs the maximizer again (someone may have scaled), then:
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
     * ({@link TreeReleaser#payCarried}); one that updated a node after its mark sees the mark in the
     * verb's result and aborts (its counts were not carried), as does one that READs the old root's
     * mark in step (b). Cost: one rpc, one round trip of marks (85 masked CASes for m = 4) and one
     * round trip of carries and publication, under the spillover mutex.
     *
     * <p>With {@code stopAfterMarks} (tests only) it stops right after its marks and keeps the
     * spillover mutex, as a scaler that crashes there.
     */
    void scaleUp(boolean stopAfterMarks) {
        long word = spillover.acquire(0, ctx.config.wordAddress());
        boolean released = false;
        try {
            ctx.config.refresh(word);
            long max = ctx.qp.read8(maximizerAddress);
            int[] grown = grownLevels(max);
            if (grown == null) {
                Batch b = new Batch();
                if (max != 0 && max <= ctx.config.layout().units()) {
                    b.write8(maximizerAddress, 0); // stale: already covered
                }
                spillover.release(b);
                released = true;
                ctx.qp.execute(b);
                return;
            }
            long began = ctx.clock.nanoTime();
            CitronTree cur = ctx.config.current();
            long[] bases = Arrays.copyOf(cur.bases(), grown.length);
            bases[grown.length - 1] = CitronService.allocated(ctx.qp.rpc(table.service(),
                    CitronService.allocateRequest(grown, cur.bases())));
            var grownTree = new CitronTree(grown, bases);
            Batch marks = mark(cur, grownTree.generation());
            if (stopAfterMarks) {
                released = true; // "crashed": the mutex stays held until a waiter takes it over
                return;
            }
            long carry = carry(marks, cur.generation());
            released = true; // the publication batch releases the mutex
            publish(grownTree, carry);
            scaleUps++;
            lastScaleUpNs = ctx.clock.nanoTime() - began;
            ctx.config.refresh();
        } finally {
            if (!released) {
                Batch b = new Batch();
                spillover.release(b);
                ctx.qp.execute(b);
            }
        }
    }

    /**
     * The levels of every generation after a scale-up that covers {@code max} (one new generation,
     * grown by scale-factor steps), or null if there is nothing to do: the tree covers it already,
     * cannot grow, or has had its last generation.
     */
    private int[] grownLevels(long max) {
        int[] levels = ctx.config.current().levels();
        int top = levels[levels.length - 1];
        int next = top;
        while (CitronTree.unitsOf(next) < max && next + ctx.p.scaleLevels() <= CitronLayout.MAX_LEVELS) {
            next += ctx.p.scaleLevels();
        }
        if (max <= ctx.config.layout().units() || next == top || levels.length > CitronTree.MAX_GENERATIONS) {
            return null;
        }
        int[] grown = Arrays.copyOf(levels, levels.length + 1);
        grown[levels.length] = next;
        return grown;
    }

    /**
     * Lines 4–5: one batch writes generation {@code g} into the Exp mark of every internal node of
     * {@code cur}'s top levels, root first; each result is the node's word as its mark landed.
     */
    private Batch mark(CitronTree cur, int g) {
        long lastMarked = CitronLayout.levelStart(Math.min(markLevels(), cur.layout().leafLevel())) - 1;
        Batch marks = new Batch();
        for (long y = CitronLayout.ROOT; y <= lastMarked; y++) {
            marks.maskedCas(cur.address(y), 0, 0, CitronLayout.markOf(g), CitronLayout.EXP_FIELD);
        }
        ctx.qp.execute(marks);
        return marks;
    }

    /**
     * Lines 7–8: the MFAA operand that carries the marked nodes' counts ({@code marks}' results)
     * into the new nodes: ΣDCnt, and Σ(DMax + Occ) (an Occ counts as DMax + 1), plus
     * {@link #INTERRUPTED_MARGIN} if a scaler of this generation marked before us.
     */
    private long carry(Batch marks, int g) {
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
        return ((dcnt & CitronLayout.COUNTER_MASK) << CitronLayout.DCNT_SHIFT)
                | ((dmax & CitronLayout.COUNTER_MASK) << CitronLayout.DMAX_SHIFT);
    }

    /**
     * Lines 7–11 in one batch, in this order on one queue pair so that the carries land before the
     * publication: {@code carry} into every new node above the old root, the configuration word,
     * the maximizer cleared, the spillover mutex released.
     */
    private void publish(CitronTree grown, long carry) {
        Batch b = new Batch();
        for (long t : carryTargets(grown)) {
            b.maskedFaa(grown.address(t), carry, CitronLayout.BOUNDARY_MASK);
        }
        b.write8(ctx.config.wordAddress(), CitronTree.encode(grown.levels()));
        b.write8(maximizerAddress, 0);
        spillover.release(b);
        ctx.qp.execute(b);
    }

    /**
     * Levels of a tree whose internal nodes a scale-up marks and carries: every request's highest
     * notified node lies in the top m levels (§3.5.5's stand-in rule), so the largest m in use.
     */
    private int markLevels() {
        int m = ctx.p.m();
        if (ctx.p.tuning() != null) {
            m = Math.max(m, ctx.p.tuning().current().m());
            var proposed = ctx.p.tuning().proposed();
            if (proposed != null) {
                m = Math.max(m, proposed.m());
            }
        }
        return m;
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
     */
    void scaleDown(long units) {
        long word = spillover.acquire(0, ctx.config.wordAddress());
        boolean released = false;
        try {
            ctx.config.refresh(word);
            int keep = keptGeneration(units);
            Attempt drained = locker.lock(0, ctx.config.layout().units());
            CitronTree cur = ctx.config.current();
            CitronTree kept = cur.upTo(keep);
            Batch b = new Batch();
            long lastMarked = CitronLayout.levelStart(Math.min(markLevels(), kept.layout().leafLevel())) - 1;
            for (long y = CitronLayout.ROOT; y <= lastMarked; y++) {
                b.maskedCas(kept.address(y), 0, 0, 0, CitronLayout.EXP_FIELD);
            }
            b.write8(ctx.config.wordAddress(), kept.word());
            b.maskedCas(cur.address(CitronLayout.ROOT), 0, 0, CitronLayout.markOf(CitronLayout.MAX_MARK),
                    CitronLayout.EXP_FIELD);
            for (HeldNode h : drained.held) {
                releaser.add(b, h, true, null); // in the retired tree: nothing to follow
            }
            spillover.release(b);
            released = true;
            ctx.qp.execute(b);
            scaleDowns++;
            ctx.config.refresh();
        } finally {
            if (!released) {
                Batch b = new Batch();
                spillover.release(b);
                ctx.qp.execute(b);
            }
        }
    }

    /** The last earlier generation of the current tree that covers exactly {@code units}. */
    private int keptGeneration(long units) {
        int[] levels = ctx.config.current().levels();
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
        return keep;
    }

    /** Scale-ups this client performed (not its poller's). */
    long scaleUps() {
        return scaleUps;
    }

    /** Scale-downs this client performed. */
    long scaleDowns() {
        return scaleDowns;
    }

    /** Scale-ups this client completed after another scaler's crash (see {@link #INTERRUPTED_MARGIN}). */
    long interruptedScaleUps() {
        return interruptedScaleUps;
    }

    /** Virtual or real nanoseconds the last scale-up of this client took, from its allocation rpc to publication. */
    long lastScaleUpNs() {
        return lastScaleUpNs;
    }
}
