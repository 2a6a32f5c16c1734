package io.lockfabric.lock.citron;

import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.citron.CitronProfile.Phase;

import java.util.List;

/**
 * The tree part of a CITRON acquisition (FAST'23 §3.5.1, Algorithm 2 lines 4–7,
 * {@code ACQUIRELOCKONTREE}): Step 1 splits [l, r) locally into at most {@code k} nodes with the
 * least covered-but-unrequested area ({@link RangeSplitter}, a tree knapsack; for a range of at
 * most 64 units and k = 2 the choice is always leaves, with no false conflicts); Step 2 locks them
 * one by one in ascending order (line 6: one global order; {@link HoldWait} breaks the one cycle it
 * leaves), repeating each node's pass ({@link NodeLocker}) until ACQUIRED.
 *
 * <p>A pass that ends ESCALATE moves up: to the parent of a starved leaf (line 24, which is also
 * §3.10's line 22 recovery), or to a stuck occupied ancestor (§3.10 line 18); held nodes the new
 * node covers are released first (holding both would wait on oneself), and a later target it
 * covers is skipped. A pass that ends ABORTED (Inequation (1), a turn held too long, a void ticket)
 * is retried after a randomized pause that doubles up to {@link #MAX_BACKOFF_DOUBLINGS}: an
 * occupier whose notifications keep coming late must not hold the requests below it off for good.
 * A request that gave its earlier nodes up ({@link HoldWait}) restarts from Step 1 after the same
 * kind of pause. Both count as aborts; past {@code max-restarts} the acquisition fails with
 * {@link LockUnavailableException}, releasing what it holds.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class TreeLocker {
    /**
     * Backoff after an abort or restart grows to at most poll-ns × 2^this (512 µs at 1 µs). Every
     * aborted attempt still costs two atomics on the hottest notified ancestor (the level m − 1
     * stand-in under Zipf borders); with a 64 µs cap, 192 simulated clients kept that word's queue
     * above T_wait and nearly every attempt aborted for good (a congestion collapse, see
     * citron-fig12); from 2^9 the retries thin out enough for grants to get through.
     */
    static final int MAX_BACKOFF_DOUBLINGS = 9;

    private final ClientContext ctx;
    private final NodeLocker nodes;
    private final TreeReleaser releaser;
    private final HoldWait holdWait;
    private long aborts;

    TreeLocker(ClientContext ctx, NodeLocker nodes, TreeReleaser releaser, HoldWait holdWait) {
        this.ctx = ctx;
        this.nodes = nodes;
        this.releaser = releaser;
        this.holdWait = holdWait;
    }

    /**
     * Locks [l, r) ⊆ [0, N) on the tree: the attempt that holds every node, with the token of the
     * node acquired last.
     *
     * @throws LockUnavailableException after {@code max-restarts} restarts or aborts of one node
     * @throws ConfigChanged            if a node met a scale-up (everything taken was given back)
     */
    Attempt lock(long l, long r) {
        for (int restart = 0; ; restart++) {
            long[] targets = ctx.config.splitter().split(l, r, ctx.p.k()).nodes(); // Step 1
            var a = new Attempt();
            boolean complete = true;
            for (long x : targets) { // Step 2, ascending
                if (a.heldCovers(x, ctx.config.layout())) {
                    continue; // an earlier node was escalated to a parent that covers this one
                }
                HeldNode h;
                try {
                    h = lockUntilAcquired(x, l, r, a);
                } catch (RuntimeException e) {
                    releaser.releaseNow(a.held); // giving up: the nodes already taken must not stay locked
                    throw e;
                }
                if (!a.yielded) {
                    // Re-validate after the act: the unchecked stretches of this node (T_wait,
                    // round trips, a pause of this client) count against the earlier nodes too;
                    // past hold-wait a waiter may have reset their notifications as a dead
                    // client's, so the grant must not be built on them.
                    holdWait.check(a);
                }
                if (a.yielded) {
                    if (h != null) {
                        releaser.releaseNow(List.of(h));
                    }
                    complete = false;
                    break;
                }
                if (a.held.isEmpty()) {
                    a.heldSince = ctx.clock.nanoTime();
                }
                a.held.add(h);
            }
            if (complete) {
                return a;
            }
            aborts++;
            if (restart >= ctx.p.maxRestarts()) {
                throw new LockUnavailableException("citron range [" + l + ", " + r + "): restarted " + (restart + 1)
                        + " times; gave up after max-restarts=" + ctx.p.maxRestarts());
            }
            // Randomized pause so that the requests that deadlocked do not meet again in step.
            backOff(restart);
        }
    }

    /** Line 7: passes over {@code x} (or where it escalates to) until acquired; null if the attempt yielded before that. */
    private HeldNode lockUntilAcquired(long x, long l, long r, Attempt a) {
        long node = x;
        for (int tries = 0; ; tries++) {
            NodeLocker.Outcome o = nodes.lock(node, l, r, a);
            if (o == NodeLocker.Outcome.ACQUIRED) {
                return a.acquired;
            }
            if (o == NodeLocker.Outcome.ESCALATE) {
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
            if (tries >= ctx.p.maxRestarts()) {
                throw new LockUnavailableException("citron node " + node + ": aborted " + (tries + 1)
                        + " times; gave up after max-restarts=" + ctx.p.maxRestarts() + " (" + nodes.timingAborts()
                        + " aborts so far because the notification took longer than t-wait-ns=" + ctx.eff.abortTNs()
                        + " allows: is T_wait above two round trips?)");
            }
            // A node aborted and retaken at once keeps its Occ set nearly all the time and
            // starves the requests below it; a randomized, growing pause lets them through.
            backOff(tries);
            // Retries (slow round trips abort again and again) do not restart the hold-wait
            // clock of the nodes we hold: past it they are given up (issue 6).
            holdWait.check(a);
            if (a.yielded) {
                return null;
            }
        }
    }

    /** A random pause below poll-ns × 2^(n + 1), at most × 2^{@link #MAX_BACKOFF_DOUBLINGS}. */
    private void backOff(int n) {
        ctx.enter(Phase.BACKOFF);
        ctx.clock.sleepNanos(ctx.random.nextLong(Math.max(1, ctx.p.pollNs()) << Math.min(n + 1, MAX_BACKOFF_DOUBLINGS)));
    }

    private void releaseCovered(Attempt a, long parent) {
        List<HeldNode> covered = a.held.stream().filter(h -> ctx.config.layout().covers(parent, h.node())).toList();
        if (!covered.isEmpty()) {
            releaser.releaseNow(covered);
            a.held.removeAll(covered);
        }
    }

    /** Restarts of whole acquisitions and aborted node passes. */
    long aborts() {
        return aborts;
    }
}
