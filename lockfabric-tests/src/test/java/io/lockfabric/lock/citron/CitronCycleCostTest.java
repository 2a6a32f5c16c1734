package io.lockfabric.lock.citron;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Remote operations of one uncontended acquire–release cycle, exactly, on the simulator (virtual
 * time: a busy machine cannot stretch a cycle past T_wait and turn it into an abort). With N = 2^16 (6 levels,
 * leaves at level 5) and m = 4: a leaf notifies its parent (level 4) and, for level 0, the
 * stand-in at level 3; a lowest internal node (level 4) notifies its parent (level 3).
 */
class CitronCycleCostTest {
    private static final long N = 1L << 16;

    private static SimFabric fabric() {
        return new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(1).seed(1).build());
    }

    /** Runs {@code body} as the one client of a fresh simulated cluster; rethrows what it threw. */
    private static void asClient(java.util.function.Consumer<Endpoint> body) {
        var failure = new java.util.concurrent.atomic.AtomicReference<Throwable>();
        boolean[] finished = new boolean[1];
        try (SimFabric fabric = fabric()) {
            Endpoint e = fabric.newEndpoint();
            fabric.spawn("client", () -> {
                try {
                    body.accept(e);
                    finished[0] = true;
                } catch (Throwable t) {
                    failure.set(t);
                }
            }).join();
        }
        if (failure.get() != null) {
            throw new AssertionError("client failed", failure.get());
        }
        assertTrue(finished[0], "client ran to the end");
    }

    private static Map<VerbKind, Long> cycleCost(long start, long end, String... options) {
        var opts = new java.util.ArrayList<>(List.of("units=" + N));
        opts.addAll(List.of(options));
        Map<VerbKind, Long> perCycle = new EnumMap<>(VerbKind.class);
        asClient(e -> {
            RangeLockClient client = RangeLockProtocols.byName("citron").open(e, "t", LockOptions.parse(opts));
            client.release(client.acquire(start, end, Mode.EXCLUSIVE));
            CounterSnapshot before = e.counters();
            int cycles = 10;
            for (int i = 0; i < cycles; i++) {
                RangeGrant g = client.acquire(start, end, Mode.EXCLUSIVE);
                assertEquals(Mode.EXCLUSIVE, g.mode());
                client.release(g);
            }
            CounterSnapshot d = e.counters().minus(before);
            for (VerbKind k : VerbKind.values()) {
                if (d.ops(k) != 0) {
                    assertEquals(0, d.ops(k) % cycles, k + " not a whole number per cycle: " + d);
                    perCycle.put(k, d.ops(k) / cycles);
                }
            }
            assertEquals(0, client.stats().aborts(), "uncontended: no aborts");
        });
        return perCycle;
    }

    /**
     * READ 5 ancestors; MCAS bits + MFAA DMax on 2 ancestors + READ root + FAA fencing token (same
     * round trip); release MCAS + 2 MFAA DCnt. Every node acquisition takes one FAA token.
     */
    @Test
    void leafRangeIsTwoRoundTripsOfSixReadsMcasAndTwoNotifications() {
        assertEquals(Map.of(VerbKind.READ, 6L, VerbKind.MCAS, 2L, VerbKind.MFAA, 4L, VerbKind.FAA, 1L), cycleCost(70, 100));
        assertEquals(Map.of(VerbKind.READ, 6L, VerbKind.MCAS, 2L, VerbKind.MFAA, 4L, VerbKind.FAA, 1L), cycleCost(70, 100, "fast-path=0"));
    }

    /** Two leaves (k = 2, zero waste): twice the leaf cost. */
    @Test
    void rangeAcrossTwoLeavesLocksBoth() {
        assertEquals(Map.of(VerbKind.READ, 12L, VerbKind.MCAS, 4L, VerbKind.MFAA, 8L, VerbKind.FAA, 2L), cycleCost(60, 70));
    }

    /**
     * A lowest internal node [0, 256): (a)+(b) MFAA TMax + READ 4 ancestors; (c)+(d) MFAA Occ, MFAA
     * DMax on the parent, READ root, MCAS the 4 leaf children; release MCAS {Occ, TCnt} (our turn
     * only), MCAS 4 children, MFAA DCnt. No wait, no descendant READs.
     */
    @Test
    void lowestInternalNodeLocksItsLeafChildrenAndSkipsTheWait() {
        assertEquals(Map.of(VerbKind.READ, 5L, VerbKind.MCAS, 9L, VerbKind.MFAA, 4L, VerbKind.FAA, 1L), cycleCost(0, 256));
    }

    /** Without the fast path the same node waits T_wait and READs itself (its children are leaves). */
    @Test
    void lowestInternalNodeWithoutFastPathChecksItsDcnt() {
        assertEquals(Map.of(VerbKind.READ, 6L, VerbKind.MCAS, 1L, VerbKind.MFAA, 4L, VerbKind.FAA, 1L),
                cycleCost(0, 256, "fast-path=0"));
    }

    /**
     * The root [0, N): ticket, Occ, then m = 4 levels of descendants in 4 READs; nothing to notify;
     * the release vacates with a masked CAS.
     */
    @Test
    void rootReadsFourLevelsOfDescendants() {
        assertEquals(Map.of(VerbKind.READ, 4L, VerbKind.MCAS, 1L, VerbKind.MFAA, 2L, VerbKind.FAA, 1L), cycleCost(0, N));
    }

    /**
     * Past N: the spillover ticket MFAA with the maximizer OR (MCAS) and a READ of the configuration
     * word (is [N, r) still past the tree?), a FAA token, release MFAA.
     */
    @Test
    void spilloverOnlyIsAnMfaaTicketAMaximizerOrAndAnMfaaRelease() {
        assertEquals(Map.of(VerbKind.MFAA, 2L, VerbKind.MCAS, 1L, VerbKind.FAA, 1L, VerbKind.READ, 1L),
                cycleCost(N + 5, N + 10));
    }

    @Test
    void maximizerHoldsAnOrOfTheRightBoundaries() {
        asClient(e -> {
            var opts = LockOptions.parse(List.of("units=" + N));
            RangeLockClient client = RangeLockProtocols.byName("citron").open(e, "t", opts);
            client.release(client.acquire(N - 3, N + 100, Mode.EXCLUSIVE));
            client.release(client.acquire(N + 1, 3 * N, Mode.EXCLUSIVE));
            var table = e.openTable(RangeLockProtocols.byName("citron").tableSpec("t", opts));
            long max = e.queuePair(0).read8(table.at(CitronLayout.MAXIMIZER_OFFSET));
            assertEquals((N + 100) | (3 * N), max);
        });
    }

    @Test
    void badRequestsAndOptionsAreRejected() {
        asClient(e -> {
            var citron = RangeLockProtocols.byName("citron");
            RangeLockClient client = citron.open(e, "t", LockOptions.parse(List.of("units=" + N)));
            assertThrows(IllegalArgumentException.class, () -> client.acquire(-1, 5, Mode.EXCLUSIVE));
            assertThrows(IllegalArgumentException.class, () -> client.acquire(5, 5, Mode.EXCLUSIVE));
            RangeGrant g = client.acquire(10, 20, Mode.SHARED);
            assertEquals(Mode.EXCLUSIVE, g.mode(), "exclusive only: a shared request is granted exclusive");
            client.release(g);
            assertThrows(IllegalArgumentException.class, () -> client.release(g), "a second release is refused");
            assertThrows(IllegalArgumentException.class, () -> citron.open(e, "u", LockOptions.parse(List.of("units=1000"))));
            assertThrows(IllegalArgumentException.class, () -> citron.open(e, "v", LockOptions.parse(List.of("units=64"))));
            assertThrows(IllegalArgumentException.class, () -> citron.open(e, "w", LockOptions.parse(List.of("k=0"))));
            assertThrows(IllegalArgumentException.class, () -> citron.open(e, "x", LockOptions.parse(List.of("bogus=1"))));
        });
    }
}
