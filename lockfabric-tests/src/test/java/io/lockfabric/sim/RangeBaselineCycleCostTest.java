package io.lockfabric.sim;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.protocols.RangeLockProtocols;

import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Remote operations of one uncontended acquire–release cycle of the range baselines, exactly, on
 * the simulator: {@code ss} is two DSLR FAAs per segment touched (and per spillover), {@code lld}
 * with its previous range still marked in the list is READ head, READ that entry, CAS to unlink it,
 * WRITE + CAS to insert and a masked CAS to release; {@code rpc-range}, {@code mt} and {@code llc}
 * are two rpcs.
 */
class RangeBaselineCycleCostTest {
    private static final long N = 16_384;

    private static Map<VerbKind, Long> cycleCost(String protocol, long start, long end, Mode mode, String... options) {
        Map<VerbKind, Long> perCycle = new EnumMap<>(VerbKind.class);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        boolean[] finished = new boolean[1];
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(1).seed(1).build())) {
            Endpoint e = fabric.newEndpoint();
            fabric.spawn("client", () -> {
                try {
                    RangeLockClient client = RangeLockProtocols.byName(protocol).open(e, "t", LockOptions.parse(List.of(options)));
                    client.release(client.acquire(start, end, mode));
                    CounterSnapshot before = e.counters();
                    int cycles = 10;
                    for (int i = 0; i < cycles; i++) {
                        RangeGrant g = client.acquire(start, end, mode);
                        assertEquals(start, g.start());
                        client.release(g);
                    }
                    CounterSnapshot d = e.counters().minus(before);
                    for (VerbKind k : VerbKind.values()) {
                        if (d.ops(k) != 0) {
                            assertEquals(0, d.ops(k) % cycles, k + " not a whole number per cycle: " + d);
                            perCycle.put(k, d.ops(k) / cycles);
                        }
                    }
                    assertEquals(0, client.stats().retries(), "uncontended: no retries");
                    finished[0] = true;
                } catch (Throwable t) {
                    failure.set(t);
                }
            }).join();
        }
        if (failure.get() != null) {
            throw new AssertionError(protocol + " client failed", failure.get());
        }
        assertTrue(finished[0]);
        return perCycle;
    }

    @Test
    void ssIsTwoFaaPerSegmentTouched() {
        // ss-exact, L = 16: [70, 100) touches segments 4, 5 and 6.
        assertEquals(Map.of(VerbKind.FAA, 6L), cycleCost("ss-exact", 70, 100, Mode.EXCLUSIVE, "units=" + N));
        assertEquals(Map.of(VerbKind.FAA, 6L), cycleCost("ss-exact", 70, 100, Mode.SHARED, "units=" + N));
        assertEquals(Map.of(VerbKind.FAA, 2L), cycleCost("ss-exact", 32, 48, Mode.EXCLUSIVE, "units=" + N), "aligned");
        // ss-over (segment 128): one segment; ss-under (segment 2): 15 segments for 30 units.
        assertEquals(Map.of(VerbKind.FAA, 2L), cycleCost("ss-over", 70, 100, Mode.EXCLUSIVE, "units=" + N));
        assertEquals(Map.of(VerbKind.FAA, 30L), cycleCost("ss-under", 70, 100, Mode.EXCLUSIVE, "units=" + N));
        // Across N: the last segment and the spillover lock.
        assertEquals(Map.of(VerbKind.FAA, 4L), cycleCost("ss", N - 3, N + 7, Mode.EXCLUSIVE, "units=" + N, "segment=64"));
    }

    @Test
    void lldIsFiveRoundTripsWithItsPreviousEntryStillLinked() {
        assertEquals(Map.of(VerbKind.READ, 2L, VerbKind.CAS, 2L, VerbKind.WRITE, 1L, VerbKind.MCAS, 1L),
                cycleCost("lld", 70, 100, Mode.EXCLUSIVE));
        assertEquals(Map.of(VerbKind.READ, 2L, VerbKind.CAS, 2L, VerbKind.WRITE, 1L, VerbKind.MCAS, 1L),
                cycleCost("lld", N - 3, 1L << 40, Mode.SHARED), "any range, shared served exclusive");
    }

    @Test
    void rpcRangeIsTwoRpcs() {
        assertEquals(Map.of(VerbKind.RPC, 2L), cycleCost("rpc-range", 70, 100, Mode.EXCLUSIVE));
        assertEquals(Map.of(VerbKind.RPC, 2L), cycleCost("rpc-range", 70, 100, Mode.SHARED));
    }

    @Test
    void mtAndLlcAreTwoRpcs() {
        for (String p : List.of("mt", "llc")) {
            assertEquals(Map.of(VerbKind.RPC, 2L), cycleCost(p, 70, 100, Mode.EXCLUSIVE), p);
            assertEquals(Map.of(VerbKind.RPC, 2L), cycleCost(p, 70, 100, Mode.SHARED), p);
        }
    }
}
