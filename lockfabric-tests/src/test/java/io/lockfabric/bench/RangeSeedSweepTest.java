package io.lockfabric.bench;

import org.junit.jupiter.api.Tag;

import io.lockfabric.bench.range.RangeWorkload;
import io.lockfabric.bench.sim.SimCheck;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Range protocols swept like the lock protocols ({@link SeedSweepTest}): seeds of the range
 * workload on the simulator, each with a client crash and a client pause (10 µs to 3 ms, on both
 * sides of citron's shortened 1 ms lease), checked for range exclusion, liveness where promised and
 * recovery within the bound: no seed may produce a violation.
 */
@Tag("seeds")
@Tag("faults")
class RangeSeedSweepTest {
    static final int SEEDS = 40;

    @ParameterizedTest
    @ValueSource(strings = {"citron", "lld", "mt", "llc"})
    void noSeedFindsAViolation(String protocol) {
        SimConfig cluster = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).build();
        RangeWorkload workload = RangeWorkload.builder().clients(8).units(4_096).sizes(RangeWorkload.MIXED).zipf(0.99)
                .csNs(1_000).durationNs(3_000_000).warmupNs(0).options(List.of("citron.lease-ns=1ms")).build();
        SimCheck<RangeLockProtocol> check = new SimCheck<>(cluster, workload, FaultPlan.parse("crash,pause@10us..3ms"));
        SimCheck.Tally tally = new SimCheck.Tally(protocol);
        for (long seed = 1; seed <= SEEDS; seed++) {
            tally.add(seed, check.run(RangeLockProtocols.byName(protocol), seed));
        }
        assertTrue(tally.violations().isEmpty(), () -> tally.violations().stream()
                .map(f -> "seed " + f.seed() + ": " + f.violation().description())
                .collect(Collectors.joining("\n")));
        assertTrue(tally.crashes() > SEEDS / 2, "most seeds crash a client before the end: " + tally.crashes());
        assertTrue(tally.operations() > SEEDS * 100L, "the runs did work: " + tally.operations());
    }
}
