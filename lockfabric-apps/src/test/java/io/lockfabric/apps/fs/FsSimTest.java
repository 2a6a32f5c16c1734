package io.lockfabric.apps.fs;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CitronFS on the simulator: 2 compute nodes of 4 clients, the metadata and locks on memory node 0
 * and the file data striped over memory nodes 1 and 2 (the link model on), over several seeds, some
 * with a client paused and a memory node paused mid-run ({@link FsStress}'s check after each), and
 * one seed run twice gives the same run.
 */
@Tag("seeds")
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FsSimTest {
    private static final FsOptions OPTIONS = FsStressTest.OPTIONS.withDataNodes(1, 2);

    private static SimFabric fabric(long seed) {
        return new SimFabric(SimConfig.defaults().toBuilder().computeNodes(2).clientsPerComputeNode(4).memoryNodes(3)
                .seed(seed).mnLinkGbps(100).build());
    }

    @Test
    void everyLockManagerKeepsPosixLikeSemanticsOverSeedsAndPauses() {
        for (String manager : List.of("citron", "ss", "rpc-range", "lld", "mutex")) {
            for (long seed = 1; seed <= 3; seed++) {
                long s = seed;
                try (SimFabric fabric = fabric(seed)) {
                    FsStress.Outcome o = FsStress.run(fabric, "sim-" + manager + "-" + seed,
                            OPTIONS.withLockManager(manager).withSharedReads(seed == 2)
                                    .withLockOptions(manager.equals("ss") ? List.of("segment=4096") : List.of()),
                            8, 40, 16, 0.6, seed, threads -> {
                                if (s == 3) {
                                    fabric.pauseAt((SimProcess) threads.get(1), 20_000, 300_000);
                                    fabric.pauseMemoryNodeAt(0, 50_000, 100_000);
                                    fabric.pauseMemoryNodeAt(1, 120_000, 80_000);
                                }
                            });
                    assertTrue(o.writes() > 0 && o.reads() > 0, manager + " seed " + seed + ": " + o);
                }
            }
        }
    }

    @Test
    void theSameSeedGivesTheSameRun() {
        List<Long> first = null;
        for (int run = 0; run < 2; run++) {
            try (SimFabric fabric = fabric(5)) {
                FsStress.Outcome o = FsStress.run(fabric, "same", OPTIONS, 8, 30, 16, 0.5, 5, null);
                List<Long> shape = List.of(o.writes(), o.reads(), o.size(), fabric.observerNanoTime());
                if (first == null) {
                    first = shape;
                } else {
                    assertEquals(first, shape);
                }
            }
        }
    }
}
