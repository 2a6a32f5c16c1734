package io.lockfabric.bench.txn;

import io.lockfabric.bench.Phases;
import io.lockfabric.bench.RunDriver;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.sim.SimCheck;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.txn.Tatp;
import io.lockfabric.txn.TpcC;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code txn} workload kind: deadlock freedom of a contended TPC-C mix (one warehouse, a few
 * locks per table, so transactions collide all the time) with the checker on, on the simulator over
 * several seeds, with and without faults, and on the local fabric; per-type measures.
 */
@Tag("seeds")
@Tag("faults")
@Tag("stress")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TransactionWorkloadTest {
    private static final TpcC CONTENDED = new TpcC(1, 3, 3, 20);
    private static final SimConfig CLUSTER = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).memoryNodes(1)
            .build();
    /**
     * Not drtm: its read leases expire under a reader that holds longer than {@code tx-time-ns} (a
     * transaction waiting for its other locks does), and a writer then overlaps it, which DrTM's
     * transactions learn of at commit and abort on (its lease overruns); the checker sees the overlap.
     */
    private static final List<String> PROTOCOLS = List.of("shiftlock", "mcs", "dslr", "cas", "rmarw", "declock-tf");

    private static TransactionWorkload contended(int clients, long durationNs, long warmupNs) {
        return TransactionWorkload.of(CONTENDED, new Phases(clients, durationNs, 0, warmupNs, 1)).checked();
    }

    /** Every client committed, the history is clean, no client was stuck. */
    private static void assertLiveAndClean(RunResult r, String what) {
        assertTrue(r.correct(), what + ": " + r.violations());
        assertTrue(r.faults().stuckClients().isEmpty(), what + ": stuck clients " + r.faults().stuckClients());
        assertTrue(r.measuredOps() > 30, what + ": committed " + r.measuredOps());
        assertTrue(r.check().holds() > r.measuredOps(), what + ": every lock of every transaction is in the history");
        assertEquals(r.measuredOps(), r.byKind().values().stream().mapToLong(k -> k.operations()).sum(),
                what + ": every transaction has a type");
    }

    @Test
    void aContendedTpcCMixNeverDeadlocksOnTheSimulatorOverSeeds() {
        SimCheck<LockProtocol> check = new SimCheck<>(CLUSTER, contended(8, 5_000_000, 200_000), FaultPlan.NONE);
        for (String p : PROTOCOLS) {
            for (long seed = 1; seed <= 3; seed++) {
                RunResult r = check.run(LockProtocols.byName(p), seed);
                assertLiveAndClean(r, p + " seed " + seed);
                assertTrue(r.kind(0).locksPerOp() > 8, "NewOrder takes 10 to 20 locks: " + r.kind(0).locksPerOp());
            }
        }
    }

    @Test
    void aContendedTpcCMixSurvivesPausesAndLateMessagesOnTheSimulator() {
        SimCheck<LockProtocol> check = new SimCheck<>(CLUSTER, contended(8, 5_000_000, 200_000),
                FaultPlan.parse("pause=2@50us..300us,delay=0.02"));
        for (String p : List.of("shiftlock", "mcs", "cas")) {
            for (long seed = 1; seed <= 2; seed++) {
                RunResult r = check.run(LockProtocols.byName(p), seed);
                assertPausedAndClean(r, p + " seed " + seed);
            }
        }
    }

    private static void assertPausedAndClean(RunResult r, String what) {
        assertEquals(2, r.faults().faults().size(), what + ": two pauses scheduled");
        assertLiveAndClean(r, what);
    }

    @Test
    void theSameSeedGivesTheSameRun() {
        SimCheck<LockProtocol> check = new SimCheck<>(CLUSTER, contended(8, 1_000_000, 100_000), FaultPlan.NONE);
        RunResult a = check.run(LockProtocols.byName("shiftlock"), 7);
        RunResult b = check.run(LockProtocols.byName("shiftlock"), 7);
        assertEquals(a.measuredOps(), b.measuredOps());
        assertEquals(a.byKind(), b.byKind());
    }

    @Test
    void aContendedTpcCMixNeverDeadlocksOnTheLocalFabricWithTheChecker() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Runner runner = new Runner(RunDriver.threads(fabric), false, new PrintStream(OutputStream.nullOutputStream()));
            for (String p : List.of("shiftlock", "mcs", "dslr")) {
                RunResult r = runner.run(LockProtocols.byName(p),
                        contended(6, TimeUnit.MILLISECONDS.toNanos(300), TimeUnit.MILLISECONDS.toNanos(50)));
                assertLiveAndClean(r, p + " on local");
            }
        }
    }

    @Test
    void tatpRunsAtThePapersScaleOnTheSimulatorWithPerTypeMeasures() {
        SimCheck<LockProtocol> check = new SimCheck<>(CLUSTER,
                TransactionWorkload.of(Tatp.paper(), new Phases(8, 1_000_000, 0, 100_000, 1)).checked(), FaultPlan.NONE);
        RunResult r = check.run(LockProtocols.byName("shiftlock"), 3);
        assertTrue(r.correct(), r.violations().toString());
        double gsd = r.kind(Tatp.TYPES.indexOf(Tatp.GSD)).operations();
        assertEquals(0.35, gsd / r.measuredOps(), 0.08, "GetSubscriberData is 35% of the mix");
        assertTrue(r.kind(0).latency().p50Us() >= 2.8, "a transaction spends its 2.8 us of work: "
                + r.kind(0).latency().p50Us());
        assertEquals(1.0, r.kind(0).locksPerOp(), 1e-9, "GetSubscriberData takes one lock");
    }
}
