package io.lockfabric.check;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutual exclusion of every registered protocol on one fabric: stress with the checker (no
 * conflicting overlap, fencing order, guarded counters exact). Each fabric subclasses this with
 * {@link #newFabric()} and may scale the load with {@link #opsPerClient()}.
 */
@Tag("contract")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class MutualExclusionContractTest {
    protected abstract Fabric newFabric();

    /** Acquire–release cycles per client for the main stress (8 clients). */
    protected int opsPerClient() {
        return 12_500;
    }

    /** Cycles per client for {@code protocol} (default {@link #opsPerClient()}). */
    protected int opsPerClient(LockProtocol protocol) {
        return opsPerClient();
    }

    /**
     * Options a protocol runs with on this fabric (default: its defaults). A fabric whose clients
     * can stall for long in real time may lengthen the leases of protocols that trust their
     * holders to finish within one.
     */
    protected LockOptions optionsFor(LockProtocol protocol) {
        return LockOptions.DEFAULTS;
    }

    /** The protocols this fabric can run (the in-process reference only where clients share a JVM). */
    Stream<String> protocols() {
        boolean inProcess;
        try (Fabric fabric = newFabric()) {
            inProcess = fabric.isInProcess();
        }
        return LockProtocols.all().stream().filter(p -> inProcess || !p.requiresInProcessFabric()).map(LockProtocol::name);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("protocols")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void hotLocksMixedReadsAndWrites(String name) {
        try (Fabric fabric = newFabric()) {
            LockProtocol p = LockProtocols.byName(name);
            var cfg = LockStress.Config.of(8, 16, 0.99, 0.5, opsPerClient(p));
            var result = LockStress.run(fabric, p, cfg.withOptions(optionsFor(p)));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(8L * opsPerClient(p), result.holds().size(), "every cycle recorded once");
            if (p.supportsShared()) {
                assertTrue(result.sharedGrants() > 0, "shared grants happened");
            } else {
                assertEquals(0, result.sharedGrants(), "an exclusive-only protocol grants exclusive");
            }
            assertTrue(result.holds().stream().allMatch(h -> h.releasedAt() != Hold.NEVER), "all released");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("protocols")
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void oneLockWritersOnly(String name) {
        try (Fabric fabric = newFabric()) {
            LockProtocol p = LockProtocols.byName(name);
            var result = LockStress.run(fabric, p, LockStress.Config.of(4, 1, 0, 0, opsPerClient(p) / 4)
                    .withOptions(optionsFor(p)));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(result.holds().size(), result.exclusiveGrants());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("protocols")
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void readersShareOneLock(String name) {
        try (Fabric fabric = newFabric()) {
            LockProtocol p = LockProtocols.byName(name);
            var result = LockStress.run(fabric, p, LockStress.Config.of(4, 1, 0, 0.9, opsPerClient(p) / 4)
                    .withOptions(optionsFor(p)));
            assertTrue(result.violations().isEmpty(), result.summary());
            if (p.supportsShared()) {
                assertTrue(result.holds().stream().anyMatch(h -> h.mode() == Mode.SHARED));
            }
        }
    }
}
