package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Verb;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The places where Algorithm 2 spins on the memory node, and their lazy lease recovery (FAST'23
 * §3.10, option {@code lease-ns} = L). Every wait polls one READ per {@code poll-ns} and checks
 * the request's hold-wait bound ({@link HoldWait}) between polls.
 *
 * <ul>
 * <li><b>Line 11</b>, step (a)'s ticket wait ({@link #waitTicket}): a waiter that sees TCnt and
 * Occ unchanged for Δ·(h + 2)·U (Δ tickets ahead, h the node's height) sets TCnt to its ticket and
 * clears Occ with one masked CAS against what it saw. A waiter whose ticket TCnt has passed (a
 * holder paused past its lease vacated after a takeover) takes a new ticket.</li>
 * <li><b>Line 18</b>, step (b)'s wait for an occupied ancestor ({@link #waitVacated}): an
 * ancestor whose TCnt and Occ stay unchanged for L is locked instead (always safe: it queues for
 * a ticket there). An internal node's turn holder that waits 1.5 L here hands its turn on, so
 * that nobody mistakes it for dead.</li>
 * <li><b>Line 36</b>, step (d)'s descendant check ({@link #waitDescendants}): a descendant whose
 * DCnt/DMax stay unchanged for h·U gets DCnt = DMax (masked CAS).</li>
 * <li><b>Line 22</b>, a leaf whose MCAS keeps failing for min(starve-ns, L/2) is given up for its
 * parent ({@link NodeLocker}); the parent, once held after a recovery or escalation, READs its
 * four leaf children and zeroes any whose word stays unchanged for U ({@link #clearStaleChildren}).</li>
 * </ul>
 * U = L + hold-wait + T_wait is the lease unit ({@link ClientContext#leaseUnitNs}). Our bounds are
 * the paper's (T_lease, H·T_lease) widened to cover what a <em>live</em> client may legitimately
 * spend: an occupier waits for its descendants before its hold begins, and a multi-node request
 * holds earlier nodes up to hold-wait (at most L/4). The spillover mutex resets a stuck nX the
 * same way ({@link SpilloverMutex}). Holders paused past their lease break the protocol's
 * assumption; fencing tokens are the guard, and their late releases are kept from breaking it for
 * anyone else ({@link TreeReleaser}).
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class NodeWaits {
    /** How a ticket wait ended: our turn came, we took a stuck turn over, or TCnt passed our ticket. */
    enum Turn { SERVED, RESET, SKIPPED }

    /**
     * A ticket wait's end and the node's word last seen in it (for the root: its Exp mark, which
     * shows whether its tree was scaled up).
     */
    record TurnWait(Turn turn, long word) {
    }

    /** How a wait for an occupied ancestor ended. */
    enum Vacated { VACATED, ANCESTOR_STUCK, TURN_TOO_LONG }

    private final ClientContext ctx;
    private final HoldWait holdWait;
    private long ticketResets;
    private long descendantResets;
    private long leafClears;

    NodeWaits(ClientContext ctx, HoldWait holdWait) {
        this.ctx = ctx;
        this.holdWait = holdWait;
    }

    /**
     * Step (a)'s wait for TCnt to reach {@code ticket} (line 11). With leases: if TCnt and Occ stay
     * unchanged for Δ lease units × (height + 2), Δ the tickets ahead of ours, the turn is taken
     * over: a masked CAS sets TCnt to our ticket and clears Occ if they are still as seen. If TCnt
     * ever passes our ticket (a holder paused past its lease vacated a turn that had been taken
     * over), the ticket is void: SKIPPED, and the caller takes a new one.
     */
    TurnWait waitTicket(long x, long addr, int ticket, long seen, Attempt a) {
        long w = seen;
        long state = w & CitronLayout.TURN_FIELDS;
        long since = ctx.clock.nanoTime();
        // A live turn holder changes TCnt or Occ within: 1.5 leases in step (b) (then it hands the
        // turn on), or once Occ is set, T_wait + its descendant check (height units) + a leaf
        // parent's clear of stale leaf bits (one unit) + its hold.
        long stall = (ctx.config.layout().height(x) + 2) * ctx.leaseUnitNs();
        while (CitronLayout.tcnt(w) != ticket) {
            holdWait.check(a);
            ctx.clock.sleepNanos(ctx.p.pollNs());
            w = ctx.qp.read8(addr);
            long now = ctx.clock.nanoTime();
            if ((w & CitronLayout.TURN_FIELDS) != state) {
                state = w & CitronLayout.TURN_FIELDS;
                since = now;
                continue;
            }
            if (!ctx.p.leases() || CitronLayout.tcnt(w) == ticket) {
                continue;
            }
            long gap = (ticket - CitronLayout.tcnt(w)) & CitronLayout.COUNTER_MASK;
            if (gap >= ((CitronLayout.tmax(w) - CitronLayout.tcnt(w)) & CitronLayout.COUNTER_MASK)) {
                return new TurnWait(Turn.SKIPPED, w); // our ticket is not in [TCnt, TMax) any more
            }
            if (now - since >= gap * stall) {
                long old = ctx.qp.maskedCas(addr, state, CitronLayout.TURN_FIELDS, CitronLayout.turnOf(ticket),
                        CitronLayout.TURN_FIELDS);
                if ((old & CitronLayout.TURN_FIELDS) == state) {
                    ticketResets++;
                    return new TurnWait(Turn.RESET, old);
                }
                w = old;
                state = old & CitronLayout.TURN_FIELDS;
                since = ctx.clock.nanoTime();
            }
        }
        return new TurnWait(Turn.SERVED, w);
    }

    /**
     * Step (b)'s wait for ancestor {@code y} to be vacated (line 18). With leases: y's TCnt and Occ
     * unchanged for a lease ⇒ ANCESTOR_STUCK (lock y instead, safe even if its occupier is alive);
     * our own turn at an internal node (since {@code turnAt}, −1 for a leaf) lasting 1.5 leases ⇒
     * TURN_TOO_LONG, so that waiters behind us never take a live turn for a dead one.
     */
    Vacated waitVacated(long y, Attempt a, long turnAt) {
        long addr = ctx.config.address(y);
        long state = -1;
        long since = ctx.clock.nanoTime();
        while (true) {
            holdWait.check(a);
            ctx.clock.sleepNanos(ctx.p.pollNs());
            long w = ctx.qp.read8(addr);
            if (!CitronLayout.occupied(w)) {
                return Vacated.VACATED;
            }
            if (!ctx.p.leases()) {
                continue;
            }
            long now = ctx.clock.nanoTime();
            if ((w & CitronLayout.TURN_FIELDS) != state) {
                state = w & CitronLayout.TURN_FIELDS;
                since = now;
            } else if (now - since >= ctx.p.leaseNs()) {
                return Vacated.ANCESTOR_STUCK;
            }
            if (turnAt >= 0 && now - turnAt >= ctx.p.leaseNs() + ctx.p.leaseNs() / 2) {
                return Vacated.TURN_TOO_LONG;
            }
        }
    }

    /**
     * Step (d)'s check (lines 35–36): {@code x} and its internal descendants within m levels have
     * DCnt = DMax. One READ per level and round trip (they are contiguous per level; up to
     * m(m+1)/2 after scale-ups, §3.9.1), re-reading each level from its first node not done. With
     * leases (line 36): a node whose DCnt and DMax stay unchanged for height lease units gets
     * DCnt = DMax (a masked CAS against what was seen): every live notifier below it releases
     * within that time.
     */
    void waitDescendants(long x, Attempt a) {
        CitronLayout tree = ctx.config.layout();
        int level = tree.level(x);
        int lastLevel = Math.min(level + ctx.eff.checkM() - 1, tree.leafLevel() - 1);
        List<long[]> pending = new ArrayList<>(); // {first node, count}
        for (int d = level; d <= lastLevel; d++) {
            pending.add(new long[] {CitronLayout.firstDescendant(x, d - level), CitronLayout.levelWidth(d - level)});
        }
        Map<Long, long[]> stuck = new HashMap<>(); // node -> {DCnt/DMax seen, since}
        while (true) {
            long[][] words = ctx.config.read(pending);
            long now = ctx.clock.nanoTime();
            List<long[]> still = new ArrayList<>();
            Batch resets = new Batch();
            for (int i = 0; i < pending.size(); i++) {
                long[] block = pending.get(i);
                int firstBusy = firstBusy(block, words[i], now, stuck, resets);
                if (firstBusy >= 0) {
                    still.add(new long[] {block[0] + firstBusy, block[1] - firstBusy});
                }
            }
            if (resets.size() > 0) {
                ctx.qp.execute(resets);
                for (int i = 0; i < resets.size(); i++) {
                    var v = (Verb.MaskedCas) resets.verbs().get(i);
                    if ((resets.longResult(i) & CitronLayout.NOTIFY_FIELDS) == v.compare()) {
                        descendantResets++;
                    }
                }
                continue; // re-read every level at once
            }
            if (still.isEmpty()) {
                return;
            }
            pending = still;
            holdWait.check(a);
            ctx.clock.sleepNanos(ctx.p.pollNs());
        }
    }

    /**
     * The position in {@code block} of its first node whose DCnt ≠ DMax (−1: all done). With
     * leases, adds to {@code resets} the DCnt = DMax of each node whose counts stayed as seen for
     * height lease units ({@code stuck}: node → {counts seen, since}).
     */
    private int firstBusy(long[] block, long[] words, long now, Map<Long, long[]> stuck, Batch resets) {
        int firstBusy = -1;
        for (int j = 0; j < block[1]; j++) {
            long w = words[j];
            if (CitronLayout.descendantsDone(w)) {
                continue;
            }
            firstBusy = firstBusy < 0 ? j : firstBusy;
            if (!ctx.p.leases()) {
                break; // re-read from the first node that is not done
            }
            long y = block[0] + j;
            long seen = w & CitronLayout.NOTIFY_FIELDS;
            long[] st = stuck.get(y);
            if (st == null || st[0] != seen) {
                stuck.put(y, new long[] {seen, now});
            } else if (now - st[1] >= ctx.config.layout().height(y) * ctx.leaseUnitNs()) {
                long dmax = CitronLayout.dmax(w);
                resets.maskedCas(ctx.config.address(y), seen, CitronLayout.NOTIFY_FIELDS,
                        (dmax << CitronLayout.DCNT_SHIFT) | (dmax << CitronLayout.DMAX_SHIFT),
                        CitronLayout.NOTIFY_FIELDS);
                st[1] = now; // a failed reset (it changed) starts a new period
            }
        }
        return firstBusy;
    }

    /**
     * §3.10 line 22: we hold leaf-parent {@code x} after its descendants drained, so no live client
     * holds a child's bits. Bits still set belong to a crashed client, or to a live leaf request
     * that READ the ancestors before x was occupied, set its bits, and has not notified x yet (slow
     * path: MCAS and notification are two round trips, and its client may stall in between). That
     * request's notification lands past T_wait: it aborts and clears its own bits by a masked CAS on
     * exactly them. A WRITE 0 at once (the paper's) would let a later holder set the same bits, and
     * that late release would clear them under it, letting a third request in (issue 6;
     * CitronLeafClearSimTest). So a child is zeroed only once its word stayed unchanged for a lease
     * unit (every live request releases within it), by a masked CAS against the word seen; we return
     * once all four children read 0. No request can set bits under x after it was occupied and
     * checked, except such late ones, which clear them again.
     */
    void clearStaleChildren(long x, Attempt a) {
        long first = CitronLayout.child(x, 0);
        long[] seen = new long[CitronLayout.FANOUT];
        long[] since = new long[CitronLayout.FANOUT];
        while (true) {
            long[] words = ctx.config.read(List.of(new long[] {first, CitronLayout.FANOUT}))[0];
            long now = ctx.clock.nanoTime();
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
                } else if (now - since[i] >= ctx.leaseUnitNs()) {
                    b.maskedCas(ctx.config.address(first + i), seen[i], CitronLayout.ALL_UNITS, 0,
                            CitronLayout.ALL_UNITS);
                }
            }
            if (!busy) {
                return;
            }
            if (b.size() > 0) {
                ctx.qp.execute(b);
                for (int i = 0; i < b.size(); i++) {
                    if (b.longResult(i) == ((Verb.MaskedCas) b.verbs().get(i)).compare()) {
                        leafClears++;
                    }
                }
                continue; // re-read at once
            }
            holdWait.check(a);
            ctx.clock.sleepNanos(ctx.p.pollNs());
        }
    }

    /** Turns of crashed ticket holders taken over (line 11). */
    long ticketResets() {
        return ticketResets;
    }

    /** DCnt = DMax resets of stuck descendants (line 36). */
    long descendantResets() {
        return descendantResets;
    }

    /** Leaf children zeroed under a held parent (line 22). */
    long leafClears() {
        return leafClears;
    }
}
