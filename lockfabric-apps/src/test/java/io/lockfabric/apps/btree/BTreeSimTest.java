package io.lockfabric.apps.btree;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every lock variant on the simulator (2 compute nodes of 4 clients, so Sherman's local locks hand
 * over), over several seeds, some with the memory node's NIC paused mid-run: the check after each
 * run, and one seed run twice gives the same tree.
 */
@Tag("seeds")
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BTreeSimTest {
    private static final BTreeOptions OPTIONS = BTreeOptions.DEFAULTS.withFanout(8).withCapacity(4_096).withLocks(128);

    private static SimFabric fabric(long seed) {
        return new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).memoryNodes(1).seed(seed)
                .build());
    }

    @Test
    void everyVariantKeepsEveryIncrementOnTheSimulatorOverSeedsAndMemoryNodePauses() {
        for (String variant : BTreeLocks.VARIANTS) {
            for (long seed = 1; seed <= 3; seed++) {
                try (SimFabric fabric = fabric(seed)) {
                    if (seed == 3) {
                        fabric.pauseMemoryNodeAt(0, 30_000, 200_000);
                        fabric.pauseMemoryNodeAt(0, 400_000, 50_000);
                    }
                    BTreeStress.Outcome o = BTreeStress.run(fabric, variant + "-" + seed, OPTIONS.withLock(variant),
                            8, 150, 400, 3, 0.3, seed);
                    assertTrue(o.splits() > 0, variant + " seed " + seed + ": inserts split nodes");
                }
            }
        }
    }

    @Test
    void withoutTheIndexCacheADescentReadsEveryLevelAndTheTreeChecksOutAlike() {
        for (boolean cache : new boolean[]{true, false}) {
            try (SimFabric fabric = fabric(9)) {
                BTreeStress.Outcome o = BTreeStress.run(fabric, "cache-" + cache, OPTIONS.withIndexCache(cache),
                        8, 150, 400, 3, 0.3, 9);
                assertTrue(o.check().levels() >= 3, o.check().toString());
            }
        }
    }

    @Test
    void theSameSeedGivesTheSameTree() {
        List<Long> first = null;
        for (int run = 0; run < 2; run++) {
            try (SimFabric fabric = fabric(5)) {
                BTreeStress.Outcome o = BTreeStress.run(fabric, "same", OPTIONS, 8, 100, 300, 2, 0.5, 5);
                List<Long> shape = List.of((long) o.check().levels(), o.check().nodes(), o.splits(), o.increments(),
                        fabric.observerNanoTime());
                if (first == null) {
                    first = shape;
                } else {
                    assertEquals(first, shape);
                }
            }
        }
    }
}
