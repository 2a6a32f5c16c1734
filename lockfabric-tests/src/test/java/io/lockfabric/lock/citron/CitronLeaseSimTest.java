package io.lockfabric.lock.citron;

import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.Fault;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CITRON's lease recovery (FAST'23 §3.10) on the simulator, tree N = 16 384 (levels of 16 384,
 * 4 096, 1 024, 256 and 64 units), lease 200 us: a holder crashes, and the others recover at each
 * of the four waits within the failure model's bound, with ranges exclusive and fencing tokens
 * increasing; then a seed sweep with crashes and pauses.
 */
@Tag("faults")
class CitronLeaseSimTest {
    private static final long US = 1_000;
    private static final long N = 16_384;
    private static final List<String> OPTIONS = List.of("units=" + N, "lease-ns=200us", "hold-wait-ns=50us");
    private static final long CRASH_AT = 100 * US;
    private static final long WAITER_AT = 150 * US;

    private static LockOptions options() {
        return LockOptions.parse(OPTIONS);
    }

    private static FailureModel model() {
        return RangeLockProtocols.byName("citron").failureModel(options());
    }

    /** Holds of the history, a crashed client's open hold ending at its crash. */
    private static List<Hold> truncated(History history, int crashedClient, long crashAt) {
        return history.holds().stream()
                .map(h -> h.client() == crashedClient && h.releasedAt() == Hold.NEVER ? h.releasedAt(crashAt) : h)
                .toList();
    }

    private static void assertClean(List<Hold> holds) {
        List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
        v.addAll(RangeExclusionChecker.fencing(holds));
        assertTrue(v.isEmpty(), v.toString());
    }

    /**
     * The crasher takes {@code crashed} and crashes at 100 us holding it; at 150 us the waiter asks
     * for {@code wanted}, then (once granted and released) a third client asks for {@code after}.
     * Returns the waiter's counters; asserts both later requests are served within the bound.
     */
    private static CitronCounters crashThenWait(long[] crashed, long[] wanted, long[] after) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(2).seed(3)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            Endpoint ce = fabric.newEndpoint();
            Endpoint we = fabric.newEndpoint();
            Endpoint ae = fabric.newEndpoint();
            var crasher = citron.open(ce, "lease", options());
            var waiter = citron.open(we, "lease", options());
            var later = citron.open(ae, "lease", options());
            long[] times = new long[4];
            var crec = history.recorder(0);
            var c = fabric.spawn("crasher", () -> {
                RangeGrant g = crasher.acquire(crashed[0], crashed[1], Mode.EXCLUSIVE);
                crec.granted(g);
                ce.clock().sleepNanos(10_000 * US); // crashes meanwhile
            });
            fabric.crashAt((SimProcess) c, CRASH_AT);
            var wrec = history.recorder(1);
            var w = fabric.spawn("waiter", () -> {
                we.clock().sleepNanos(WAITER_AT);
                times[0] = fabric.observerNanoTime();
                RangeGrant g = waiter.acquire(wanted[0], wanted[1], Mode.EXCLUSIVE);
                times[1] = fabric.observerNanoTime();
                wrec.granted(g);
                we.clock().sleepNanos(5 * US);
                wrec.releasing(g);
                waiter.release(g);
            });
            var arec = history.recorder(2);
            var a = fabric.spawn("later", () -> {
                ae.clock().sleepNanos(WAITER_AT);
                while (times[1] == 0) {
                    ae.clock().sleepNanos(10 * US);
                }
                times[2] = fabric.observerNanoTime();
                RangeGrant g = later.acquire(after[0], after[1], Mode.EXCLUSIVE);
                times[3] = fabric.observerNanoTime();
                arec.granted(g);
                ae.clock().sleepNanos(5 * US);
                arec.releasing(g);
                later.release(g);
            });
            w.join();
            a.join();
            c.join();
            assertTrue(((SimProcess) c).crashed(), "the crasher crashed holding its range");
            List<Hold> holds = truncated(history, 0, CRASH_AT);
            assertEquals(3, holds.size(), holds.toString());
            assertClean(holds);
            long bound = model().recoveryBoundNs();
            System.out.printf("crash holding [%d, %d): [%d, %d) waited %.1f us, then [%d, %d) %.1f us (bound %.1f us)%n",
                    crashed[0], crashed[1], wanted[0], wanted[1], (times[1] - times[0]) / 1e3, after[0], after[1],
                    (times[3] - times[2]) / 1e3, bound / 1e3);
            assertTrue(times[1] - times[0] <= bound, "waiter served within the recovery bound");
            assertTrue(times[3] - times[2] <= bound, "later request served within the recovery bound");
            var wc = CitronCounters.of(waiter.stats());
            var ac = CitronCounters.of(later.stats());
            return new CitronCounters(wc.timingAborts(), wc.yields(), wc.escalations() + ac.escalations(),
                    wc.ticketResets() + ac.ticketResets(), wc.ancestorEscalations() + ac.ancestorEscalations(),
                    wc.descendantResets() + ac.descendantResets(), wc.leafClears() + ac.leafClears());
        }
    }

    /** Line 11: the crasher occupies [0, 1024); a request for the same node takes its turn over. */
    @Test
    void ticketWaitResetsACrashedOccupiersTurn() {
        var c = crashThenWait(new long[] {0, 1024}, new long[] {0, 1024}, new long[] {0, 1024});
        assertTrue(c.ticketResets() >= 1, c.toString());
    }

    /** Line 18: a leaf request below the crashed occupier escalates to its node, then resets its turn. */
    @Test
    void ancestorWaitEscalatesToTheCrashedOccupiersNode() {
        var c = crashThenWait(new long[] {0, 1024}, new long[] {0, 8}, new long[] {8, 16});
        assertTrue(c.ancestorEscalations() >= 1 && c.ticketResets() >= 1, c.toString());
    }

    /** Line 36: the crasher holds leaf [0, 8); an occupier above resets the DCnt it never released. */
    @Test
    void descendantsWaitResetsTheCrashedNotification() {
        var c = crashThenWait(new long[] {0, 8}, new long[] {0, 1024}, new long[] {300, 1024});
        assertTrue(c.descendantResets() >= 1, c.toString());
    }

    /**
     * Line 22: the crasher holds bits [0, 8) of leaf 0; a request for [4, 12) fails its MCAS,
     * takes the parent, resets the parent's DCnt and zeroes the leaf; a later [0, 8) locks the
     * leaf itself again.
     */
    @Test
    void leafCasFailuresClearTheCrashedHoldersBits() {
        var c = crashThenWait(new long[] {0, 8}, new long[] {4, 12}, new long[] {0, 8});
        assertTrue(c.escalations() == 1 && c.leafClears() >= 1, c.toString());
    }

    private static final LockOptions SWEEP_OPTIONS = LockOptions.parse(List.of("units=4096", "lease-ns=200us",
            "hold-wait-ns=50us", "scale-poll-ns=100us"));

    /** Virtual time a sweep run may take (it needs a few ms; recovery takes at most a few more). */
    private static final long SWEEP_TIME_LIMIT_NS = 200_000_000L;

    /** The non-zero words of the sweep's tree, for a stuck run's report. */
    private static String dumpTree(SimFabric fabric) {
        var tree = new CitronLayout(4_096); // generation 0 only
        StringBuilder sb = new StringBuilder();
        fabric.simulation().timeLimitNs(fabric.observerNanoTime() + SWEEP_TIME_LIMIT_NS);
        try (Endpoint e = fabric.newEndpoint()) {
            var table = e.openTable(RangeLockProtocols.byName("citron").tableSpec("sweep", SWEEP_OPTIONS));
            var qp = e.queuePair(table.memoryNode());
            fabric.spawn("dump", () -> {
                for (long x = 1; x <= tree.nodes(); x++) {
                    long w = qp.read8(table.address() + tree.offset(x));
                    if (w != 0) {
                        sb.append(tree.isLeaf(x) ? "leaf " : "node ").append(x).append(" [")
                                .append(tree.rangeStart(x)).append(", ").append(tree.rangeEnd(x)).append("): ")
                                .append(tree.isLeaf(x) ? Long.toHexString(w) : "tcnt " + CitronLayout.tcnt(w) + " tmax "
                                        + CitronLayout.tmax(w) + " dcnt " + CitronLayout.dcnt(w) + " dmax "
                                        + CitronLayout.dmax(w) + " occ " + CitronLayout.occupied(w))
                                .append('\n');
                    }
                }
            }).join();
        } catch (RuntimeException ex) {
            sb.append("(dump failed: ").append(ex).append(")");
        }
        return sb.toString();
    }

    /**
     * Seeds × (one crash, two pauses shorter than the lease) while 6 clients lock random ranges;
     * the tree starts at 4 096 units and scales up (polled every 100 us) as ranges reach past it:
     * no overlap, fencing tokens increase, and every live client finishes.
     */
    @Test
    void seedSweepWithCrashesAndPauses() {
        FaultPlan plan = FaultPlan.parse("crash=1,pause=2@1us..100us");
        int clients = 6;
        int ops = 60;
        long totalRecoveries = 0;
        long scaleUps = 0;
        int crashesHit = 0;
        for (long seed = 1; seed <= 50; seed++) {
            try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(3)
                    .seed(seed).build())) {
                RangeLockProtocol citron = RangeLockProtocols.byName("citron");
                History history = new History(fabric::observerNanoTime);
                List<ClientThread> threads = new ArrayList<>();
                List<RangeLockClient> locks = new ArrayList<>();
                for (int i = 0; i < clients; i++) {
                    int client = i;
                    Endpoint e = fabric.newEndpoint();
                    RangeLockClient l = citron.open(e, "sweep", SWEEP_OPTIONS);
                    locks.add(l);
                    var rec = history.recorder(client);
                    long s = seed;
                    threads.add(fabric.spawn("c" + client, () -> {
                        SplittableRandom rnd = new SplittableRandom(s * 101 + client);
                        for (int op = 0; op < ops; op++) {
                            long size = 1 + (long) Math.exp(rnd.nextDouble() * Math.log(4_096));
                            long start = rnd.nextLong(N + 2_048 - size);
                            rec.requesting();
                            RangeGrant g = l.acquire(start, start + size, Mode.EXCLUSIVE);
                            rec.granted(g);
                            e.clock().sleepNanos(2 * US);
                            rec.releasing(g);
                            l.release(g);
                        }
                    }));
                }
                List<Fault> faults = plan.schedule(seed, clients, 1, 0, 1_500 * US);
                fabric.inject(plan, faults, threads);
                fabric.simulation().timeLimitNs(SWEEP_TIME_LIMIT_NS);
                try {
                    threads.forEach(ClientThread::join);
                } catch (RuntimeException stuck) {
                    throw new AssertionError("seed " + seed + " " + faults + ": " + stuck.getMessage() + "\n"
                            + dumpTree(fabric), stuck);
                }
                List<Hold> holds = history.holds();
                for (Fault f : faults) {
                    if (f.kind() == Fault.Kind.CRASH && ((SimProcess) threads.get(f.target())).crashed()) {
                        crashesHit++;
                        holds = holds.stream().map(h -> h.client() == f.target() && h.releasedAt() == Hold.NEVER
                                ? h.releasedAt(f.atNs()) : h).toList();
                    }
                }
                List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
                v.addAll(RangeExclusionChecker.fencing(holds));
                assertTrue(v.isEmpty(), "seed " + seed + " " + faults + ": " + v);
                for (int i = 0; i < clients; i++) {
                    var p = (SimProcess) threads.get(i);
                    assertTrue(p.crashed() || p.failure() == null, "seed " + seed + " client " + i + ": " + p.failure());
                    totalRecoveries += CitronCounters.of(locks.get(i).stats()).recoveries();
                    scaleUps += ((CitronClient) locks.get(i)).scaleUps();
                }
            }
        }
        System.out.printf("lease sweep: 50 seeds, %d crashes hit, %d lease recoveries, %d scale-ups%n", crashesHit,
                totalRecoveries, scaleUps);
        assertTrue(scaleUps >= 25, "most runs scaled the tree up: " + scaleUps);
        assertTrue(crashesHit >= 40, "most scheduled crashes hit a running client: " + crashesHit);
    }
}
