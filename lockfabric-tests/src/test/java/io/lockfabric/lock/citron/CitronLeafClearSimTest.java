package io.lockfabric.lock.citron;

import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.ForwardingEndpoint;
import io.lockfabric.fabric.ForwardingQueuePair;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Verb;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * §3.10 line 22's leaf clear against a live, slow leaf request (issue 6, the suspected second
 * path), tree N = 16 384, lease 200 us, hold-wait 50 us, T_wait 15 us, slow path (fast-path=0: the
 * leaf MCAS and the notification of its parent are two round trips).
 *
 * <p>Leaf [0, 64) under leaf parent x = [0, 256). The blocker holds [0, 1) from 0 to 150 us. The
 * escalator asks for [0, 1) at 5 us, fails its MCAS for starve-ns (100 us), escalates to x, and
 * holds it once the blocker's notification is released (about 151 us). The slow request asks for
 * [10, 11) at 50 us, before x is occupied: its MCAS sets bit 10, and then it stalls for 120 us
 * (below the lease) before it notifies x. The escalator's descendant check cannot see it (no
 * notification yet), so bit 10 looks like a crashed holder's. The slow request's notification
 * lands far past T_wait after its ancestor READ: it aborts, and its release MCAS clears bit 10.
 * The later client asks for [10, 11) at 165 us, once the escalator is done.
 *
 * <p>With a leaf clear that WRITEs 0 at once, the later client set bit 10 again and held it, and
 * the slow request's late release cleared it under the later holder: the slow request's retry
 * then overlapped the later holder, though nobody was paused past its lease.
 */
@Tag("faults")
class CitronLeafClearSimTest {
    private static final long US = 1_000;
    private static final LockOptions OPTIONS = LockOptions.parse(List.of("units=16384", "fast-path=0",
            "lease-ns=200us", "hold-wait-ns=50us"));
    private static final int BLOCKER = 0;
    private static final int ESCALATOR = 1;
    private static final int SLOW = 2;
    private static final int LATER = 3;

    private record Run(List<Hold> holds, List<Violation> violations, CitronCounters escalator, CitronCounters slow,
                       boolean slowCrashed) {
    }

    /**
     * The scenario above; the slow request stalls {@code stallNs} after its first successful lock
     * MCAS, and crashes at {@code crashAtNs} if that is positive.
     */
    private static Run run(long stallNs, long crashAtNs) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(4).clientsPerComputeNode(1).seed(11)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            long[][] ranges = {{0, 1}, {0, 1}, {10, 11}, {10, 11}};
            long[] firstAt = {0, 5 * US, 50 * US, 165 * US};
            long[] holdNs = {150 * US, 5 * US, 5 * US, 100 * US};
            List<RangeLockClient> locks = new ArrayList<>();
            List<SimProcess> threads = new ArrayList<>();
            for (int i = 0; i < ranges.length; i++) {
                int c = i;
                Endpoint e = c == SLOW ? new StallAfterLock(fabric.newEndpoint(), stallNs) : fabric.newEndpoint();
                RangeLockClient lock = citron.open(e, "leaf-clear", OPTIONS);
                locks.add(lock);
                var rec = history.recorder(c);
                threads.add((SimProcess) fabric.spawn("c" + c, () -> {
                    e.clock().sleepNanos(firstAt[c]);
                    RangeGrant g = lock.acquire(ranges[c][0], ranges[c][1], Mode.EXCLUSIVE);
                    rec.granted(g);
                    e.clock().sleepNanos(holdNs[c]);
                    rec.releasing(g);
                    lock.release(g);
                }));
            }
            if (crashAtNs > 0) {
                fabric.crashAt(threads.get(SLOW), crashAtNs);
            }
            fabric.simulation().timeLimitNs(100_000 * US);
            threads.forEach(SimProcess::join);
            List<Hold> holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            return new Run(holds, v, CitronCounters.of(locks.get(ESCALATOR).stats()),
                    CitronCounters.of(locks.get(SLOW).stats()), threads.get(SLOW).crashed());
        }
    }

    /** The stall (120 us) is below the lease: no overlap, and the slow request still gets its range. */
    @Test
    void liveSlowLeafRequestKeepsItsBitsUntilItReleasesThem() {
        Run r = run(120 * US, 0);
        System.out.printf("slow leaf request: holds %s, escalator %s, slow %s%n", r.holds(), r.escalator(), r.slow());
        assertTrue(r.violations().isEmpty(), r.violations().toString());
        assertEquals(1, r.escalator().escalations(), "the escalator gave the leaf up for its parent");
        assertTrue(r.slow().timingAborts() >= 1, "the slow request's notification came too late: " + r.slow());
        assertEquals(4, r.holds().size(), "every client was granted once: " + r.holds());
        assertEquals(0, r.escalator().leafClears(), "the slow request cleared its own bit: " + r.escalator());
    }

    /**
     * Lease recovery still works: the slow request crashes in its stall, its bit 10 stays, and the
     * escalator, holding x, zeroes it once it stays unchanged for a lease unit; the later client
     * then locks [10, 11).
     */
    @Test
    void crashedLeafRequestsBitsAreStillCleared() {
        Run r = run(120 * US, 100 * US);
        System.out.printf("crashed leaf request: holds %s, escalator %s%n", r.holds(), r.escalator());
        assertTrue(r.slowCrashed(), "the slow request crashed in its stall");
        assertTrue(r.violations().isEmpty(), r.violations().toString());
        assertEquals(1, r.escalator().leafClears(), "the escalator zeroed the crashed request's bit");
        assertTrue(r.holds().stream().anyMatch(h -> h.client() == LATER), "the later client got [10, 11)");
    }

    /**
     * An endpoint whose first lock MCAS that succeeds (a one-verb batch: the slow path's step (c)
     * on a leaf) is followed by a stall of its client: a pause between the MCAS and the
     * notification, in virtual time.
     */
    private static final class StallAfterLock extends ForwardingEndpoint {
        private final long stallNs;
        private boolean stalled;

        StallAfterLock(Endpoint inner, long stallNs) {
            super(inner);
            this.stallNs = stallNs;
        }

        @Override
        public QueuePair queuePair(int memoryNode) {
            return new ForwardingQueuePair(inner.queuePair(memoryNode)) {
                @Override
                public void execute(Batch batch) {
                    super.execute(batch);
                    if (!stalled && batch.size() == 1 && batch.verbs().getFirst() instanceof Verb.MaskedCas c
                            && c.compare() == 0 && c.swap() == c.compareMask()
                            && (batch.longResult(0) & c.compareMask()) == 0) {
                        stalled = true;
                        StallAfterLock.this.clock().sleepNanos(stallNs);
                    }
                }
            };
        }
    }
}
