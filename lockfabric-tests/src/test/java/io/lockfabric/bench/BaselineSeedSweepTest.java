package io.lockfabric.bench;

import org.junit.jupiter.api.Tag;

import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.sim.SimCheck;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The queue-lock baselines without recovery ({@code mcs}, {@code rmarw}) over many seeds on the
 * simulator, each run with a client pause of 10 µs to 3 ms at a seed-chosen moment (no crash:
 * they cannot recover from one). A paused holder or queue member only delays the others: no seed
 * may produce a violation or leave a client stuck. rmarw runs with small thresholds so that mode
 * changes and counter resets happen in every run.
 */
@Tag("seeds")
@Tag("faults")
class BaselineSeedSweepTest {
    static final int SEEDS = 200;

    @ParameterizedTest
    @ValueSource(strings = {"mcs", "rmarw"})
    void pausesNeverBreakTheQueue(String protocol) {
        SimConfig cluster = SimConfig.builder().computeNodes(2).clientsPerComputeNode(2).build();
        PointWorkload workload = PointWorkload.builder().clients(4).locks(2).readRatio(0.5).cs(1)
                .durationNs(3_000_000).warmupNs(0).check(true)
                .options(ProtocolOptions.parse(List.of("rmarw.write-threshold=2", "rmarw.reader-threshold=4"))).build();
        SimCheck<LockProtocol> check = new SimCheck<>(cluster, workload, FaultPlan.parse("pause@10us..3ms"));
        SimCheck.Tally tally = new SimCheck.Tally(protocol);
        for (long seed = 1; seed <= SEEDS; seed++) {
            tally.add(seed, check.run(LockProtocols.byName(protocol), seed));
        }
        assertTrue(tally.violations().isEmpty(), () -> tally.violations().stream()
                .map(f -> "seed " + f.seed() + ": " + f.violation().description())
                .collect(Collectors.joining("\n")));
        assertEquals(0, tally.crashes(), "no crash in this plan");
        assertEquals(0, tally.stuckExpected(), "nobody is left blocked by a pause");
        assertTrue(tally.operations() > SEEDS * 100L, "the runs did work: " + tally.operations());
    }

    /**
     * A crash breaks these queues for good. A client that finds its queue neighbour gone is told so
     * ({@link io.lockfabric.lock.LockUnavailableException}) and gives up; the run goes on without it,
     * is checked, and reports it: with faults, every protocol gets its seeds checked, whether it
     * recovers or not.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mcs", "rmarw"})
    void aCrashBreaksTheQueueItsClientsGiveUpOrWaitAndTheRunIsStillChecked(String protocol) {
        SimConfig cluster = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).build();
        PointWorkload workload = PointWorkload.builder().clients(8).locks(8).zipf(0.99).readRatio(0.5).cs(1)
                .durationNs(20_000_000).warmupNs(0).check(true).build();
        SimCheck<LockProtocol> check = new SimCheck<>(cluster, workload, FaultPlan.parse("crash"));
        SimCheck.Tally tally = new SimCheck.Tally(protocol);
        for (long seed = 1; seed <= 10; seed++) {
            RunResult r = check.run(LockProtocols.byName(protocol), seed);
            tally.add(seed, r);
            if (!r.faults().gaveUpClients().isEmpty()) {
                assertTrue(!r.faults().livenessAsserted(), "no liveness is promised after a crash");
                assertTrue(r.faults().crashedClients().size() == 1, "a crash broke the lock");
            }
        }
        assertTrue(tally.violations().isEmpty(), () -> tally.violations().stream()
                .map(f -> "seed " + f.seed() + ": " + f.violation().description())
                .collect(Collectors.joining("\n")));
        assertEquals(10, tally.crashes());
        assertTrue(tally.gaveUpExpected() >= 1, "some client met a broken queue and gave up");
        assertTrue(tally.stuckExpected() >= 1, "some client waits for ever on a dead neighbour");
    }
}
