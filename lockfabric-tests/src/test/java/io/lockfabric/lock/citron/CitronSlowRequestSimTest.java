package io.lockfabric.lock.citron;

import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
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
 * Issue 6 (TcpRangeExclusionTest[citron] under load: 53 overlaps of a large range with a small
 * one under it, consecutive fencing tokens) replayed on the simulator, tree N = 16 384 (H = 5,
 * leaf parents of 256 units), lease 200 us, hold-wait 50 us, T_wait 15 us, slow path.
 *
 * <p>Cause: a live request holding leaf [192, 256) kept it (and its notification to the leaf
 * parent [0, 256)) while its second node [256, 320) aborted again and again (slow round trips:
 * here pauses of 25 us, each far below the lease), because every retry restarted the hold-wait
 * clock. An occupier of [0, 256) waiting for that notification took it for a dead client's after a
 * lease unit and reset DCnt = DMax (§3.10 line 36) — and the request later completed its grant under
 * the occupier's. Its release then left DCnt one above DMax for good, so every later occupier's
 * check passed while one request below it was still held: overlaps between clients that were
 * never paused, with consecutive tokens, long after.
 */
@Tag("faults")
class CitronSlowRequestSimTest {
    private static final long US = 1_000;
    private static final long LEASE_NS = 200 * US;
    private static final LockOptions OPTIONS = LockOptions.parse(List.of("units=16384", "fast-path=0",
            "lease-ns=200us", "hold-wait-ns=50us"));
    /**
     * Clients: 0 holds [256, 320) early, 1 is the slow or paused one, 2 and 4 loop on [0, 256)
     * (an occupier of the leaf parent), 3 on [128, 192) (a leaf below it).
     */
    private static final int SLOW = 1;

    private record Run(List<Hold> holds, List<Violation> violations, CitronCounters slow, CitronCounters occupier,
                       long slowStaleReleases) {
    }

    /**
     * Client 1 asks for {@code slowRange} at 5 us and holds its grant {@code slowHoldNs}, paused
     * {@code pauseNs} out of every {@code pauseNs + 4 us} from 35 us to 1 ms; client 2 locks
     * [0, 256) over and over (holds 100 us) from 60 us until {@code occupierUntilNs}, client 3
     * locks [128, 192) (holds 60 us) and client 4 [0, 256) (holds 100 us) over and over from
     * {@code smallFromNs} (+ 20 us) until 2 ms.
     */
    private static Run run(long[] slowRange, long slowHoldNs, long pauseNs, long smallFromNs, long occupierUntilNs) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(5).clientsPerComputeNode(1).seed(5)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            List<RangeLockClient> locks = new ArrayList<>();
            List<ClientThread> threads = new ArrayList<>();
            long[][] ranges = {{256, 320}, slowRange, {0, 256}, {128, 192}, {0, 256}};
            long[] firstAt = {0, 5 * US, 60 * US, smallFromNs, smallFromNs + 20 * US};
            long[] holdNs = {40 * US, slowHoldNs, 100 * US, 60 * US, 100 * US};
            long[] until = {0, 0, occupierUntilNs, 2_000 * US, 2_000 * US};
            for (int i = 0; i < ranges.length; i++) {
                int c = i;
                Endpoint e = fabric.newEndpoint();
                RangeLockClient lock = citron.open(e, "slow", OPTIONS);
                locks.add(lock);
                var rec = history.recorder(c);
                threads.add(fabric.spawn("c" + c, () -> {
                    e.clock().sleepNanos(firstAt[c]);
                    do {
                        RangeGrant g = lock.acquire(ranges[c][0], ranges[c][1], Mode.EXCLUSIVE);
                        rec.granted(g);
                        e.clock().sleepNanos(holdNs[c]);
                        rec.releasing(g);
                        lock.release(g);
                        e.clock().sleepNanos(7 * US);
                    } while (fabric.observerNanoTime() < until[c]);
                }));
            }
            for (long at = 35 * US; pauseNs > 0 && at < 1_000 * US; at += pauseNs + 4 * US) {
                fabric.pauseAt((SimProcess) threads.get(SLOW), at, pauseNs);
            }
            threads.forEach(ClientThread::join);
            List<Hold> holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            return new Run(holds, v, CitronCounters.of(locks.get(SLOW).stats()), CitronCounters.of(locks.get(2).stats()),
                    ((CitronClient) locks.get(SLOW)).staleNotifications());
        }
    }

    /** The TCP failure's shape: a slow two-node request (never paused past its lease) under an occupier. */
    @Test
    void slowMultiNodeRequestGivesItsEarlierNodeUpInTime() {
        Run r = run(new long[] {192, 320}, 20 * US, 25 * US, 1_100 * US, 2_000 * US);
        System.out.printf("slow request: %d grants, slow client %s, occupier %s%n", r.holds().size(), r.slow(),
                r.occupier());
        assertTrue(r.violations().isEmpty(), r.violations().toString());
        assertTrue(r.slow().timingAborts() > 0, "the pauses made the second node abort: " + r.slow());
        assertTrue(r.slow().yields() > 0, "the slow request gave its first node up: " + r.slow());
        assertEquals(0, r.occupier().descendantResets(), "no live notification taken for a dead one");
    }

    /**
     * A holder paused past its lease (3 leases) may overlap the occupier that reset its
     * notification — the hazard fencing tokens guard — but its late release must not corrupt the
     * tree for the clients after it: no overlap between two holders that held within their lease.
     */
    @Test
    void lateReleaseAfterADescendantResetDoesNotCorruptTheTree() {
        Run r = run(new long[] {192, 256}, 3 * LEASE_NS, 0, 620 * US, 600 * US);
        List<Violation> bad = r.violations().stream().filter(v -> !involvesLongHold(v)).toList();
        long hazards = r.violations().size() - bad.size();
        System.out.printf("late release: %d grants, %d hazards, occupier %s%n", r.holds().size(), hazards, r.occupier());
        assertTrue(r.occupier().descendantResets() > 0, "the occupier reset the paused holder's notification");
        assertTrue(bad.isEmpty(), bad.toString());
        assertEquals(1, r.slowStaleReleases(), "the paused holder's release skipped its reset notification");
    }

    /**
     * The ticket side: client 0 holds node [0, 1024) (height 2) for 3 ms, far past its lease;
     * clients 1 and 2 queue for the same node over and over (holds 150 us). Client 1 takes the
     * stuck turn over (§3.10 line 11) after (h + 2) lease units. The late release must not vacate
     * the turn that is now someone else's: before, its MFAA {Occ - 1, TCnt + 1} cleared the current
     * holder's Occ and let the next ticket in while it held.
     */
    @Test
    void lateVacateAfterATicketTakeoverDoesNotFreeSomeoneElsesTurn() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(3).clientsPerComputeNode(1).seed(7)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            List<RangeLockClient> locks = new ArrayList<>();
            List<ClientThread> threads = new ArrayList<>();
            long[] firstAt = {0, 10 * US, 20 * US};
            long[] holdNs = {3_000 * US, 150 * US, 150 * US};
            for (int i = 0; i < 3; i++) {
                int c = i;
                Endpoint e = fabric.newEndpoint();
                RangeLockClient lock = citron.open(e, "turn", OPTIONS);
                locks.add(lock);
                var rec = history.recorder(c);
                threads.add(fabric.spawn("c" + c, () -> {
                    e.clock().sleepNanos(firstAt[c]);
                    do {
                        RangeGrant g = lock.acquire(0, 1024, Mode.EXCLUSIVE);
                        rec.granted(g);
                        e.clock().sleepNanos(holdNs[c]);
                        rec.releasing(g);
                        lock.release(g);
                        e.clock().sleepNanos(3 * US);
                    } while (c > 0 && fabric.observerNanoTime() < 5_000 * US);
                }));
            }
            threads.forEach(ClientThread::join);
            List<Hold> holds = history.holds();
            List<Violation> all = new ArrayList<>(RangeExclusionChecker.violations(holds));
            List<Violation> bad = all.stream().filter(v -> !involvesLongHold(v)).toList();
            long resets = CitronCounters.of(locks.get(1).stats()).ticketResets()
                    + CitronCounters.of(locks.get(2).stats()).ticketResets();
            System.out.printf("late vacate: %d grants, %d hazards, %d ticket resets%n", holds.size(),
                    all.size() - bad.size(), resets);
            assertTrue(resets > 0, "a waiter took the stuck turn over");
            assertTrue(holds.stream().anyMatch(h -> h.client() > 0 && h.grantedAt() > 3_100 * US),
                    "the queue went on after the late release");
            assertTrue(bad.isEmpty(), bad.toString());
        }
    }

    private static boolean involvesLongHold(Violation v) {
        List<Hold> hs = switch (v) {
            case Violation.Overlap o -> List.of(o.first(), o.second());
            case Violation.Fencing f -> List.of(f.earlier(), f.later());
            default -> List.of();
        };
        return hs.stream().anyMatch(h -> h.releasedAt() - h.grantedAt() > LEASE_NS);
    }
}
