package io.lockfabric.lock.dslr;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DSLR+ ({@code dslr} with {@code waiting=backoff}): off by default; on, waiters poll on DecLock's
 * artifact's truncated exponential backoff (about 1 to 5 us) rather than DSLR's dynamic interval
 * (20 us per holder or waiter ahead), so they poll far more often; mutual exclusion holds on the
 * local fabric under real threads and on the simulator under several seeds.
 */
class DslrPlusBackoffTest {
    private static final LockOptions PLUS = LockOptions.of(Map.of("waiting", DslrProtocol.WAITING_BACKOFF));

    @Test
    void offByDefaultAndNamedOnTheCommandLine() {
        assertEquals(0, DslrProtocol.WAITING.defaultValue(), "DSLR's dynamic interval stays the default");
        assertTrue(new DslrProtocol().options().contains(DslrProtocol.WAITING));
        assertEquals(DslrProtocol.WAITING_BACKOFF, LockOptions.parse(List.of("waiting=backoff"))
                .validate("dslr", new DslrProtocol().options()).get(DslrProtocol.WAITING));
    }

    @Test
    void backoffPollsMoreThanTheDynamicIntervalAndKeepsMutualExclusionOnSim() {
        for (long seed : new long[] {1, 2, 3}) {
            long dynamicReads = simReads(seed, LockOptions.DEFAULTS);
            long plusReads = simReads(seed, PLUS);
            assertTrue(plusReads > 2 * dynamicReads, "seed " + seed + ": DSLR+ READs " + plusReads
                    + " vs DSLR's " + dynamicReads);
        }
    }

    @Test
    void keepsMutualExclusionOnLocal() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            var result = LockStress.run(fabric, new DslrProtocol(), LockStress.Config.of(4, 2, 0, 0.5, 3_000).withOptions(PLUS));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(4L * 3_000, result.exclusiveGrants() + result.sharedGrants());
        }
    }

    /** Memory-node READs of a contended stress run (8 clients on 2 CNs, 2 locks, half reads); checks it. */
    private static long simReads(long seed, LockOptions options) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(seed).build())) {
            var cfg = LockStress.Config.of(8, 2, 0, 0.5, 300).withOptions(options);
            var result = LockStress.run(fabric, LockProtocols.byName("dslr"), cfg);
            assertTrue(result.violations().isEmpty(), "seed " + seed + ": " + result.summary());
            assertEquals(8L * 300, result.exclusiveGrants() + result.sharedGrants());
            return fabric.memoryNodeCounters(0).ops(VerbKind.READ);
        }
    }
}
