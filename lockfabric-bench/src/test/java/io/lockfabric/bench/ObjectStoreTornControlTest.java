package io.lockfabric.bench;

import io.lockfabric.apps.objstore.ObjectTrace;
import io.lockfabric.bench.objstore.ObjectStoreReport;
import io.lockfabric.bench.objstore.ObjectStoreWorkload;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Fabrics;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.bench.sim.SimDriver;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The object store's run check can fail: with a "lock" that excludes nobody, gets read values torn
 * by concurrent sets on local (real threads), and on the simulator the recorded holds overlap.
 */
@Tag("stress")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ObjectStoreTornControlTest {
    @Test
    void withoutExclusionTheTornValueCheckFailsTheRun() {
        ObjectTrace hot = ObjectTrace.large(4, 0.99);
        try (Fabric fabric = Fabrics.open("local")) {
            RunResult r = new Runner(RunDriver.threads(fabric), false, new PrintStream(OutputStream.nullOutputStream()))
                    .run(FaultyProtocols.noExclusion(), ObjectStoreWorkload.of(hot,
                            new Phases(4, 1_000_000_000L, 0, 50_000_000L, 1)));
            assertFalse(r.correct(), "no violation without exclusion");
            assertTrue(r.check().violations().stream().anyMatch(v -> v instanceof Violation.TornValue),
                    "a torn value: " + r.check().violations());
            assertTrue(ObjectStoreReport.torn(r) > 0);
        }
    }

    @Test
    void withoutExclusionTheSimulatorSeesOverlaps() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(2).seed(1).build())) {
            RunResult r = new Runner(new SimDriver(fabric), false, new PrintStream(OutputStream.nullOutputStream()))
                    .run(FaultyProtocols.noExclusion(), ObjectStoreWorkload.of(ObjectTrace.small(4, 0.99),
                            new Phases(4, 500_000, 0, 100_000, 1)));
            assertTrue(r.check().violations().stream().anyMatch(v -> v instanceof Violation.Overlap),
                    "overlapping holds: " + r.check().violations().size());
        }
    }
}
