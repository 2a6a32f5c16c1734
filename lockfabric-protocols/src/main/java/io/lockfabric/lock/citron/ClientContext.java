package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.lock.citron.CitronProfile.Phase;

import java.util.random.RandomGenerator;

/**
 * What the pieces of one {@link CitronClient} share: its queue pair to the table's memory node,
 * its clock and seeded random source, its parameters, its view of the tree configuration, the
 * (m, T_wait) of the node acquisition under way and the profile of its acquisitions. Each piece
 * keeps its own counters.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class ClientContext {
    final QueuePair qp;
    final Clock clock;
    final RandomGenerator random;
    final CitronClient.Params p;
    final TreeConfig config;
    /** Where acquisitions spend their time ({@link CitronProfile}). */
    final CitronProfile.Recorder profile = new CitronProfile.Recorder();
    /**
     * The parameters of the node acquisition under way: the options', or with a {@link CitronTuning}
     * those it gave when the acquisition began (§3.5.5's two-phase change: min T for the abort test,
     * max T for waiting, min m for notifying, max m for checking).
     */
    CitronTuning.Effective eff;
    /**
     * Lanes a reader-lane writer holds while this lane's acquisition waits ({@link ReaderLanes});
     * null outside such an acquisition (always with {@code shared-lanes=1}).
     */
    OuterHold outer;

    ClientContext(QueuePair qp, Clock clock, RandomGenerator random, CitronClient.Params p, TreeConfig config) {
        this.qp = qp;
        this.clock = clock;
        this.random = random;
        this.p = p;
        this.config = config;
        this.eff = new CitronTuning.Effective(p.m(), p.m(), p.tWaitNs(), p.tWaitNs());
    }

    /** Ends the profile's phase under way and begins {@code phase}. */
    void enter(Phase phase) {
        profile.enter(phase, clock.nanoTime());
    }

    /**
     * Lease unit U = L + hold-wait + T_wait (§3.10 widened): the longest a live client leaves a
     * node's counters unchanged per level of height.
     */
    long leaseUnitNs() {
        return p.leaseNs() + p.holdWaitNs() + Math.max(p.tWaitNs(), eff.waitTNs());
    }
}
