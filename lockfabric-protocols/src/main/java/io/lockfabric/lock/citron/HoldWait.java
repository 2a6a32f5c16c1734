package io.lockfabric.lock.citron;

/**
 * Deadlock freedom across the nodes of one request (not discussed by the paper), checked at every
 * wait of Algorithm 2.
 *
 * <p>Nodes are taken in ascending order (line 6), but an occupier waits for holders below it
 * (priority to smaller ranges, line 36), so a request holding an earlier node below an occupied
 * ancestor of its next node would wait for an occupier that waits for it. Such a request releases
 * everything it holds at once (when the occupied ancestor covers a node it holds: {@link #giveUp})
 * or once it has held others for {@code hold-wait-ns} (a chain through bakery tickets:
 * {@link #check}; counted from the first node held, across aborts and retries of the node under
 * way, and checked again when that node is acquired); it finishes the node under way (a ticket
 * cannot be handed back before its turn), releases it and restarts. A request that holds nothing
 * waits for nobody who waits for it.
 *
 * <p>With leases the same bound protects the others' recovery: earlier nodes held longer than
 * hold-wait (at most lease/4) may already have been taken for a dead client's (their DCnt reset by
 * a waiting occupier, §3.10 line 36), so the grant must not be built on them.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class HoldWait {
    private final ClientContext ctx;
    private final TreeReleaser releaser;
    private long yields;

    HoldWait(ClientContext ctx, TreeReleaser releaser) {
        this.ctx = ctx;
        this.releaser = releaser;
    }

    /**
     * While holding earlier nodes, a wait longer than hold-wait-ns may be part of a cycle; and
     * earlier nodes held longer than that may already have been taken for a dead client's (their
     * DCnt reset by a waiting occupier): give them up.
     */
    void check(Attempt a) {
        if (ctx.outer != null) {
            ctx.outer.check(); // a reader-lane writer's earlier lanes count as earlier nodes
        }
        if (!a.held.isEmpty() && ctx.clock.nanoTime() - a.heldSince > ctx.p.holdWaitNs()) {
            giveUp(a);
        }
    }

    /** Gives up every node the attempt holds: it will restart once the node under way is done. */
    void giveUp(Attempt a) {
        if (!a.yielded && !a.held.isEmpty()) {
            yields++;
            releaser.releaseNow(a.held);
            a.held.clear();
            a.yielded = true;
        }
    }

    /** Acquisitions that released their earlier nodes to break a possible deadlock. */
    long yields() {
        return yields;
    }
}
