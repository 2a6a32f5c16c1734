package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Batch;

import java.util.ArrayList;
import java.util.List;

/**
 * Release (FAST'23 §3.6, Algorithm 3): gives held tree nodes back in one batch, and follows the
 * counts a scale-up carried (Algorithm 3 lines 10–12). Used for grants ({@link CitronClient#release}),
 * for nodes an acquisition gives up (an abort, a yield, an escalation, an error), and for a failed
 * leaf MCAS's notifications on the fast path (§3.8: "roll back the notification ... by adding
 * DCnt").
 *
 * <p><b>One batch</b> (lines 2–9): a leaf MCAS clears its bits; an internal node's
 * {Occ − 1, TCnt + 1} is a masked CAS on our own turn (TCnt = our ticket, Occ set) instead of the
 * paper's MFAA: after a waiter took our turn over as a dead client's (§3.10 line 11) while we were
 * paused, a blind MFAA would clear the new turn holder's Occ and hand its turn on while it holds
 * (issue 6). The fast path's 256 child bits are cleared with it; every notified ancestor gets
 * DCnt + 1. The caller may add the spillover mutex's release to the same batch.
 *
 * <p><b>Late releases</b> (§3.10). A waiting occupier resets a descendant's DCnt to DMax once it
 * stayed unchanged for height lease units, taking its notifiers for dead. A live notifier paused
 * past that must not pay its DCnt + 1 afterwards: DCnt would end one above DMax, and every later
 * check would pass one request early (issue 6). So a release more than height(y) lease units
 * (less T_wait, drift-adjusted) after notifying y skips y's DCnt + 1 ({@link #mayHaveBeenReset});
 * if nobody had reset it, DCnt stays one behind until an occupier does (a delay, not an overlap).
 * Assumption left: a release posted before that bound lands within T_wait.
 *
 * <p><b>Carried counts</b> (lines 10–12, {@link #payCarried}). Every paying verb returns its
 * node's Exp mark; a mark above the generation the count was carried since means that scale-ups
 * carried it into their new nodes above the old root, and those get DCnt + 1 too (followed again
 * through their own marks). The configuration of a scale-up not yet published comes from the
 * table's service ({@link TreeConfig#at}).
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class TreeReleaser {
    /**
     * A count a release paid (DCnt + 1 on a notified node, or the vacate of an occupied one) that a
     * scale-up may have carried into new ancestors: {@code base} is the generation after which
     * scale-ups carry it, {@code index} the result of the paying verb, {@code vacated} the turn a
     * vacate expected (−1 for a DCnt + 1).
     */
    record Owed(int base, int index, long ageNs, long vacated) {
    }

    private final ClientContext ctx;
    /** Releases that skipped a DCnt + 1 older than a reset of it could be ({@link #mayHaveBeenReset}). */
    private long staleNotifications;
    /** DCnt + 1 paid on new ancestors for counts a scale-up carried ({@link #payCarried}). */
    private long carriedReleases;

    TreeReleaser(ClientContext ctx) {
        this.ctx = ctx;
    }

    /** Releases {@code held} now, nodes and notifications, following carries. */
    void releaseNow(List<HeldNode> held) {
        releaseNow(held, true);
    }

    /** Releases {@code held} now (their nodes too unless {@code nodes} is false), following carries. */
    void releaseNow(List<HeldNode> held, boolean nodes) {
        Batch b = new Batch();
        List<Owed> owed = new ArrayList<>();
        for (HeldNode h : held) {
            add(b, h, nodes, owed);
        }
        post(b, owed);
    }

    /** Posts {@code b} (if it has anything) and pays what scale-ups carried of its counts. */
    void post(Batch b, List<Owed> owed) {
        if (b.size() > 0) {
            ctx.qp.execute(b);
            payCarried(b, owed);
        }
    }

    /**
     * Adds the release of {@code h} to {@code b}: its node ({@code nodes}; else only its
     * notifications, as when a leaf's failed MCAS rolls them back) and its notifications. Each
     * paid count a scale-up may have carried goes on {@code owed} (null: none is followed, for a
     * drained tree) for {@link #payCarried}.
     */
    void add(Batch b, HeldNode h, boolean nodes, List<Owed> owed) {
        CitronTree at = h.cfg(); // the configuration it was taken in: indices are relative to it
        long addr = at.address(h.node());
        long age = ctx.clock.nanoTime() - h.notifiedAt();
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
    void payCarried(Batch paid, List<Owed> owed) {
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
                    CitronTree to = ctx.config.at(g + 1);
                    if (to == null) {
                        break; // no such generation (a dropped tree's retired root): nothing was carried
                    }
                    for (long t : TreeScaler.carryTargets(to)) {
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
            ctx.qp.execute(b);
            carriedReleases += b.size();
            done = b;
            pending = next;
        }
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
        if (!ctx.p.leases()) {
            return false;
        }
        double resetAfter = at.layout().height(y) * (double) ctx.leaseUnitNs() * (1 - ctx.p.drift())
                / (1 + ctx.p.drift());
        return ageNs > resetAfter - Math.max(ctx.p.tWaitNs(), ctx.eff.waitTNs());
    }

    /** Notifications released too late to be counted. */
    long staleNotifications() {
        return staleNotifications;
    }

    /** DCnt + 1 this client paid on new ancestors for counts that scale-ups carried. */
    long carriedReleases() {
        return carriedReleases;
    }
}
