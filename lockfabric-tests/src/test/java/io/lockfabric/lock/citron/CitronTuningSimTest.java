package io.lockfabric.lock.citron;

import org.junit.jupiter.api.Tag;

import io.lockfabric.check.Hold;
import io.lockfabric.check.RangeLockStress;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two-phase change of (m, T_wait) (FAST'23 §3.5.5, {@link CitronTuning}) under load: 8
 * simulated clients lock random unaligned ranges of 1 … 10 000 units (some across N = 16 384)
 * while a cluster manager keeps cycling the setting through m = 4, 2, 3, 1, 5 and T_wait = 15, 30,
 * 10, 20, 15 us: it proposes, polls the commit until every client finished the node acquisition it
 * began before the proposal, and keeps the new setting a while. No overlap, fencing tokens
 * increase, the guarded counters add up, and the manager really met clients inside old-epoch
 * acquisitions (commits refused) and committed many changes.
 */
@Tag("stress")
class CitronTuningSimTest {
    private static final long US = 1_000;
    private static final List<CitronTuning.Setting> CYCLE = List.of(new CitronTuning.Setting(2, 30 * US),
            new CitronTuning.Setting(3, 10 * US), new CitronTuning.Setting(1, 20 * US),
            new CitronTuning.Setting(5, 15 * US), new CitronTuning.Setting(4, 15 * US));

    @ParameterizedTest(name = "fast-path={0}")
    @ValueSource(ints = {1, 0})
    void changesOfMAndTWaitUnderLoadKeepRangesExclusive(int fastPath) {
        var tuning = new CitronTuning(4, 15 * US);
        var citron = CitronProtocol.withTuning(tuning);
        long units = 16_384;
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(23)
                .build())) {
            AtomicBoolean done = new AtomicBoolean();
            long[] counts = new long[2]; // commits, refused commits
            ClientThread manager = fabric.spawn("cluster-manager", () -> {
                var clock = fabric.newEndpoint().clock();
                for (int i = 0; !done.get(); i++) {
                    clock.sleepNanos(40 * US); // the setting in force a while
                    tuning.propose(CYCLE.get(i % CYCLE.size()));
                    while (!tuning.commit()) {
                        counts[1]++;
                        clock.sleepNanos(2 * US);
                    }
                    counts[0]++;
                }
            });
            var cfg = new RangeLockStress.Config(8, units + 4_096, 10_000, 0, 500, 2_000, 5,
                    LockOptions.parse(List.of("units=" + units, "fast-path=" + fastPath)));
            var result = RangeLockStress.run(fabric, citron, cfg);
            done.set(true);
            manager.join();
            System.out.printf("tuning under load, fast path %d: %d grants, %d crossing N, %d changes committed,"
                    + " %d commits refused, %s%n", fastPath, result.holds().size(), result.holdsCrossing(units),
                    counts[0], counts[1], result.stats());
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(8 * 500, result.holds().size());
            assertTrue(result.holds().stream().allMatch(h -> h.releasedAt() != Hold.NEVER));
            assertTrue(result.holdsCrossing(units) > 0, "some ranges crossed N");
            assertTrue(counts[0] >= 2L * CYCLE.size(), "the setting went round the cycle twice: " + counts[0]);
            assertTrue(counts[1] > 0, "some commit had to wait for an acquisition begun before its proposal");
        }
    }
}
