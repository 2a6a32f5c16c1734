package io.lockfabric.lock.dslr;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import io.lockfabric.check.LockStress;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DSLR's COUNT_MAX overflow reset under contention, in virtual time: whether an acquisition meets a
 * reset in progress depends on scheduling, which real threads on a busy machine do not guarantee and
 * a seed does.
 */
class DslrOverflowSimTest {
    @Test
    void acquisitionsMeetResetsInProgressAndUndoTheirTickets() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(3).build())) {
            var options = LockOptions.of(Map.of("count-max", 64L, "omega-ns", 1_000L));
            var cfg = LockStress.Config.of(8, 1, 0, 0.5, 2_000).withOptions(options);
            var result = LockStress.run(fabric, LockProtocols.byName("dslr"), cfg);
            assertTrue(result.violations().isEmpty(), result.summary());
            assertTrue(result.stats().resets() >= 8L * 2_000 / 127 - 1, "tickets ran out again and again: " + result.stats());
            assertTrue(result.stats().retries() > 0, "some acquisitions met a reset in progress: " + result.stats());
        }
    }
}
