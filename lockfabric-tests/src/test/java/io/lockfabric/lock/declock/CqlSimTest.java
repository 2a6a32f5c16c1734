package io.lockfabric.lock.declock;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import io.lockfabric.check.Hold;
import io.lockfabric.check.LockStress;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.declock.CqlClient;
import io.lockfabric.lock.declock.CqlLayout;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code cql} on the simulator: FIFO grants across readers and writers, overflow resets. */
class CqlSimTest {
    private static final LockProtocol CQL = LockProtocols.byName("cql");

    private static SimFabric cluster(int cns, int perCn, long seed) {
        return new SimFabric(SimConfig.builder().computeNodes(cns).clientsPerComputeNode(perCn).seed(seed).build());
    }

    private static long index(Hold h) {
        return h.token() & ((1L << CqlLayout.TOKEN_INDEX_BITS) - 1);
    }

    /**
     * Eight clients on one lock, half readers: conflicting grants come in queue order (the order
     * of the enqueue FAAs, which the token's index records).
     */
    @Test
    void conflictingGrantsComeInQueueOrder() {
        try (SimFabric fabric = cluster(2, 4, 5)) {
            var result = LockStress.run(fabric, CQL, LockStress.Config.of(8, 1, 0, 0.5, 500));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(0, result.stats().resets(), "no reset without faults: " + result.stats());
            List<Hold> holds = result.holds();
            assertTrue(result.sharedGrants() > 1000 && result.exclusiveGrants() > 1000);
            long conflictingPairs = 0;
            for (Hold a : holds) {
                for (Hold b : holds) {
                    if (a != b && a.mode().conflictsWith(b.mode()) && index(a) < index(b)) {
                        conflictingPairs++;
                        assertTrue(a.releasedAt() <= b.grantedAt(), "queued before, granted before: " + a + " / " + b);
                    }
                }
            }
            assertTrue(conflictingPairs > 10_000, "pairs checked: " + conflictingPairs);
        }
    }

    /**
     * A writer holds the lock while seven clients ask for it 10 µs apart (R W R R W R W): each is
     * granted in the order it asked, a conflicting one only after the one before released, and
     * the two adjacent readers share.
     */
    @Test
    void grantsFollowAcquisitionOrderAcrossReadersAndWriters() {
        Mode[] modes = {Mode.EXCLUSIVE, Mode.SHARED, Mode.EXCLUSIVE, Mode.SHARED, Mode.SHARED, Mode.EXCLUSIVE,
                Mode.SHARED, Mode.EXCLUSIVE};
        long[][] times = new long[modes.length][3];
        try (SimFabric fabric = cluster(2, 4, 3)) {
            List<io.lockfabric.fabric.ClientThread> threads = new java.util.ArrayList<>();
            for (int c = 0; c < modes.length; c++) {
                int k = c;
                var endpoint = fabric.newEndpoint();
                var client = CQL.open(endpoint, "fifo", 1, LockOptions.DEFAULTS);
                threads.add(fabric.spawn("c" + k, () -> {
                    endpoint.clock().sleepNanos(10_000L * k);
                    times[k][0] = fabric.observerNanoTime();
                    var g = client.acquire(0, modes[k]);
                    times[k][1] = fabric.observerNanoTime();
                    endpoint.clock().sleepNanos(k == 0 ? 200_000 : 20_000);
                    times[k][2] = fabric.observerNanoTime();
                    client.release(g);
                    endpoint.close();
                }));
            }
            threads.forEach(io.lockfabric.fabric.ClientThread::join);
        }
        for (int i = 0; i < modes.length; i++) {
            for (int j = i + 1; j < modes.length; j++) {
                assertTrue(times[i][0] < times[j][0]);
                assertTrue(times[i][1] <= times[j][1], "client " + i + " asked first and was granted first");
                if (modes[i] == Mode.EXCLUSIVE || modes[j] == Mode.EXCLUSIVE) {
                    assertTrue(times[i][2] <= times[j][1], "client " + j + " waited for client " + i);
                }
            }
        }
        assertTrue(times[4][1] < times[3][2], "adjacent readers 3 and 4 share the lock");
    }

    /** A queue of 4 entries for 6 clients: overflows reset the lock again and again, and nothing breaks. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {9, 10, 11})
    void aQueueSmallerThanTheClientsOverflowsAndResetsSafely(long seed) {
        try (SimFabric fabric = cluster(2, 3, seed)) {
            var options = LockOptions.parse(List.of("capacity=4"));
            var result = LockStress.run(fabric, CQL, LockStress.Config.of(6, 2, 0.9, 0.3, 1_000).withOptions(options));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(6_000, result.holds().size());
            assertTrue(result.stats().resets() > 10, "the queue overflowed and was reset: " + result.stats());
            assertTrue(result.holds().stream().anyMatch(h -> h.mode() == Mode.SHARED));
        }
    }

    /**
     * A forced reset (Fig. 16's hook): a writer holds the lock for 50 µs, a second writer waits,
     * a third client resets the lock 10 µs in. The reset waits for the holder's answer, given
     * after its release, so its latency covers the rest of the hold; the waiter is aborted and
     * granted after the reset, never while the first holds; resetting a lock one holds is refused.
     */
    @Test
    void aForcedResetWaitsForTheHolderAndLetsTheWaiterIn() {
        try (SimFabric fabric = cluster(1, 3, 3)) {
            var ea = fabric.newEndpoint();
            var eb = fabric.newEndpoint();
            var ec = fabric.newEndpoint();
            var a = CQL.open(ea, "f", 1, LockOptions.DEFAULTS);
            var b = CQL.open(eb, "f", 1, LockOptions.DEFAULTS);
            var c = (CqlClient) CQL.open(ec, "f", 1, LockOptions.DEFAULTS);
            long[] times = new long[3];
            var ta = fabric.spawn("holder", () -> {
                var g = a.acquire(0, Mode.EXCLUSIVE);
                ea.clock().sleepNanos(50_000);
                times[0] = fabric.observerNanoTime();
                a.release(g);
            });
            var tb = fabric.spawn("waiter", () -> {
                eb.clock().sleepNanos(5_000);
                var g = b.acquire(0, Mode.EXCLUSIVE);
                times[1] = fabric.observerNanoTime();
                b.release(g);
            });
            var tc = fabric.spawn("resetter", () -> {
                ec.clock().sleepNanos(10_000);
                c.forceReset(0);
                times[2] = fabric.observerNanoTime();
                var g = c.acquire(0, Mode.SHARED);
                assertThrows(IllegalStateException.class, () -> c.forceReset(0));
                c.release(g);
            });
            ta.join();
            tb.join();
            tc.join();
            assertEquals(1, c.forcedResets());
            long[] latencies = c.resetLatenciesNs();
            assertEquals(1, latencies.length, "one reset, completed by the resetter");
            assertTrue(latencies[0] >= 35_000, "the reset waited for the holder's release: " + latencies[0]);
            assertTrue(times[2] >= times[0], "the reset ended after the holder released");
            assertTrue(times[1] > times[0], "the waiter was granted only after the holder released");
            assertTrue(b.stats().aborts() >= 1, "the waiter's attempt was aborted by the reset: " + b.stats());
        }
    }
}
