package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Batch;
import io.lockfabric.lock.citron.CitronProfile.Phase;

import java.util.Arrays;
import java.util.List;

/**
 * Step 2 of a CITRON acquisition on one tree node (FAST'23 §3.5.2–§3.5.5, Algorithm 2 lines
 * 8–37, {@code LOCKNODE}), with the fast path of §3.8. One call is one pass of steps (a)–(d);
 * {@link TreeLocker} repeats it until ACQUIRED.
 *
 * <ol type="a">
 * <li>Internal node (lines 9–11): MFAA {TMax + 1} takes a bakery ticket; READ until TCnt reaches
 * it ({@link NodeWaits#waitTicket}). A leaf is not locked here: a crashed leaf holder could not
 * be recovered from (§3.5.2).</li>
 * <li>Lines 12–19: READ every ancestor (one batch, posted at {@code t1}); abort if the root has
 * Exp (line 15, a scale-up); if some ancestor is occupied, READ the lowest occupied one until its
 * Occ clears ({@link NodeWaits#waitVacated}), then read them all again (a fresh {@code t1} for
 * every ancestor).</li>
 * <li>Lines 20–28: leaf: MCAS the requested bits of its 64-bit bitmap from 0 (no false conflicts
 * inside a leaf; failure: back to (b); failing for {@code starve-ns}: give the leaf up for its
 * parent's bakery lock, line 24); internal: MFAA {Occ + 1} at {@code t0}.</li>
 * <li>Lines 29–36: MFAA {DMax + 1} on the parent and every m-th ancestor above it (levels above
 * m − 1 are replaced by the level-(m − 1) ancestor, which every occupier in the top levels checks),
 * batched with the root READ of line 31, done at {@code t2}; abort if
 * {@code t2 − t1 > (1 − δ) T_wait / (1 + δ)} (Inequation (1): the occupier above might have missed
 * the notification) or if a DMax + 1 or the Occ + 1 returned a newer generation's Exp mark (line
 * 33 made exact: a scale-up read that node first, so the count was not carried; see
 * {@link TreeScaler}). An internal node sleeps until {@code t0 + T_wait} and READs itself and its
 * internal descendants within m levels until each has DCnt = DMax
 * ({@link NodeWaits#waitDescendants}). Meet in the middle: a request below notifies every m-th
 * ancestor, an occupier checks m levels down, so the occupier checks a node the request notified,
 * and T_wait with Inequation (1) makes the notification land before the check.</li>
 * </ol>
 * An abort releases what the node took ({@link TreeReleaser}); {@link TreeLocker} retries it after
 * a randomized backoff. T_wait must exceed the round trips from t1 to t2, two on the fast path and
 * three off it, or every attempt aborts.
 *
 * <p><b>Fast path</b> (§3.8, option {@code fast-path}): (a)+(b) and (c)+(d) are posted as one
 * batch each (RDMA does not reorder a verb before earlier writes and atomics on one queue pair; a
 * failed leaf MCAS rolls its notifications back with DCnt + 1), and a node whose children are
 * leaves also MCASes all 256 child bits from 0: if all four succeed it skips the wait (nothing
 * below can be held), else it gives back the children it set. Best case two round trips.
 *
 * <p>Every node acquisition takes a fencing token ({@link FencingCounter}) in the batch that
 * completes it, or after the descendant check in a round trip of its own.
 *
 * <p><b>(m, T_wait) at run time</b>: with a {@link CitronTuning}, each pass takes its parameters
 * from it when it begins ({@link ClientContext#eff}).
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class NodeLocker {
    /** How one pass over a node ended. */
    enum Outcome { ACQUIRED, ABORTED, ESCALATE }

    private final ClientContext ctx;
    private final NodeWaits waits;
    private final TreeReleaser releaser;
    private final HoldWait holdWait;
    /** This client's part in a run-time (m, T_wait) change; null without a {@link CitronTuning}. */
    private final CitronTuning.Participant tuning;
    private final FencingCounter fencing;
    private long retries;
    private long timingAborts;
    private long escalations;
    private long ancestorEscalations;

    /** One pass of steps (a)–(d) over node {@code x} for [l, r): what the steps hand on to each other. */
    private static final class Pass {
        final long x;
        final boolean leaf;
        final long addr;
        /** Ancestors, parent first, root last. */
        final long[] anc;
        /** Their words as last READ in step (b) (or batched with the ticket); null: read them again. */
        long[] ancWords;
        /** When the last ancestor READ was posted (Inequation (1)). */
        long t1;
        /** Step (a)'s ticket (−1 for a leaf). */
        int ticket = -1;
        /** When our turn came (step (a) done). */
        long turnAt;
        /** The node's word last seen in step (a): for the root, its Exp mark. */
        long turnWord;
        /** The leaf bits of [l, r) (0 for an internal node). */
        long leafMask;
        /** When the leaf MCAS first failed in this pass (−1: not yet). */
        long firstCasFailure = -1;

        Pass(long x, boolean leaf, long addr, long[] anc) {
            this.x = x;
            this.leaf = leaf;
            this.addr = addr;
            this.anc = anc;
        }
    }

    NodeLocker(ClientContext ctx, NodeWaits waits, TreeReleaser releaser, HoldWait holdWait,
               CitronTuning.Participant tuning, FencingCounter fencing) {
        this.ctx = ctx;
        this.waits = waits;
        this.releaser = releaser;
        this.holdWait = holdWait;
        this.tuning = tuning;
        this.fencing = fencing;
    }

    /**
     * One pass of steps (a)–(d) on {@code x} for [l, r), with the (m, T_wait) of the moment. On
     * ACQUIRED the node is {@code a.acquired} and its token {@code a.token}; on ESCALATE the node
     * to lock instead is {@code a.escalateTo}.
     *
     * @throws ConfigChanged if the pass met a scale-up (it gave back what it took)
     */
    Outcome lock(long x, long l, long r, Attempt a) {
        Outcome o;
        if (tuning == null) {
            o = pass(x, l, r, a);
        } else {
            ctx.eff = tuning.begin();
            try {
                o = pass(x, l, r, a);
            } finally {
                tuning.end();
            }
        }
        if (o == Outcome.ACQUIRED) {
            a.recovering = false;
        }
        return o;
    }

    private Outcome pass(long x, long l, long r, Attempt a) {
        ctx.profile.nodeAttempts++;
        CitronLayout tree = ctx.config.layout();
        var n = new Pass(x, tree.isLeaf(x), ctx.config.address(x), ancestors(x));
        if (!n.leaf) {
            Outcome o = takeTurn(n, a);
            if (o != null) {
                return o;
            }
        }
        n.leafMask = n.leaf ? tree.leafMask(x, l, r) : 0;
        while (true) {
            Outcome o = clearAncestors(n, a);
            if (o != null) {
                return o;
            }
            long[] notify = notifySet(x);
            ctx.enter(Phase.LOCK);
            if (!n.leaf) {
                return occupy(n, a, notify);
            }
            o = lockLeaf(n, a, notify);
            if (o != null) {
                return o;
            }
            // the leaf MCAS failed: back to (b)
        }
    }

    // ------------------------------------------------------------------ step (a), lines 9-11

    /** Step (a): a ticket and our turn at internal node {@code n.x}. Null when served; ABORTED if the ticket went void. */
    private Outcome takeTurn(Pass n, Attempt a) {
        ctx.enter(Phase.TICKET);
        Batch b = new Batch();
        int ti = b.maskedFaa(n.addr, CitronLayout.ONE_TMAX, CitronLayout.BOUNDARY_MASK);
        int first = -1;
        if (ctx.p.fastPath()) { // (a)+(b) optimistically in one batch
            for (long y : n.anc) {
                int idx = b.read8(ctx.config.address(y));
                first = first < 0 ? idx : first;
            }
        }
        long posted = ctx.clock.nanoTime();
        ctx.qp.execute(b);
        long old = b.longResult(ti);
        n.ticket = CitronLayout.tmax(old);
        n.turnWord = old;
        if (CitronLayout.tcnt(old) == n.ticket && ctx.p.fastPath()) {
            n.ancWords = new long[n.anc.length];
            for (int i = 0; i < n.anc.length; i++) {
                n.ancWords[i] = b.longResult(first + i);
            }
            n.t1 = posted;
        } else {
            NodeWaits.TurnWait t = waits.waitTicket(n.x, n.addr, n.ticket, old, a);
            n.turnWord = t.word();
            if (t.turn() == NodeWaits.Turn.SKIPPED) {
                return Outcome.ABORTED; // nothing to hand back: take a new ticket
            }
            a.recovering |= t.turn() == NodeWaits.Turn.RESET;
        }
        n.turnAt = ctx.clock.nanoTime();
        return null;
    }

    // ------------------------------------------------------------------ step (b), lines 12-19

    /**
     * Step (b): READ the ancestors until none is occupied (null), waiting at the lowest occupied
     * one each time. ABORTED if our own turn lasted too long; ESCALATE to a stuck occupier's node.
     *
     * @throws ConfigChanged if the root has an Exp mark (line 15)
     */
    private Outcome clearAncestors(Pass n, Attempt a) {
        while (true) {
            ctx.enter(Phase.ANCESTORS);
            if (n.ancWords == null) {
                readAncestors(n);
            }
            // The root's Exp: a scale-up made this tree a subtree (x itself if it is the root).
            long rootWord = n.anc.length > 0 ? n.ancWords[n.anc.length - 1] : n.turnWord;
            if (CitronLayout.expanded(rootWord)) {
                if (!n.leaf) {
                    handTurnOn(n.addr, n.ticket);
                }
                throw new ConfigChanged();
            }
            int occ = lowestOccupied(n.ancWords);
            if (occ < 0) {
                return null;
            }
            if (!a.held.isEmpty() && a.coversHeld(n.anc[occ], ctx.config.layout())) {
                holdWait.giveUp(a); // that occupier waits for a node we hold
            }
            NodeWaits.Vacated v = waits.waitVacated(n.anc[occ], a, n.leaf ? -1 : n.turnAt);
            if (v == NodeWaits.Vacated.VACATED) {
                n.ancWords = null; // line 19: read them again (a fresh t1)
                continue;
            }
            if (!n.leaf) {
                handTurnOn(n.addr, n.ticket);
            }
            if (v == NodeWaits.Vacated.TURN_TOO_LONG) {
                return Outcome.ABORTED;
            }
            // §3.10 line 18: the occupier may have crashed; lock its node instead (a ticket
            // there reduces to the ticket wait and its reset).
            ancestorEscalations++;
            a.escalateTo = n.anc[occ];
            return Outcome.ESCALATE;
        }
    }

    /** Line 14: one batch of READs of every ancestor, posted at {@code t1}. */
    private void readAncestors(Pass n) {
        Batch b = new Batch();
        for (long y : n.anc) {
            b.read8(ctx.config.address(y));
        }
        n.t1 = ctx.clock.nanoTime();
        if (b.size() > 0) {
            ctx.qp.execute(b);
        }
        ctx.profile.ancestorReadNs += ctx.clock.nanoTime() - n.t1;
        n.ancWords = new long[n.anc.length];
        for (int i = 0; i < n.anc.length; i++) {
            n.ancWords[i] = b.longResult(i);
        }
    }

    // ------------------------------------------------------------------ steps (c)+(d) on a leaf

    /**
     * Steps (c)+(d) on a leaf: MCAS the bits of [l, r), notify, take the token. Null if the MCAS
     * failed and step (b) must be done again.
     */
    private Outcome lockLeaf(Pass n, Attempt a, long[] notify) {
        long mask = n.leafMask;
        Batch b = new Batch();
        int ci = b.maskedCas(n.addr, 0, mask, mask, mask);
        int ni = -1;
        int fi = -1;
        if (ctx.p.fastPath()) {
            ni = addNotify(b, notify);
            addRootRead(b, notify);
            fi = fencing.add(b); // after the MCAS: not reordered before it
        }
        ctx.qp.execute(b);
        if ((b.longResult(ci) & mask) != 0) {
            return leafBusy(n, a, notify, b, ni);
        }
        if (!ctx.p.fastPath()) {
            b = new Batch();
            ni = addNotify(b, notify);
            addRootRead(b, notify);
            fi = fencing.add(b);
            ctx.qp.execute(b);
        }
        long t2 = ctx.clock.nanoTime();
        var h = new HeldNode(n.x, mask, notify, false, ctx.config.current(), -1, t2, -1,
                notifiedBases(b, ni, notify.length));
        if (notMarked(h) && !(notify.length > 0 && tooLate(n.t1, t2))) {
            a.acquired = h;
            a.token = FencingCounter.tokenOf(b, fi);
            ctx.profile.nodesAcquired++;
            return Outcome.ACQUIRED;
        }
        return abort(h);
    }

    /**
     * Line 22 failed (some requested bit is set): roll the fast path's notifications back, then go
     * back to step (b) (null) after a poll, or, starved, up to the parent (line 24).
     */
    private Outcome leafBusy(Pass n, Attempt a, long[] notify, Batch b, int ni) {
        retries++;
        ctx.profile.leafCasFailures++;
        ctx.enter(Phase.LEAF_RETRY);
        if (ctx.p.fastPath() && notify.length > 0) {
            // roll the notifications back (and any a scale-up carried meanwhile)
            releaser.releaseNow(List.of(new HeldNode(n.x, 0, notify, false, ctx.config.current(), -1,
                    ctx.clock.nanoTime(), -1, notifiedBases(b, ni, notify.length))), false);
        }
        long now = ctx.clock.nanoTime();
        n.firstCasFailure = n.firstCasFailure < 0 ? now : n.firstCasFailure;
        if (now - n.firstCasFailure >= starveNs()) {
            // Starvation, or (§3.10 line 22) bits of a crashed holder: the parent's
            // bakery lock settles both (stale bits are cleared once it is held).
            escalations++;
            a.escalateTo = CitronLayout.parent(n.x);
            return Outcome.ESCALATE;
        }
        holdWait.check(a);
        ctx.clock.sleepNanos(ctx.p.pollNs());
        n.ancWords = null;
        return null;
    }

    // ------------------------------------------------------------------ steps (c)+(d) on an internal node

    /**
     * Steps (c)+(d) on an internal node: MFAA {Occ + 1} at t0, notify, and (fast path, leaf parent)
     * MCAS the 256 child bits; then, unless the children were all taken, wait T_wait and check
     * the descendants.
     */
    private Outcome occupy(Pass n, Attempt a, long[] notify) {
        CitronLayout tree = ctx.config.layout();
        CitronTree cur = ctx.config.current();
        boolean childrenAreLeaves = tree.level(n.x) == tree.leafLevel() - 1;
        boolean lockChildren = ctx.p.fastPath() && childrenAreLeaves;
        Batch b = new Batch();
        b.maskedFaa(n.addr, CitronLayout.OCC_BIT, CitronLayout.BOUNDARY_MASK);
        int ni = -1;
        int kids = -1;
        int fi = -1;
        if (ctx.p.fastPath()) {
            ni = addNotify(b, notify);
            addRootRead(b, notify);
            if (lockChildren) {
                kids = addChildLocks(b, n.x);
                fi = fencing.add(b); // used only if all four children were free
            }
        }
        ctx.qp.execute(b);
        long t0 = ctx.clock.nanoTime();
        long occWord = b.longResult(0); // its Exp mark: did a scale-up read x before our Occ?
        Batch notified = b;
        if (!ctx.p.fastPath() && notify.length > 0) {
            notified = new Batch();
            ni = addNotify(notified, notify);
            addRootRead(notified, notify);
            ctx.qp.execute(notified);
        }
        long t2 = ctx.clock.nanoTime();
        boolean childrenLocked = lockChildren && keepChildLocks(n.x, b, kids);
        // Leaf bits under x may be stale: x was reached by recovery, or a child was busy (in use
        // now, or left by a crashed holder).
        boolean staleChildren = lockChildren && !childrenLocked ? ctx.p.leases() : a.recovering && childrenAreLeaves;
        var h = new HeldNode(n.x, 0, notify, childrenLocked, cur, n.ticket, t2,
                Math.max(cur.generation(), CitronLayout.expMark(occWord)), notifiedBases(notified, ni, notify.length));
        if (!notMarked(h) || (notify.length > 0 && tooLate(n.t1, t2))) {
            return abort(h);
        }
        a.acquired = h;
        if (childrenLocked) {
            a.token = FencingCounter.tokenOf(b, fi);
            ctx.profile.nodesAcquired++;
            return Outcome.ACQUIRED; // nothing below can be held: skip the wait
        }
        return awaitDescendants(n, a, t0, staleChildren);
    }

    /**
     * The fast path's four child MCASes at {@code kids} in {@code b}: true if all four children
     * were free; otherwise gives back the ones it set.
     */
    private boolean keepChildLocks(long x, Batch b, int kids) {
        boolean all = true;
        Batch undo = new Batch();
        for (int i = 0; i < CitronLayout.FANOUT; i++) {
            if (b.longResult(kids + i) == 0) {
                addClearLeaf(undo, CitronLayout.child(x, i));
            } else {
                all = false;
            }
        }
        if (!all) {
            ctx.profile.childLockFailures++;
            if (undo.size() > 0) {
                retries++;
                ctx.qp.execute(undo); // some child is in use: give back the ones we set
            }
        }
        return all;
    }

    /** Lines 34–36 for occupied node {@code n.x}: sleep until t0 + T_wait, check the descendants, take the token. */
    private Outcome awaitDescendants(Pass n, Attempt a, long t0, boolean staleChildren) {
        ctx.enter(Phase.T_WAIT);
        long wake = t0 + ctx.eff.waitTNs();
        for (long now = ctx.clock.nanoTime(); now < wake; now = ctx.clock.nanoTime()) {
            ctx.clock.sleepNanos(wake - now);
        }
        ctx.enter(Phase.DESCENDANTS);
        waits.waitDescendants(n.x, a);
        if (staleChildren && ctx.p.leases()) {
            waits.clearStaleChildren(n.x, a);
        }
        ctx.enter(Phase.LOCK);
        // The token must follow the descendant check; a FAA behind a READ in one batch might
        // overtake it (only writes and atomics order later verbs), so it takes a round trip.
        a.token = fencing.take();
        ctx.profile.nodesAcquired++;
        return Outcome.ACQUIRED;
    }

    /** Gives back what an aborted pass took (line 32 or 33). */
    private Outcome abort(HeldNode h) {
        ctx.enter(Phase.BACKOFF);
        releaser.releaseNow(List.of(h));
        if (!notMarked(h)) {
            throw new ConfigChanged(); // a scale-up read a node before our update: retry on the new tree
        }
        return Outcome.ABORTED;
    }

    // ------------------------------------------------------------------ step (d)'s notifications and checks

    /**
     * The ancestors {@code x} notifies, lowest first: its parent, and every m-th ancestor above
     * the parent; one in the top m − 1 levels (other than the parent) is replaced by the ancestor
     * at level m − 1, which every occupier in the top levels checks (§3.5.5).
     */
    long[] notifySet(long x) {
        return notifySet(x, ctx.eff.notifyM());
    }

    long[] notifySet(long x, int m) {
        CitronLayout tree = ctx.config.layout();
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

    private int addNotify(Batch b, long[] notify) {
        int first = -1;
        for (long y : notify) {
            int idx = b.maskedFaa(ctx.config.address(y), CitronLayout.ONE_DMAX, CitronLayout.BOUNDARY_MASK);
            first = first < 0 ? idx : first;
        }
        return first;
    }

    /**
     * Algorithm 2 line 31's READ of the root behind the notifications, kept for the paper's verb
     * profile (the experiments compare verb counts). Its value decides nothing here: line 33's
     * test is made exact by the Exp marks the notifications return ({@link #notMarked}).
     */
    private void addRootRead(Batch b, long[] notify) {
        if (notify.length > 0) {
            b.read8(ctx.config.address(CitronLayout.ROOT));
        }
    }

    /** The fast path's MCASes of all 256 bits of leaf-parent {@code x}'s children: the index of the first. */
    private int addChildLocks(Batch b, long x) {
        int kids = -1;
        for (int i = 0; i < CitronLayout.FANOUT; i++) {
            int idx = b.maskedCas(ctx.config.address(CitronLayout.child(x, i)), 0, CitronLayout.ALL_UNITS,
                    CitronLayout.ALL_UNITS, CitronLayout.ALL_UNITS);
            kids = kids < 0 ? idx : kids;
        }
        return kids;
    }

    private void addClearLeaf(Batch b, long leaf) {
        b.maskedCas(ctx.config.address(leaf), CitronLayout.ALL_UNITS, CitronLayout.ALL_UNITS, 0,
                CitronLayout.ALL_UNITS);
    }

    /** Inequation (1): the notification may have landed after an occupier above stopped waiting. */
    private boolean tooLate(long t1, long t2) {
        // Alice's wait may run fast by δ on her clock while Bob's interval runs slow by δ on his.
        long budget = (long) Math.floor(ctx.eff.abortTNs() * (1 - ctx.p.drift()) / (1 + ctx.p.drift()));
        ctx.profile.spans++;
        ctx.profile.spanNs += t2 - t1;
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
    private static boolean notMarked(HeldNode h) {
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
            out[i] = Math.max(ctx.config.current().generation(), CitronLayout.expMark(b.longResult(first + i)));
        }
        return out;
    }

    // ------------------------------------------------------------------ turns and tree helpers

    /**
     * Gives our turn at {@code addr} to the next ticket without having occupied the node: TCnt + 1
     * if TCnt is still our ticket and Occ clear (a masked CAS, so that a waiter that reset the turn
     * past us is not skipped a second time).
     */
    private void handTurnOn(long addr, int ticket) {
        ctx.qp.maskedCas(addr, CitronLayout.turnOf(ticket), CitronLayout.TURN_FIELDS, CitronLayout.turnOf(ticket + 1),
                CitronLayout.TURN_FIELDS);
    }

    /** A starved leaf gives up for its parent after starve-ns; with leases, within half a lease. */
    private long starveNs() {
        return ctx.p.leases() ? Math.min(ctx.p.starveNs(), ctx.p.leaseNs() / 2) : ctx.p.starveNs();
    }

    /** Ancestors of {@code x}, parent first, root last. */
    private long[] ancestors(long x) {
        int level = ctx.config.layout().level(x);
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

    /** Failed leaf MCASes and fast-path child locks given back. */
    long retries() {
        return retries;
    }

    /** Node acquisitions aborted because a notification may have come too late (Inequation (1)). */
    long timingAborts() {
        return timingAborts;
    }

    /** Leaves given up for their parent's bakery lock (starvation avoidance, line 24). */
    long escalations() {
        return escalations;
    }

    /** Stuck occupied ancestors locked instead (§3.10 line 18). */
    long ancestorEscalations() {
        return ancestorEscalations;
    }
}
