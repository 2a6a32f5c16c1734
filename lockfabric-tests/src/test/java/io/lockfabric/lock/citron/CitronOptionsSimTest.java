package io.lockfabric.lock.citron;

import org.junit.jupiter.api.Tag;

import io.lockfabric.check.Hold;
import io.lockfabric.check.RangeLockStress;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Range exclusion with other settings than the defaults: other meet-in-the-middle distances and
 * split sizes, no fast path, a T_wait so short against a jittery network ({@code jitter-ns}, a
 * setting of this test) that notifications often come too late (they must then abort), and a
 * deeper tree. 8 simulated clients, ranges of 1 … 10 000 units.
 */
@Tag("stress")
class CitronOptionsSimTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "m=1 k=1",
            "m=2 k=3",
            "m=3 fast-path=0",
            "m=4 k=4 t-wait-ns=9us jitter-ns=2000",
            "m=2 t-wait-ns=14us fast-path=0 jitter-ns=2000",
            "units=262144 m=4",
            "units=262144 m=5 k=2",
            "fencing=0 m=3"})
    void randomRangesStayExclusive(String settings) {
        List<String> opts = new java.util.ArrayList<>(Arrays.asList(settings.split(" ")));
        long units = 16_384;
        if (opts.stream().noneMatch(o -> o.startsWith("units="))) {
            opts.add("units=" + units);
        } else {
            units = Long.parseLong(opts.stream().filter(o -> o.startsWith("units=")).findFirst().orElseThrow().substring(6));
        }
        long jitter = SimConfig.builder().build().networkJitterNs();
        for (String o : List.copyOf(opts)) {
            if (o.startsWith("jitter-ns=")) {
                jitter = Long.parseLong(o.substring("jitter-ns=".length()));
                opts.remove(o);
            }
        }
        long space = units + 4_096;
        // Deep trees: crowd the ranges into the tree's last 16 K units plus the spillover part.
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4)
                .networkJitterNs(jitter).seed(17).build())) {
            var cfg = new RangeLockStress.Config(8, space, 10_000, 0, 600, 2_000, 7, LockOptions.parse(opts));
            var result = RangeLockStress.run(fabric, RangeLockProtocols.byName("citron"), cfg);
            System.out.printf("citron %s: %d grants, %s%n", settings, result.holds().size(), result.stats());
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(8 * 600, result.holds().size());
            assertTrue(result.holds().stream().allMatch(h -> h.releasedAt() != Hold.NEVER));
            if (opts.contains("fencing=0")) {
                // No counter: every token is 0, and the harness must not have checked their order.
                assertTrue(result.holds().stream().allMatch(h -> h.token() == 0), "fencing=0 takes no tokens");
                assertTrue(!RangeLockProtocols.byName("citron").strictFencing(cfg.options()));
            } else {
                assertTrue(result.holds().stream().anyMatch(h -> h.token() > 0), "fencing on takes tokens");
            }
        }
    }
}
