package io.lockfabric.lock.rpc;

import io.lockfabric.check.Hold;
import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.RpcException;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code rpc} protocol on the local fabric: its variants under the stress checker, its costs, its errors. */
@Tag("stress")
@Timeout(120)
class RpcLockProtocolTest {
    private static final LockProtocol RPC = LockProtocols.byName("rpc");

    /** The default (queued) and the retry-on-fail variants, with backoff and retrying at once. */
    static Stream<LockOptions> variants() {
        return Stream.of(
                LockOptions.DEFAULTS,
                LockOptions.of(Map.of("retry-on-fail", 1L)),
                LockOptions.of(Map.of("retry-on-fail", 1L, "backoff-init-ns", 0L)));
    }

    private static boolean retries(LockOptions o) {
        return o.get(RpcLockProtocol.RETRY_ON_FAIL) == 1;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void everyVariantPassesTheMutualExclusionStress(LockOptions options) {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            var result = LockStress.run(fabric, RPC, LockStress.Config.of(8, 16, 0.99, 0.5, 4_000).withOptions(options));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(8L * 4_000, result.holds().size());
            assertTrue(result.sharedGrants() > 0);
            assertTrue(result.holds().stream().allMatch(h -> h.releasedAt() != Hold.NEVER));
            if (!retries(options)) {
                assertEquals(0, result.stats().retries(), "the queued server never makes a client retry");
            }
            CounterSnapshot mn = fabric.memoryNodeCounters(0);
            assertEquals(2 * result.holds().size() + result.stats().retries(), mn.ops(VerbKind.RPC),
                    "one rpc to acquire, one per retry, one to release");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void oneHotLockWritersOnly(LockOptions options) {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            var result = LockStress.run(fabric, RPC, LockStress.Config.of(4, 1, 0, 0, 3_000).withOptions(options));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(result.holds().size(), result.exclusiveGrants());
        }
    }

    private static Map<VerbKind, Long> cycleCost(LockOptions options, Mode mode) {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            LockClient client = RPC.open(e, "t", 64, options);
            client.release(client.acquire(3, mode));
            CounterSnapshot before = e.counters();
            int cycles = 10;
            for (int i = 0; i < cycles; i++) {
                client.release(client.acquire(3, mode));
            }
            CounterSnapshot d = e.counters().minus(before);
            Map<VerbKind, Long> perCycle = new EnumMap<>(VerbKind.class);
            for (VerbKind k : VerbKind.values()) {
                if (d.ops(k) != 0) {
                    assertEquals(0, d.ops(k) % cycles, k + " not a whole number per cycle: " + d);
                    perCycle.put(k, d.ops(k) / cycles);
                }
            }
            return perCycle;
        }
    }

    /** The uncontended cycle of every variant is two rpcs and no one-sided verb (cf. UncontendedCycleCostTest). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void uncontendedCycleIsOneRpcEachWay(LockOptions options) {
        assertEquals(Map.of(VerbKind.RPC, 2L), cycleCost(options, Mode.EXCLUSIVE));
        assertEquals(Map.of(VerbKind.RPC, 2L), cycleCost(options, Mode.SHARED));
    }

    @Test
    void fencingTokensAndModesComeFromTheServer() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            LockClient c = RPC.open(e, "t", 8, LockOptions.DEFAULTS);
            Grant x1 = c.acquire(5, Mode.EXCLUSIVE);
            c.release(x1);
            Grant s = c.acquire(5, Mode.SHARED);
            Grant s2 = c.acquire(5, Mode.SHARED);
            assertEquals(Mode.SHARED, s.mode());
            assertEquals(x1.fencingToken(), s.fencingToken(), "a shared grant carries the exclusive count");
            c.release(s);
            c.release(s2);
            Grant x2 = c.acquire(5, Mode.EXCLUSIVE);
            assertEquals(x1.fencingToken() + 1, x2.fencingToken());
            assertEquals(1, c.acquire(6, Mode.EXCLUSIVE).fencingToken(), "per lock");
            c.release(x2);
        }
    }

    @Test
    void misuseGetsClearErrors() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            LockClient c = RPC.open(e, "t", 8, LockOptions.DEFAULTS);
            assertThrows(IllegalArgumentException.class, () -> c.acquire(8, Mode.EXCLUSIVE));
            assertThrows(IllegalArgumentException.class, () -> c.acquire(-1, Mode.SHARED));
            Grant g = c.acquire(1, Mode.EXCLUSIVE);
            c.release(g);
            RpcException twice = assertThrows(RpcException.class, () -> c.release(g), "a second release");
            assertTrue(twice.getMessage().contains("does not hold"), twice.getMessage());
            assertThrows(IllegalArgumentException.class, () -> c.release(new Grant() {
                public long lockId() {
                    return 1;
                }

                public Mode mode() {
                    return Mode.EXCLUSIVE;
                }

                public long fencingToken() {
                    return 1;
                }
            }));
            c.release(c.acquire(1, Mode.EXCLUSIVE));
        }
    }

    @Test
    void optionsAreValidatedAndTheFailureModelSaysNoRecovery() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            assertThrows(IllegalArgumentException.class,
                    () -> RPC.open(e, "t", 8, LockOptions.of(Map.of("retry-on-fail", 2L))));
            assertThrows(IllegalArgumentException.class,
                    () -> RPC.open(e, "t", 8, LockOptions.of(Map.of("retry-on-fail", 1L, "backoff-init-ns", -1L))));
            assertThrows(IllegalArgumentException.class, () -> RPC.open(e, "t", 8, LockOptions.of(Map.of("lease-ns", 1L))));
            assertThrows(IllegalArgumentException.class, () -> RPC.open(e, "t", 0, LockOptions.DEFAULTS));
        }
        assertFalse(RPC.failureModel(LockOptions.DEFAULTS).recoversFromCrash());
        assertTrue(RPC.strictFencing() && RPC.supportsShared());
        assertEquals(List.of("retry-on-fail", "backoff-init-ns"), RPC.options().stream().map(o -> o.name()).toList());
    }
}
