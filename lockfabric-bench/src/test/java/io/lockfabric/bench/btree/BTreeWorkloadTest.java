package io.lockfabric.bench.btree;

import io.lockfabric.apps.btree.BTreeLocks;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.RunDriver;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.sim.SimCheck;
import io.lockfabric.check.Violation;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code btree} workload kind with its check (lock history, then the full scan against the
 * counted increments and the structure): every variant on the simulator over seeds, with pauses,
 * late messages and memory-node pauses, on the local fabric, and a broken lock caught.
 */
@Tag("seeds")
@Tag("faults")
@Tag("stress")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BTreeWorkloadTest {
    private static final SimConfig CLUSTER = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).memoryNodes(1)
            .build();

    /** 400 keys, half loaded (the rest inserted during the run: splits), fan-out 8, Zipf 0.9. */
    private static BTreeWorkload small(BTreeMix mix, int clients, long durationNs, long warmupNs) {
        return BTreeWorkload.of(mix, 400, new Phases(clients, durationNs, 0, warmupNs, 1)).withFanout(8)
                .withLoadEvery(2).withZipf(0.9).checked();
    }

    private static void assertClean(RunResult r, String what) {
        assertClean(r, what, 50);
    }

    /** Clean, no client stuck, more than {@code min} updates and (unless min < 0) some grants recorded. */
    private static void assertClean(RunResult r, String what, long min) {
        assertTrue(r.correct(), what + ": " + r.violations());
        assertTrue(r.check().clean(), what + ": " + r.check().violations());
        assertTrue(r.faults() == null || r.faults().stuckClients().isEmpty(), what + ": stuck " + r.faults());
        assertTrue(r.kind(BTreeWorkload.UPDATE).operations() > min, what + ": updates " + r.kind(BTreeWorkload.UPDATE));
        if (min >= 0) {
            assertTrue(r.check().holds() > 0, what + ": the node locks' grants are in the history");
        }
    }

    @Test
    void everyVariantChecksOutOnTheSimulatorOverSeeds() {
        SimCheck<String> check = new SimCheck<>(CLUSTER, small(BTreeMix.UPDATE_HEAVY, 8, 2_000_000, 300_000),
                FaultPlan.NONE);
        for (String v : BTreeLocks.VARIANTS) {
            for (long seed = 1; seed <= 3; seed++) {
                RunResult r = check.run(v, seed);
                assertClean(r, v + " seed " + seed);
                assertTrue(r.kind(BTreeWorkload.SEARCH).operations() > 50, v + ": searches");
            }
        }
    }

    @Test
    void everyVariantChecksOutUnderPausesLateMessagesAndMemoryNodePauses() {
        SimCheck<String> check = new SimCheck<>(CLUSTER, small(BTreeMix.UPDATE_ONLY, 8, 2_000_000, 300_000),
                FaultPlan.parse("pause=2@50us..300us,delay=0.02,mn-pause=1@100us"));
        for (String v : BTreeLocks.VARIANTS) {
            for (long seed = 1; seed <= 2; seed++) {
                RunResult r = check.run(v, seed);
                assertEquals(3, r.faults().faults().size(), v + ": three pauses scheduled");
                assertClean(r, v + " seed " + seed);
            }
        }
    }

    @Test
    void shermansHandoversHappenAndTheSameSeedGivesTheSameRun() {
        SimCheck<String> check = new SimCheck<>(CLUSTER, small(BTreeMix.UPDATE_ONLY, 8, 1_000_000, 200_000),
                FaultPlan.NONE);
        RunResult a = check.run("sherman", 7);
        RunResult b = check.run("sherman", 7);
        assertEquals(a.measuredOps(), b.measuredOps());
        assertEquals(a.byKind(), b.byKind());
        assertTrue(BTreeReportLayout.handovers(a) > 0, "clients of one compute node hand the lock over");
        assertEquals(0, BTreeReportLayout.handovers(check.run("sherman-nh", 7)), "no handover without the local lock");
    }

    @Test
    void aLockBrokenByItsLeaseLosesUpdatesAndTheCheckSaysWhich() {
        // shiftlock with a 100 us lease and holders paused for milliseconds: their locks are reset under
        // them, and a paused holder's late write of its leaf overwrites what others wrote meanwhile
        SimCheck<String> check = new SimCheck<>(CLUSTER, small(BTreeMix.UPDATE_ONLY, 8, 3_000_000, 300_000)
                .withZipf(0.99).withOptions(ProtocolOptions.parse(List.of("lease-ns=100us"))),
                FaultPlan.parse("pause=12@500us..2ms"));
        boolean caught = false;
        for (long seed = 1; seed <= 8 && !caught; seed++) {
            RunResult r = check.run("shiftlock", seed);
            caught = r.violations().stream().anyMatch(v -> v instanceof Violation.Data d
                    && d.what().contains("increments")); // a violation, not a hazard set apart
        }
        assertTrue(caught, "a lost increment is reported");
    }

    @Test
    void everyVariantChecksOutOnTheLocalFabric() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Runner runner = new Runner(RunDriver.threads(fabric), false, new PrintStream(OutputStream.nullOutputStream()));
            for (String v : BTreeLocks.VARIANTS) {
                RunResult r = runner.run(v, small(BTreeMix.UPDATE_HEAVY, 4, TimeUnit.MILLISECONDS.toNanos(300),
                        TimeUnit.MILLISECONDS.toNanos(100)).withOptions(ProtocolOptions.parse(
                        v.equals("shiftlock") || v.equals("declock") ? List.of("lease-ns=5s") : List.of())));
                assertClean(r, v + " on local", -1); // real time: the rate depends on the (shared) machine
                assertFalse(r.check().violations().stream().anyMatch(x -> x instanceof Violation.Data));
            }
        }
    }
}
