package io.lockfabric.lock.citron;

import io.lockfabric.bench.range.RangeWorkload;
import io.lockfabric.bench.sim.SimCheck;
import io.lockfabric.check.History;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.RangeExclusionContractTest;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * citron's reader lanes ({@code shared-lanes}, {@link ReaderLanes}) on the simulator: seeds with
 * injected crashes and pauses, scale-up and scale-down of every lane while readers and writers
 * hold and request, a writer that gives its earlier lanes back, and the exclusive default.
 */
@Tag("seeds")
@Tag("faults")
class CitronReaderLanesSimTest {
    private static final long US = 1_000;
    private static final int SEEDS = 24;

    /**
     * The range seed sweep ({@code RangeSeedSweepTest}) at 90% shared: each seed crashes a client
     * and pauses one (10 µs to 3 ms, both sides of the 1 ms lease); range exclusion (readers may
     * overlap readers only), liveness and recovery are checked. No seed may find a violation.
     */
    @Test
    void noSeedFindsAViolationWithReadersAndFaults() {
        SimConfig cluster = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).build();
        RangeWorkload workload = RangeWorkload.builder().clients(8).units(4_096).sizes(RangeWorkload.MIXED).zipf(0.99)
                .csNs(1_000).durationNs(3_000_000).warmupNs(0).readRatio(0.9)
                .options(List.of("citron.lease-ns=1ms", "citron.shared-lanes=4")).build();
        SimCheck<RangeLockProtocol> check = new SimCheck<>(cluster, workload, FaultPlan.parse("crash,pause@10us..3ms"));
        SimCheck.Tally tally = new SimCheck.Tally("citron");
        for (long seed = 1; seed <= SEEDS; seed++) {
            tally.add(seed, check.run(RangeLockProtocols.byName("citron"), seed));
        }
        System.out.printf("citron shared-lanes=4, 90%% shared: %d seeds, %d operations, %d crashes%n", SEEDS,
                tally.operations(), tally.crashes());
        assertTrue(tally.violations().isEmpty(), () -> tally.violations().stream()
                .map(f -> "seed " + f.seed() + ": " + f.violation().description())
                .collect(Collectors.joining("\n")));
        assertTrue(tally.crashes() > SEEDS / 2, "most seeds crash a client before the end: " + tally.crashes());
        assertTrue(tally.operations() > SEEDS * 100L, "the runs did work: " + tally.operations());
    }

    /**
     * Seeds of a scripted run with no faults: readers overlap readers (counted), writers overlap
     * nobody, fencing tokens increase over every writer.
     */
    @Test
    void readersOverlapOnEverySeed() {
        for (long seed = 1; seed <= 6; seed++) {
            var opts = LockOptions.parse(List.of("units=1024", "shared-lanes=4", "scale-poll-ns=inf"));
            Run r = run(seed, opts, 6, 200, 4_096, 0.75, null);
            assertTrue(r.violations.isEmpty(), "seed " + seed + ": " + r.violations);
            assertTrue(r.readerOverlaps > 0, "seed " + seed + ": readers overlapped readers");
        }
    }

    /**
     * Every lane scales up on its own (N = 256 at first, a space that grows to 20 000 units, the
     * poller every 40 µs) while readers and writers hold and request; then a scale-down brings every
     * lane back to 256 and the clients carry on. No overlap of a writer with anyone, tokens increase.
     */
    @Test
    void everyLaneScalesUpAndDownWithReaders() {
        var opts = LockOptions.parse(List.of("units=256", "shared-lanes=3", "scale-poll-ns=40us"));
        Run r = run(7, opts, 6, 250, 20_000, 0.7, (fabric, manager) -> {
            long[] before = manager.laneClients().stream().mapToLong(CitronClient::currentUnits).toArray();
            manager.scaleDown(256);
            long[] after = manager.laneClients().stream().mapToLong(CitronClient::currentUnits).toArray();
            System.out.printf("lanes' N before scale-down %s, after %s%n", java.util.Arrays.toString(before),
                    java.util.Arrays.toString(after));
            for (long n : before) {
                assertTrue(n >= 4_096, "every lane grew: " + java.util.Arrays.toString(before));
            }
            for (long n : after) {
                assertEquals(256, n);
            }
        });
        assertTrue(r.violations.isEmpty(), r.violations.toString());
        assertTrue(r.readerOverlaps > 0, "readers overlapped readers");
        assertTrue(r.scaleUps >= 3, "the lanes scaled up: " + r.scaleUps);
    }

    /** The default (shared-lanes=1) grants a shared request exclusive, on one table: the paper's protocol. */
    @Test
    void oneLaneGrantsSharedRequestsExclusive() {
        var citron = RangeLockProtocols.byName("citron");
        assertTrue(!citron.supportsShared() && !citron.supportsShared(LockOptions.parse(List.of())));
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(2).seed(3)
                .build())) {
            Endpoint e = fabric.newEndpoint();
            var c = (CitronClient) citron.open(e, "one", LockOptions.parse(List.of("units=1024")));
            Mode[] got = new Mode[2];
            fabric.spawn("c", () -> {
                RangeGrant g = c.acquire(0, 10, Mode.SHARED);
                got[0] = g.mode();
                c.release(g);
            }).join();
            Endpoint e2 = fabric.newEndpoint();
            var lanes = (CitronClient) citron.open(e2, "four", LockOptions.parse(List.of("units=1024",
                    "shared-lanes=4")));
            Throwable[] failed = new Throwable[1];
            fabric.spawn("l", () -> {
                try {
                    RangeGrant g = lanes.acquire(0, 10, Mode.SHARED);
                    got[1] = g.mode();
                    lanes.release(g);
                } catch (Throwable t) {
                    failed[0] = t;
                }
            }).join();
            if (failed[0] != null) {
                throw new AssertionError("shared acquire failed", failed[0]);
            }
            assertThrows(IllegalArgumentException.class,
                    () -> citron.open(e, "bad", LockOptions.parse(List.of("units=1024", "shared-lanes=0"))));
            assertEquals(Mode.EXCLUSIVE, got[0]);
            assertEquals(Mode.SHARED, got[1]);
            assertEquals(1, c.laneClients().size());
            assertEquals(4, lanes.laneClients().size());
        }
    }

    /**
     * A writer holds lane 0 of [0, 64) while a reader of lane 1 keeps the same range for 2 ms: past
     * hold-wait (200 µs) the writer gives lane 0 back (a lane-0 reader gets in meanwhile), restarts
     * and is granted after the reader.
     */
    @Test
    void aWriterGivesItsEarlierLanesBackAfterHoldWait() {
        var opts = LockOptions.parse(List.of("units=1024", "shared-lanes=2", "hold-wait-ns=200us",
                "scale-poll-ns=inf"));
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(3).seed(9)
                .build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            CitronClient[] c = new CitronClient[3];
            Endpoint[] e = new Endpoint[3];
            for (int i = 0; i < 3; i++) {
                e[i] = fabric.newEndpoint();
                c[i] = (CitronClient) citron.open(e[i], "yield", opts);
            }
            long[] grantedAt = new long[3];
            List<ClientThread> threads = new ArrayList<>();
            // The reader: lane 1, held 2 ms.
            threads.add(fabric.spawn("reader", () -> {
                var rec = history.recorder(0);
                RangeGrant g = c[0].acquireSharedIn(0, 64, 1);
                rec.granted(g);
                grantedAt[0] = fabric.observerNanoTime();
                e[0].clock().sleepNanos(2_000 * US);
                rec.releasing(g);
                c[0].release(g);
            }));
            threads.add(fabric.spawn("writer", () -> {
                var rec = history.recorder(1);
                e[1].clock().sleepNanos(100 * US);
                rec.requesting();
                RangeGrant g = c[1].acquire(0, 64, Mode.EXCLUSIVE);
                grantedAt[1] = fabric.observerNanoTime();
                rec.granted(g);
                rec.releasing(g);
                c[1].release(g);
            }));
            threads.add(fabric.spawn("reader0", () -> {
                var rec = history.recorder(2);
                e[2].clock().sleepNanos(800 * US); // after the writer gave lane 0 back
                RangeGrant g = c[2].acquireSharedIn(0, 64, 0);
                grantedAt[2] = fabric.observerNanoTime();
                rec.granted(g);
                e[2].clock().sleepNanos(10 * US);
                rec.releasing(g);
                c[2].release(g);
            }));
            threads.forEach(ClientThread::join);
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(history.holds()));
            v.addAll(RangeExclusionChecker.fencing(history.holds()));
            assertTrue(v.isEmpty(), v.toString());
            long yields = c[1].stats().counter("lanes.writer-yields");
            System.out.printf("writer yields %d; reader1 at %.0f us, lane-0 reader at %.0f us, writer at %.0f us%n", yields,
                    grantedAt[0] / 1e3, grantedAt[2] / 1e3, grantedAt[1] / 1e3);
            assertTrue(yields >= 1, "the writer gave lane 0 back");
            assertTrue(grantedAt[2] < grantedAt[0] + 2_000 * US, "the lane-0 reader got in while the writer waited");
            assertTrue(grantedAt[1] > grantedAt[0] + 2_000 * US, "the writer came after the lane-1 reader");
        }
    }

    // ------------------------------------------------------------------ a scripted run

    /** What a run found. */
    private record Run(List<Violation> violations, long readerOverlaps, long scaleUps, LockStats stats) {
    }

    /** What runs once every client is done (on a simulated process). */
    private interface After {
        void run(SimFabric fabric, CitronClient manager);
    }

    /**
     * {@code clients} clients each take {@code ops} random ranges of a space growing to
     * {@code space} (shared with {@code readRatio}), hold them 3 µs; then {@code after} runs, and
     * every client takes {@code ops / 4} more.
     */
    private static Run run(long seed, LockOptions opts, int clients, int ops, long space, double readRatio,
                           After after) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(clients / 2)
                .seed(seed).build())) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            List<CitronClient> locks = new ArrayList<>();
            List<Endpoint> endpoints = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                Endpoint e = fabric.newEndpoint();
                endpoints.add(e);
                locks.add((CitronClient) citron.open(e, "lanes", opts));
            }
            phase(fabric, history, locks, endpoints, seed, ops, space, readRatio, 0);
            if (after != null) {
                Endpoint me = fabric.newEndpoint();
                var manager = (CitronClient) citron.open(me, "lanes", opts);
                fabric.spawn("manager", () -> after.run(fabric, manager)).join();
                phase(fabric, history, locks, endpoints, seed, ops / 4, space, readRatio, 1);
            }
            var holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            long scaleUps = locks.stream().flatMap(l -> l.laneClients().stream()).mapToLong(CitronClient::scaleUps)
                    .sum();
            LockStats stats = locks.stream().map(CitronClient::stats).reduce(LockStats.ZERO, LockStats::plus);
            long overlaps = RangeExclusionContractTest.readerOverlaps(holds);
            System.out.printf("seed %d: %d holds, %d reader pairs overlapped, %d scale-ups, writer yields %d%n", seed,
                    holds.size(), overlaps, scaleUps, stats.counter("lanes.writer-yields"));
            return new Run(v, overlaps, scaleUps, stats);
        }
    }

    private static void phase(SimFabric fabric, History history, List<CitronClient> locks, List<Endpoint> endpoints,
                              long seed, int ops, long space, double readRatio, int round) {
        List<ClientThread> threads = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            int client = i;
            CitronClient l = locks.get(i);
            Endpoint e = endpoints.get(i);
            var rec = history.recorder(client);
            threads.add(fabric.spawn("c" + client + "-" + round, () -> {
                SplittableRandom rnd = new SplittableRandom(seed * 7919L + client * 31L + round);
                for (int op = 0; op < ops; op++) {
                    long reach = Math.max(512, space * (op + 1) / ops);
                    long size = 1 + (long) Math.exp(rnd.nextDouble() * Math.log(2_000));
                    long start = rnd.nextLong(Math.max(1, reach - size));
                    Mode mode = rnd.nextDouble() < readRatio ? Mode.SHARED : Mode.EXCLUSIVE;
                    rec.requesting();
                    RangeGrant g = l.acquire(start, start + size, mode);
                    if (g.mode() != mode) {
                        throw new AssertionError(mode + " request granted " + g.mode());
                    }
                    rec.granted(g);
                    e.clock().sleepNanos(3 * US);
                    rec.releasing(g);
                    l.release(g);
                }
            }));
        }
        threads.forEach(ClientThread::join);
    }
}
