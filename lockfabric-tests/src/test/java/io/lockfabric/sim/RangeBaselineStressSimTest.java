package io.lockfabric.sim;

import org.junit.jupiter.api.Tag;

import io.lockfabric.check.Hold;
import io.lockfabric.check.RangeLockStress;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.RangeLockProtocols;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The range baselines under heavy contention on the simulator, with several seeds: 8 clients on a
 * space of 256 units (ranges of 1 … 32). For {@code lld} with pools of one or two entries this
 * recycles entries constantly, so stale pointers, stale CASes and the FREE hand-back are exercised;
 * for {@code ss-under} a request takes up to 17 segments; {@code rpc-range}, {@code mt} and
 * {@code llc} mix readers in.
 */
@Tag("stress")
@Tag("seeds")
class RangeBaselineStressSimTest {
    @ParameterizedTest(name = "{0} {1} seed {2}")
    @CsvSource({
            "lld, pool=1, 1", "lld, pool=1, 2", "lld, pool=2, 3", "lld, pool=2, 4",
            "ss-under, units=200, 5", "ss, segment=7, 6", "rpc-range, , 7", "rpc-range, , 8",
            "mt, , 9", "mt, , 10", "llc, , 11", "llc, , 12"})
    void hotSpaceKeepsExclusion(String protocol, String option, long seed) {
        var p = RangeLockProtocols.byName(protocol);
        var options = LockOptions.parse(option == null ? List.of() : List.of(option));
        double readers = p.supportsShared() ? 0.3 : 0.0;
        try (var fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(seed).build())) {
            var cfg = new RangeLockStress.Config(8, 256, 32, readers, 400, 2_000, seed, options);
            var result = RangeLockStress.run(fabric, p, cfg);
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(8 * 400, result.holds().size());
            assertTrue(result.holds().stream().allMatch(h -> h.releasedAt() != Hold.NEVER));
        }
    }
}
