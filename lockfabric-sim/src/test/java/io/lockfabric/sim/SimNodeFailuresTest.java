package io.lockfabric.sim;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.MemoryNodeRestartedException;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The timed node faults: {@code cn-crash@T[:CN]} (every client of a compute node stops at once) and
 * {@code mn-restart@T[:LEN[:MN]]} (a memory node goes away with its memory, verbs fail, it comes
 * back empty under a new generation and stale queue pairs fail until they reconnect).
 */
@Tag("faults")
class SimNodeFailuresTest {
    private static final SimConfig QUIET = SimConfig.builder().networkJitterNs(0).clockDrift(0).build();

    @Test
    void timedFaultsParseAndRoundTrip() {
        FaultPlan p = FaultPlan.parse("crash,cn-crash@20ms,mn-restart@40ms,cn-crash@1ms:3,mn-restart@5ms:2ms:1");
        assertEquals(1, p.crashes());
        assertEquals(List.of(new FaultPlan.Timed(Fault.Kind.CN_CRASH, 20_000_000, 0, -1),
                new FaultPlan.Timed(Fault.Kind.MN_RESTART, 40_000_000, FaultPlan.DEFAULT_MN_RESTART_NS, -1),
                new FaultPlan.Timed(Fault.Kind.CN_CRASH, 1_000_000, 0, 3),
                new FaultPlan.Timed(Fault.Kind.MN_RESTART, 5_000_000, 2_000_000, 1)), p.timed());
        assertEquals("crash=1,cn-crash@20ms,mn-restart@40ms:1ms,cn-crash@1ms:3,mn-restart@5ms:2ms:1", p.spec());
        assertEquals(p, FaultPlan.parse(p.spec()));
        assertEquals(2, p.computeNodeCrashes());
        assertEquals(2, p.memoryNodeRestarts());
        assertFalse(p.isNone());
    }

    @ParameterizedTest
    @ValueSource(strings = {"cn-crash", "cn-crash@", "cn-crash=2@1ms", "cn-crash@1ms:x", "cn-crash@1ms:1:2",
            "mn-restart", "mn-restart@1ms:0ms", "mn-restart@x", "mn-restart@1ms:1ms:-1", "mn-restart@1ms:1ms:0:0"})
    void badTimedFaultsAreRefusedWithAReason(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FaultPlan.parse(text));
        assertTrue(e.getMessage().contains("fault") || e.getMessage().contains("duration"), e.getMessage());
    }

    @Test
    void timedFaultsFallAtTheirTimeOnASeedChosenOrGivenTarget() {
        FaultPlan p = FaultPlan.parse("cn-crash@3ms,mn-restart@4ms:1ms:1");
        List<Fault> a = p.schedule(7, 16, 4, 2, 1_000, 50_000_000);
        assertEquals(a, p.schedule(7, 16, 4, 2, 1_000, 50_000_000));
        assertEquals(2, a.size());
        assertEquals(new Fault(Fault.Kind.CN_CRASH, a.getFirst().target(), 3_001_000, 0), a.getFirst());
        assertTrue(a.getFirst().target() >= 0 && a.getFirst().target() < 4);
        assertEquals(new Fault(Fault.Kind.MN_RESTART, 1, 4_001_000, 1_000_000), a.get(1));
        // a timed fault draws after the others: adding one moves none of them
        List<Fault> plain = FaultPlan.parse("crash=2,pause").schedule(9, 16, 4, 2, 0, 10_000_000);
        List<Fault> more = FaultPlan.parse("crash=2,pause,cn-crash@1ms").schedule(9, 16, 4, 2, 0, 10_000_000);
        assertTrue(more.containsAll(plain), more + " vs " + plain);
    }

    @Test
    void aComputeNodeCrashStopsEveryClientOfThatNodeAndNoOther() {
        SimConfig config = QUIET.toBuilder().computeNodes(2).clientsPerComputeNode(2).build();
        try (SimFabric fabric = new SimFabric(config)) {
            List<ClientThread> clients = new ArrayList<>();
            long[] ops = new long[4];
            for (int i = 0; i < 4; i++) {
                Endpoint e = fabric.newEndpoint();
                Table t = e.openTable(new TableSpec("t", "test", 1, 64));
                int me = i;
                clients.add(fabric.spawn("c" + i, () -> {
                    while (e.clock().nanoTime() < 200_000) {
                        e.queuePair(0).faa(t.address(), 1);
                        ops[me]++;
                    }
                }));
            }
            fabric.crashComputeNodeAt(1, 50_000);
            clients.forEach(ClientThread::join);
            for (int i = 0; i < 4; i++) {
                SimProcess p = (SimProcess) clients.get(i);
                assertEquals(i >= 2, p.crashed(), "client " + i + " is on node " + (i / 2));
                assertEquals(i >= 2 ? 50_000 : -1, p.crashedAtNs());
            }
            assertTrue(ops[0] > 2 * ops[2], "the survivors went on: " + java.util.Arrays.toString(ops));
        }
    }

    @Test
    void aRestartedMemoryNodeLosesItsMemoryFailsVerbsAndComesBackToReconnectedClients() {
        try (SimFabric fabric = new SimFabric(QUIET)) {
            Endpoint e = fabric.newEndpoint();
            Table t = e.openTable(new TableSpec("t", "test", 1, 64));
            fabric.restartMemoryNodeAt(0, 100_000, 50_000);
            List<String> seen = new ArrayList<>();
            fabric.spawn("c", () -> {
                e.queuePair(0).write8(t.address(), 42);
                assertEquals(0, e.memoryNodeGeneration(0));
                e.clock().sleepNanos(120_000 - e.clock().nanoTime());
                assertEquals(1, e.memoryNodeGeneration(0), "the failure detector knows at once");
                MemoryNodeRestartedException down = assertThrows(MemoryNodeRestartedException.class,
                        () -> e.queuePair(0).read8(t.address()));
                assertTrue(down.down(), down.getMessage());
                assertThrows(MemoryNodeRestartedException.class, () -> e.reconnect(0), "still down");
                e.clock().sleepNanos(160_000 - e.clock().nanoTime());
                MemoryNodeRestartedException stale = assertThrows(MemoryNodeRestartedException.class,
                        () -> e.queuePair(0).faa(t.address(), 1));
                assertFalse(stale.down(), "back, but this queue pair was connected before the restart");
                assertEquals(1, stale.generation());
                assertThrows(MemoryNodeRestartedException.class, () -> e.queuePair(0).read8(t.address()),
                        "it stays in the error state until the client reconnects");
                e.reconnect(0);
                seen.add("value " + e.queuePair(0).read8(t.address()));
            }).join();
            assertEquals(List.of("value 0"), seen, "the memory was lost");
            assertFalse(fabric.memoryNodeDown(0));
            assertEquals(1, fabric.memoryNodeGeneration(0));
        }
    }
}
