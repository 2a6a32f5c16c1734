package io.lockfabric.lock.citron;

import io.lockfabric.check.History;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

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
class CitronScaleSimTest {
    private static final long US = 1_000;

    @ParameterizedTest(name = "factor {0}, fast path {1}")
    @CsvSource({"4, 1", "16, 1", "4, 0"})
    void scaleUpWhileClientsHoldAndRequest(int factor, int fastPath) {
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
                        e.clock().sleepNanos(3 * US);
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
            long scaleUps = locks.stream().mapToLong(CitronClient::scaleUps).sum();
            long refetches = locks.stream().mapToLong(CitronClient::refetches).sum();
            long units = locks.stream().mapToLong(CitronClient::units).max().orElseThrow();
            System.out.printf("scale-up x%d fast path %d: %d scale-ups, %d refetches, N 256 -> %d, %d grants%n", factor,
                    fastPath, scaleUps, refetches, units, holds.size());
            assertTrue(scaleUps >= (factor == 4 ? 3 : 2), "the tree grew in several steps: " + scaleUps);
            assertTrue(units >= space / 2, "the tree grew towards the space: N = " + units);
            assertTrue(refetches >= scaleUps, "clients refetched the configuration");
        }
    }

    /**
     * Scale-down under a blocking call: a manager grows the tree from 256 to 16 384 units, then
     * (a truncate) shrinks it back to 256 while 6 clients keep locking ranges (they wait for the
     * drain, then ranges past 256 take the spillover mutex again), then grows it again (reusing
     * the expansion table). Ranges stay exclusive throughout and every client ends on N = 256 or
     * the regrown tree.
     */
    @Test
    void scaleDownKeepsOneSubtreeAndScaleUpReusesTheExpansion() {
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
                assertThrows(IllegalArgumentException.class, () -> CitronProtocol.scaleDown(manager, 1_024));
                long t = fabric.observerNanoTime();
                CitronProtocol.scaleDown(manager, 256);
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
