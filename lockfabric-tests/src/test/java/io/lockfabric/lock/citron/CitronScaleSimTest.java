package io.lockfabric.lock.citron;

import io.lockfabric.check.History;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CITRON scale-up (FAST'23 §3.9.1) on the simulator: the tree starts at N = 256 while 8 clients
 * lock random ranges of a space that grows past it (and keeps holding and requesting while the
 * tree scales up): the tree grows by the configured factor until it covers the space, ranges
 * stay exclusive and fencing tokens increase throughout.
 */
@Tag("stress")
class CitronScaleSimTest {
    private static final long US = 1_000;

    @ParameterizedTest(name = "factor {0}, fast path {1}, hold {2} us")
    @CsvSource({"4, 1, 3", "16, 1, 3", "4, 0, 3", "4, 1, 60", "16, 0, 60"})
    void scaleUpWhileClientsHoldAndRequest(int factor, int fastPath, long holdUs) {
        long space = 20_000;
        int clients = 8;
        int ops = 300;
        var opts = LockOptions.parse(List.of("units=256", "scale-poll-ns=40us", "scale-factor=" + factor,
                "fast-path=" + fastPath));
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(17)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            List<ClientThread> threads = new ArrayList<>();
            List<CitronClient> locks = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                int client = i;
                Endpoint e = fabric.newEndpoint();
                var l = (CitronClient) citron.open(e, "grow", opts);
                locks.add(l);
                var rec = history.recorder(client);
                threads.add(fabric.spawn("c" + client, () -> {
                    SplittableRandom rnd = new SplittableRandom(client * 7919L + factor);
                    for (int op = 0; op < ops; op++) {
                        // The touched space grows over the run, as a file written at its end.
                        long reach = Math.max(512, space * (op + 1) / ops);
                        long size = 1 + (long) Math.exp(rnd.nextDouble() * Math.log(2_000));
                        long start = rnd.nextLong(Math.max(1, reach - size));
                        rec.requesting();
                        RangeGrant g = l.acquire(start, start + size, Mode.EXCLUSIVE);
                        rec.granted(g);
                        e.clock().sleepNanos(holdUs * US);
                        rec.releasing(g);
                        l.release(g);
                    }
                }));
            }
            threads.forEach(ClientThread::join);
            var holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            assertTrue(v.isEmpty(), v.toString());
            assertEquals((long) clients * ops, holds.size());
            long carried = locks.stream().mapToLong(CitronClient::carriedReleases).sum();
            System.out.printf("  %d DCnt + 1 paid on new ancestors for carried counts%n", carried);
            long scaleUps = locks.stream().mapToLong(CitronClient::scaleUps).sum();
            long refetches = locks.stream().mapToLong(CitronClient::refetches).sum();
            long units = locks.stream().mapToLong(CitronClient::units).max().orElseThrow();
            System.out.printf("scale-up x%d fast path %d: %d scale-ups, %d refetches, N 256 -> %d, %d grants%n", factor,
                    fastPath, scaleUps, refetches, units, holds.size());
            assertTrue(scaleUps >= (factor == 4 ? 3 : 2), "the tree grew in several steps: " + scaleUps);
            assertTrue(units >= space / 2, "the tree grew towards the space: N = " + units);
            assertTrue(refetches >= scaleUps, "clients refetched the configuration");
            // The scale-ups ran on the background pollers (one per compute node): no client's
            // acquire runs one.
            assertTrue(locks.stream().allMatch(l -> l.poller() != null && l.poller().failure() == null));
        }
    }

    /**
     * Seeds × a workload that keeps holders on the old top levels across scale-ups: 6 clients on 2
     * machines, a third of the requests cover [0, x) for a random x (the old root and its top
     * levels, held 20–80 us), the rest random ranges of a space growing to 60 000 units; factor 4
     * and 16 alternate. No overlap, tokens increase, every client finishes, and carried counts were
     * paid.
     */
    @Test
    void scaleUpSeedSweepWithTopLevelHolders() {
        long carried = 0;
        long scaleUps = 0;
        for (long seed = 1; seed <= 24; seed++) {
            int factor = seed % 2 == 0 ? 16 : 4;
            var opts = LockOptions.parse(List.of("units=256", "scale-poll-ns=30us", "scale-factor=" + factor));
            try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(3)
                    .seed(seed).build())) {
                var citron = RangeLockProtocols.byName("citron");
                History history = new History(fabric::observerNanoTime);
                List<ClientThread> threads = new ArrayList<>();
                List<CitronClient> locks = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    int client = i;
                    Endpoint e = fabric.newEndpoint();
                    var l = (CitronClient) citron.open(e, "sweep", opts);
                    locks.add(l);
                    var rec = history.recorder(client);
                    long sd = seed;
                    threads.add(fabric.spawn("c" + client, () -> {
                        SplittableRandom rnd = new SplittableRandom(sd * 1_000_003L + client);
                        for (int op = 0; op < 80; op++) {
                            long reach = Math.max(300, 60_000L * (op + 1) / 80);
                            long start;
                            long end;
                            if (rnd.nextInt(3) == 0) {
                                start = 0;
                                end = 1 + rnd.nextLong(Math.min(reach, 4 * l.units()));
                            } else {
                                long size = 1 + (long) Math.exp(rnd.nextDouble() * Math.log(3_000));
                                start = rnd.nextLong(Math.max(1, reach - size));
                                end = start + size;
                            }
                            rec.requesting();
                            RangeGrant g = l.acquire(start, end, Mode.EXCLUSIVE);
                            rec.granted(g);
                            e.clock().sleepNanos((20 + rnd.nextLong(61)) * US);
                            rec.releasing(g);
                            l.release(g);
                        }
                    }));
                }
                threads.forEach(ClientThread::join);
                var holds = history.holds();
                List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
                v.addAll(RangeExclusionChecker.fencing(holds));
                assertTrue(v.isEmpty(), "seed " + seed + ": " + v);
                assertEquals(6 * 80, holds.size(), "seed " + seed);
                carried += locks.stream().mapToLong(CitronClient::carriedReleases).sum();
                scaleUps += locks.stream().mapToLong(CitronClient::scaleUps).sum();
            }
        }
        System.out.printf("scale-up sweep: 24 seeds, %d scale-ups, %d carried DCnt + 1 paid%n", scaleUps, carried);
        assertTrue(scaleUps >= 48, "every seed scaled up more than once: " + scaleUps);
        assertTrue(carried >= 24, "holders of the old top levels were carried: " + carried);
    }

    /**
     * Algorithm 4 waits for no holder: a client holds [0, 8) for 2 ms while a request past N
     * triggers a scale-up; the poller completes it and a worker is granted 40 ranges elsewhere in
     * the old [0, N) and in the new part, all before the holder lets go (with the former drain, the
     * scaler locked the old root behind the holder, holding the spillover mutex, and every one of
     * them waited the 2 ms). The holder's release pays DCnt + 1 on the new root (its notification
     * of the old root was carried there).
     */
    @Test
    void aScaleUpDoesNotWaitForTheLongestHold() {
        var opts = LockOptions.parse(List.of("units=256", "scale-poll-ns=50us"));
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(4).seed(5)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            Endpoint eh = fabric.newEndpoint();
            Endpoint et = fabric.newEndpoint();
            Endpoint ew = fabric.newEndpoint();
            var holder = (CitronClient) citron.open(eh, "nb", opts);
            var trigger = (CitronClient) citron.open(et, "nb", opts);
            var worker = (CitronClient) citron.open(ew, "nb", opts);
            long[] at = new long[4]; // holder granted, holder releasing, worker's first new-tree grant, worker's last grant
            long[] unitsSeen = new long[1];
            var hrec = history.recorder(0);
            var trec = history.recorder(1);
            var wrec = history.recorder(2);
            ClientThread h = fabric.spawn("holder", () -> {
                hrec.requesting();
                RangeGrant g = holder.acquire(0, 8, Mode.EXCLUSIVE);
                hrec.granted(g);
                at[0] = fabric.observerNanoTime();
                eh.clock().sleepNanos(2_000 * US);
                at[1] = fabric.observerNanoTime();
                hrec.releasing(g);
                holder.release(g);
            });
            ClientThread t = fabric.spawn("trigger", () -> {
                et.clock().sleepNanos(100 * US);
                trec.requesting();
                RangeGrant g = trigger.acquire(300, 5_000, Mode.EXCLUSIVE); // past N only: ORs 5 000 into the maximizer
                trec.granted(g);
                trec.releasing(g);
                trigger.release(g);
            });
            ClientThread w = fabric.spawn("worker", () -> {
                ew.clock().sleepNanos(150 * US);
                long[][] ranges = {{8, 60}, {64, 128}, {130, 250}, {1_024, 1_100}, {4_096, 8_192}, {300, 310},
                        {2_000, 2_048}, {9_000, 16_000}};
                for (int i = 0; i < 40; i++) {
                    long[] r = ranges[i % ranges.length];
                    wrec.requesting();
                    RangeGrant g = worker.acquire(r[0], r[1], Mode.EXCLUSIVE);
                    wrec.granted(g);
                    if (at[2] == 0 && worker.units() > 256) {
                        at[2] = fabric.observerNanoTime();
                    }
                    at[3] = fabric.observerNanoTime();
                    ew.clock().sleepNanos(5 * US);
                    wrec.releasing(g);
                    worker.release(g);
                }
                unitsSeen[0] = worker.units();
            });
            h.join();
            t.join();
            w.join();
            var holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            assertTrue(v.isEmpty(), v.toString());
            System.out.printf("holder [0, 8) held %.0f-%.0f us; worker on the new tree from %.0f us, last grant %.0f us;"
                    + " N -> %d; holder paid %d carried DCnt + 1%n", at[0] / 1e3, at[1] / 1e3, at[2] / 1e3, at[3] / 1e3,
                    unitsSeen[0], holder.carriedReleases());
            assertEquals(16_384, unitsSeen[0], "the worker ran on the scaled tree");
            assertTrue(at[2] > at[0] && at[2] < at[1], "the scale-up completed while [0, 8) was held");
            assertTrue(at[3] < at[1], "40 grants in the old [0, N) and past it, all while [0, 8) was held");
            assertEquals(1, holder.poller().scaleUps() + trigger.scaleUps() + worker.scaleUps(),
                    "one scale-up, by the background poller (started by the holder)");
            // One DCnt + 1 per node the scale-up added above the old root (256 -> 16 384: three levels).
            assertEquals(3, holder.carriedReleases(), "the holder's notification of the old root was carried");
        }
    }

    /**
     * The Occ carry (Algorithm 4 line 8, "an occupied node accounts for an extra unit of DMax"): a
     * holder of the whole old tree (its root, which notifies nobody) keeps it while the tree scales
     * up by one level (factor 4) or two (16); a request for the whole new tree (and, at factor 16,
     * for the new node above the old root) occupies a node the old root's holder never notified,
     * and must still wait for it: the scale-up carried the old root's Occ into every new ancestor.
     */
    @ParameterizedTest(name = "factor {0}")
    @CsvSource({"4", "16"})
    void anOldRootsHolderIsCarriedIntoTheNewAncestors(int factor) {
        var opts = LockOptions.parse(List.of("units=256", "scale-poll-ns=50us", "scale-factor=" + factor));
        long grown = 256L * factor;
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(4).seed(9)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            Endpoint eh = fabric.newEndpoint();
            Endpoint eb = fabric.newEndpoint();
            Endpoint ec = fabric.newEndpoint();
            var holder = (CitronClient) citron.open(eh, "occ", opts);
            var big = (CitronClient) citron.open(eb, "occ", opts);
            var mid = (CitronClient) citron.open(ec, "occ", opts);
            long[] at = new long[4]; // holder releasing, big granted, mid granted, big's N
            var hrec = history.recorder(0);
            var brec = history.recorder(1);
            var crec = history.recorder(2);
            ClientThread h = fabric.spawn("holder", () -> {
                hrec.requesting();
                RangeGrant g = holder.acquire(0, 256, Mode.EXCLUSIVE); // the old root
                hrec.granted(g);
                eh.clock().sleepNanos(1_000 * US);
                at[0] = fabric.observerNanoTime();
                hrec.releasing(g);
                holder.release(g);
            });
            ClientThread b = fabric.spawn("big", () -> {
                eb.clock().sleepNanos(50 * US);
                RangeGrant s = big.acquire(300, grown, Mode.EXCLUSIVE); // past N: triggers the scale-up
                big.release(s);
                eb.clock().sleepNanos(300 * US); // the poller has scaled up by now
                brec.requesting();
                RangeGrant g = big.acquire(0, grown, Mode.EXCLUSIVE); // the new root
                brec.granted(g);
                at[1] = fabric.observerNanoTime();
                at[3] = big.units();
                brec.releasing(g);
                big.release(g);
            });
            ClientThread c = fabric.spawn("mid", () -> {
                ec.clock().sleepNanos(400 * US);
                crec.requesting();
                RangeGrant g = mid.acquire(0, 1_024, Mode.EXCLUSIVE); // the old root's parent at factor 16
                crec.granted(g);
                at[2] = fabric.observerNanoTime();
                crec.releasing(g);
                mid.release(g);
            });
            h.join();
            b.join();
            c.join();
            var holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            assertTrue(v.isEmpty(), v.toString());
            System.out.printf("factor %d: old root held until %.0f us, new-tree requests granted at %.0f and %.0f us;"
                    + " scale-ups %d, N %d, holder paid %d carried DCnt + 1%n", factor, at[0] / 1e3, at[1] / 1e3,
                    at[2] / 1e3, holder.scaleUps() + big.scaleUps() + mid.scaleUps(), at[3], holder.carriedReleases());
            assertEquals(grown, at[3], "the request for the whole tree ran on the scaled tree");
            assertTrue(at[1] > at[0] && at[2] > at[0], "both waited for the old root's holder");
            // Into every node a scale-up added above the old root, and on (the OR of 4 096 and 1 024
            // from requests still on the old tree made a second scale-up at factor 16).
            assertTrue(holder.carriedReleases() >= factor / 4, "the holder's Occ was carried into the new ancestors");
        }
    }

    /**
     * Algorithm 2 line 33 for an occupier: a request for the old root got its turn before the
     * scale-up marked the root but sets Occ after (paused in between; a root notifies nobody, so
     * no timing test catches the pause). Its Occ was not carried: it must see the mark the MFAA
     * returns and retry on the new tree, or it would hold [0, 256) beside the holder of the new
     * root, which checked the old root's DCnt/DMax but cannot see its Occ.
     */
    @Test
    void anOccAfterTheMarkIsNotCarriedAndRetriesOnTheNewTree() {
        var opts = LockOptions.parse(List.of("units=256", "scale-poll-ns=50us"));
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(4).seed(1)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            Endpoint ea = fabric.newEndpoint();
            Endpoint et = fabric.newEndpoint();
            Endpoint eb = fabric.newEndpoint();
            var late = (CitronClient) citron.open(ea, "late", opts);
            var trigger = (CitronClient) citron.open(et, "late", opts);
            var whole = (CitronClient) citron.open(eb, "late", opts);
            long[] at = new long[3]; // late granted, whole granted, whole releasing
            var arec = history.recorder(0);
            var brec = history.recorder(1);
            ClientThread a = fabric.spawn("late", () -> {
                ea.clock().sleepNanos(200 * US);
                arec.requesting();
                RangeGrant g = late.acquire(0, 256, Mode.EXCLUSIVE); // the old root
                arec.granted(g);
                at[0] = fabric.observerNanoTime();
                arec.releasing(g);
                late.release(g);
            });
            fabric.pauseAt((io.lockfabric.sim.SimProcess) a, 200 * US + 500, 300 * US); // after its ticket
            ClientThread t = fabric.spawn("trigger", () -> {
                et.clock().sleepNanos(210 * US);
                RangeGrant g = trigger.acquire(300, 5_000, Mode.EXCLUSIVE);
                trigger.release(g);
            });
            ClientThread b = fabric.spawn("whole", () -> {
                eb.clock().sleepNanos(350 * US);
                brec.requesting();
                RangeGrant g = whole.acquire(0, 16_384, Mode.EXCLUSIVE);
                brec.granted(g);
                at[1] = fabric.observerNanoTime();
                eb.clock().sleepNanos(400 * US);
                at[2] = fabric.observerNanoTime();
                brec.releasing(g);
                whole.release(g);
            });
            a.join();
            t.join();
            b.join();
            var holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            System.out.printf("late request granted at %.1f us; whole new tree held %.1f-%.1f us; late refetches %d%n",
                    at[0] / 1e3, at[1] / 1e3, at[2] / 1e3, late.refetches());
            assertTrue(v.isEmpty(), v.toString());
            assertTrue(at[1] < 500 * US, "the whole tree was granted during the pause: " + at[1]);
            assertTrue(at[0] > at[2], "the late request waited for the new root's holder");
            assertTrue(late.refetches() >= 1, "it retried on the new tree");
        }
    }

    /**
     * A scaler crashes right after its marks (holding the spillover mutex): the tree is frozen
     * (requests meet the marked root and wait for a publication) until the poller takes the mutex
     * over as a dead holder's (lease 200 us) and redoes the scale-up with a DMax margin; a holder
     * whose count the dead scaler marked releases meanwhile. Ranges stay exclusive, every live
     * client finishes, and a request for the whole new tree waits for the margin's DCnt reset.
     */
    @Test
    void aScalerThatDiesAfterItsMarksIsReplacedSafely() {
        var opts = LockOptions.parse(List.of("units=256", "scale-poll-ns=50us", "lease-ns=200us",
                "hold-wait-ns=50us"));
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(4).seed(4)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            Endpoint ex = fabric.newEndpoint();
            Endpoint ed = fabric.newEndpoint();
            Endpoint ew = fabric.newEndpoint();
            var holder = (CitronClient) citron.open(ex, "dead", opts);
            var dead = (CitronClient) citron.open(ed, "dead", opts);
            var worker = (CitronClient) citron.open(ew, "dead", opts);
            long[] at = new long[3]; // holder releasing, worker's first grant on the new tree, whole-tree grant
            var xrec = history.recorder(0);
            var wrec = history.recorder(2);
            ClientThread x = fabric.spawn("holder", () -> {
                xrec.requesting();
                RangeGrant g = holder.acquire(0, 8, Mode.EXCLUSIVE);
                xrec.granted(g);
                ex.clock().sleepNanos(100 * US);
                at[0] = fabric.observerNanoTime();
                xrec.releasing(g);
                holder.release(g);
            });
            ClientThread d = fabric.spawn("dead-scaler", () -> {
                ed.clock().sleepNanos(10 * US);
                RangeGrant g = dead.acquire(300, 1_000, Mode.EXCLUSIVE); // ORs 1 000 into the maximizer
                dead.release(g);
                dead.scaleUp(true); // marks the old tree, then "crashes" holding the spillover mutex
            });
            ClientThread w = fabric.spawn("worker", () -> {
                ew.clock().sleepNanos(40 * US);
                for (int i = 0; i < 20; i++) {
                    long start = 16 + 24 * i;
                    wrec.requesting();
                    RangeGrant g = worker.acquire(start, start + 20, Mode.EXCLUSIVE);
                    wrec.granted(g);
                    if (at[1] == 0 && worker.units() > 256) {
                        at[1] = fabric.observerNanoTime();
                    }
                    ew.clock().sleepNanos(5 * US);
                    wrec.releasing(g);
                    worker.release(g);
                }
                wrec.requesting();
                RangeGrant g = worker.acquire(0, 1_024, Mode.EXCLUSIVE); // the whole new tree
                wrec.granted(g);
                at[2] = fabric.observerNanoTime();
                wrec.releasing(g);
                worker.release(g);
            });
            x.join();
            d.join();
            w.join();
            var holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            System.out.printf("dead scaler: holder released at %.0f us, worker on the new tree from %.0f us, whole tree"
                    + " at %.0f us; %d interrupted scale-up redone%n", at[0] / 1e3, at[1] / 1e3, at[2] / 1e3,
                    holder.interruptedScaleUps());
            assertTrue(v.isEmpty(), v.toString());
            assertEquals(1, holder.interruptedScaleUps(), "the poller (started by the holder) redid the scale-up");
            assertEquals(1_024, worker.units());
            assertTrue(at[1] > at[0], "the tree stayed frozen until the poller took the mutex over");
            assertTrue(at[2] > at[1], "the whole tree was granted after the margin's reset");
        }
    }

    /**
     * The background poller scales the tree up on its own: one request reaches past N once, and
     * no client acquires anything for 1 ms after; by then the tree has grown (the next request, in
     * [0, 256), finds the old root marked and runs on the new tree).
     */
    @Test
    void thePollerScalesUpWithoutAnotherRequestPastN() {
        var opts = LockOptions.parse(List.of("units=256", "scale-poll-ns=100us"));
        try (SimFabric fabric = new SimFabric(SimConfig.builder().seed(3).build())) {
            var citron = RangeLockProtocols.byName("citron");
            Endpoint e = fabric.newEndpoint();
            var c = (CitronClient) citron.open(e, "poll", opts);
            long[] seen = new long[4];
            ClientThread t = fabric.spawn("client", () -> {
                RangeGrant g = c.acquire(0, 5_000, Mode.EXCLUSIVE);
                c.release(g);
                seen[0] = c.units();
                e.clock().sleepNanos(1_000 * US);
                seen[1] = c.scaleUps();
                seen[2] = c.poller().polls();
                g = c.acquire(10, 20, Mode.EXCLUSIVE);
                c.release(g);
                seen[3] = c.units();
                c.close();
            });
            t.join();
            assertEquals(256, seen[0], "an acquire does not scale up");
            assertEquals(1, seen[1], "the poller scaled up while the client was idle");
            assertTrue(seen[2] >= 5 && seen[2] <= 11, "about one poll per 100 us: " + seen[2]);
            assertEquals(16_384, seen[3]);
            assertTrue(c.refetches() >= 1);
        }
    }

    /**
     * Scale-down under a blocking call: a manager grows the tree from 256 to 16 384 units, then
     * (a truncate) shrinks it back to 256 while 6 clients keep locking ranges (they wait for the
     * drain, then ranges past 256 take the spillover mutex again), then grows it again (into a
     * fresh expansion). Ranges stay exclusive throughout and every client ends on N = 256 or the
     * regrown tree.
     */
    @Test
    void scaleDownKeepsOneSubtreeAndScaleUpGrowsItAgain() {
        var opts = LockOptions.parse(List.of("units=256", "scale-poll-ns=inf"));
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(23)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            Endpoint me = fabric.newEndpoint();
            var manager = (CitronClient) citron.open(me, "shrink", opts);
            long[] unitsSeen = new long[3];
            long[] took = new long[2];
            var mrec = history.recorder(99);
            ClientThread m = fabric.spawn("manager", () -> {
                RangeGrant g = manager.acquire(0, 5_000, Mode.EXCLUSIVE); // ORs 5 000 into the maximizer
                mrec.granted(g);
                mrec.releasing(g);
                manager.release(g);
                manager.scaleUp();
                unitsSeen[0] = manager.units();
                me.clock().sleepNanos(300 * US);
                assertThrows(IllegalArgumentException.class, () -> manager.scaleDown(1_024));
                long t = fabric.observerNanoTime();
                manager.scaleDown(256);
                took[0] = fabric.observerNanoTime() - t;
                unitsSeen[1] = manager.units();
                me.clock().sleepNanos(300 * US);
                g = manager.acquire(0, 5_000, Mode.EXCLUSIVE);
                mrec.granted(g);
                mrec.releasing(g);
                manager.release(g);
                t = fabric.observerNanoTime();
                manager.scaleUp();
                took[1] = fabric.observerNanoTime() - t;
                unitsSeen[2] = manager.units();
            });
            List<ClientThread> threads = new ArrayList<>();
            List<CitronClient> locks = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                int client = i;
                Endpoint e = fabric.newEndpoint();
                var l = (CitronClient) citron.open(e, "shrink", opts);
                locks.add(l);
                var rec = history.recorder(client);
                threads.add(fabric.spawn("c" + client, () -> {
                    SplittableRandom rnd = new SplittableRandom(client * 31L);
                    for (int op = 0; op < 250; op++) {
                        long size = 1 + (long) Math.exp(rnd.nextDouble() * Math.log(3_000));
                        long start = rnd.nextLong(12_000 - size);
                        rec.requesting();
                        RangeGrant g = l.acquire(start, start + size, Mode.EXCLUSIVE);
                        rec.granted(g);
                        e.clock().sleepNanos(3 * US);
                        rec.releasing(g);
                        l.release(g);
                    }
                }));
            }
            m.join();
            threads.forEach(ClientThread::join);
            var holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            assertTrue(v.isEmpty(), v.toString());
            System.out.printf("scale up/down/up: N = %d, %d, %d; under load scale-down took %.1f us, scale-up %.1f us;"
                    + " client refetches %s%n", unitsSeen[0], unitsSeen[1], unitsSeen[2], took[0] / 1e3, took[1] / 1e3,
                    locks.stream().map(CitronClient::refetches).toList());
            assertEquals(16_384, unitsSeen[0]);
            assertEquals(256, unitsSeen[1]);
            assertEquals(16_384, unitsSeen[2]);
            assertEquals(1, manager.scaleDowns());
            assertEquals(2, manager.scaleUps());
            assertTrue(locks.stream().allMatch(l -> l.refetches() >= 2), "every client followed the changes");
        }
    }
}
