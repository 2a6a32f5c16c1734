package io.lockfabric.sim;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The simulator's own promises: virtual time, determinism, the RNIC model, faults. */
class SimFabricTest {

    private static SimConfig config(long seed) {
        return SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(seed).build();
    }

    @Test
    void aVerbTakesARoundTripOfVirtualTime() {
        SimConfig cfg = SimConfig.builder().networkJitterNs(0).build();
        try (SimFabric fabric = new SimFabric(cfg)) {
            Endpoint e = fabric.newEndpoint();
            Table t = e.openTable(new TableSpec("t", "test", 1, 64));
            AtomicLong elapsed = new AtomicLong();
            AtomicLong old = new AtomicLong();
            fabric.spawn("c", () -> {
                long start = e.clock().nanoTime();
                old.set(e.queuePair(0).faa(t.address(), 5));
                e.queuePair(0).faa(t.address(), 5);
                elapsed.set(e.clock().nanoTime() - start);
            }).join();
            long oneCycle = cfg.clientVerbCpuNs() + 2 * cfg.cnNicServiceNs() + 2 * cfg.networkOneWayNs()
                    + cfg.atomicServiceNs() + (long) (8 * cfg.nicNsPerByte());
            long drift = (long) Math.ceil(2 * oneCycle * cfg.clockDrift()) + 1;
            assertTrue(Math.abs(elapsed.get() - 2 * oneCycle) <= drift,
                    "two FAAs take two round trips: " + elapsed.get() + " vs " + 2 * oneCycle);
            assertEquals(0, old.get());
            assertEquals(10, e.queuePair(0).read8(t.address()), "verbs outside the simulation run directly");
            assertEquals(2, fabric.memoryNodeCounters(0).ops(VerbKind.FAA), "the NIC counted both FAAs");
        }
    }

    @Test
    void atomicsOnOneWordAreSerializedAcrossClients() {
        SimConfig cfg = SimConfig.builder().networkJitterNs(0).clientsPerComputeNode(16).build();
        try (SimFabric fabric = new SimFabric(cfg)) {
            Table[] table = new Table[1];
            var threads = new java.util.ArrayList<ClientThread>();
            for (int i = 0; i < 16; i++) {
                Endpoint e = fabric.newEndpoint();
                table[0] = e.openTable(new TableSpec("hot", "test", 1, 64));
                threads.add(fabric.spawn("c" + i, () -> {
                    for (int k = 0; k < 100; k++) {
                        e.queuePair(0).faa(table[0].address(), 1);
                    }
                }));
            }
            threads.forEach(ClientThread::join);
            long end = fabric.simulation().now();
            assertTrue(end >= 1600L * cfg.sameWordSerialNs(), "1600 atomics on one word take >= 1600 x "
                    + cfg.sameWordSerialNs() + " ns; took " + end);
        }
    }

    @Test
    void clientsOnOneComputeNodeShareItsNic() {
        long service = 1_000;
        SimConfig shared = SimConfig.builder().networkJitterNs(0).computeNodes(1).clientsPerComputeNode(4)
                .cnNicUnits(1).cnNicServiceNs(service).build();
        SimConfig apart = shared.toBuilder().computeNodes(4).clientsPerComputeNode(1).build();
        long together = lastOfFourReads(shared);
        long alone = lastOfFourReads(apart);
        long oneRead = shared.clientVerbCpuNs() + 2 * service + 2 * shared.networkOneWayNs() + shared.readServiceNs()
                + (long) (8 * shared.nicNsPerByte());
        assertEquals(oneRead, alone, "four NICs: four reads side by side");
        // One unit for four requests out and four completions in: the first completion is back before the last
        // request has left, so the unit is never idle once it starts.
        assertEquals(shared.clientVerbCpuNs() + 8 * service, together, "one NIC: eight passes in a row");
    }

    /** Four clients each issue one READ at the same instant; when the last one completes. */
    private static long lastOfFourReads(SimConfig cfg) {
        try (SimFabric fabric = new SimFabric(cfg)) {
            var threads = new java.util.ArrayList<ClientThread>();
            Table[] table = new Table[1];
            for (int i = 0; i < 4; i++) {
                Endpoint e = fabric.newEndpoint();
                table[0] = e.openTable(new TableSpec("words", "test", 1, 64));
                threads.add(fabric.spawn("c" + i, () -> e.queuePair(0).read8(table[0].address() + 8L * e.ordinal())));
            }
            threads.forEach(ClientThread::join);
            return fabric.simulation().now();
        }
    }

    @Test
    void sameSeedSameHistoryOtherSeedAnother() {
        long h1 = stressHash(5);
        long h2 = stressHash(5);
        long h3 = stressHash(6);
        assertEquals(h1, h2, "one seed, one history");
        assertNotEquals(h1, h3, "another seed, another history");
    }

    private static long stressHash(long seed) {
        try (SimFabric fabric = new SimFabric(config(seed))) {
            var result = LockStress.run(fabric, LockProtocols.byName("cas"),
                    new LockStress.Config(8, 4, 0.99, 0.5, 300, seed, LockOptions.DEFAULTS));
            assertTrue(result.violations().isEmpty(), result.summary());
            return fabric.simulation().historyHash() ^ fabric.simulation().now() * 31;
        }
    }

    @Test
    void messagesArriveInOrderAndSendsToCrashedPeersFail() {
        try (SimFabric fabric = new SimFabric(config(3))) {
            Endpoint a = fabric.newEndpoint();
            Endpoint b = fabric.newEndpoint();
            AtomicReference<String> got = new AtomicReference<>("");
            SimProcess receiver = (SimProcess) fabric.spawn("b", () -> {
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < 5; i++) {
                    Message m = b.mailbox().await(b.clock().nanoTime() + 1_000_000);
                    sb.append(m.a());
                }
                got.set(sb.toString());
                assertNull(b.mailbox().await(b.clock().nanoTime() + 50_000), "nothing more");
                b.clock().sleepNanos(1_000_000_000L);
            });
            AtomicReference<Throwable> sendError = new AtomicReference<>();
            ClientThread sender = fabric.spawn("a", () -> {
                for (int i = 0; i < 5; i++) {
                    a.mailbox().send(b.id(), 0, 1, 0, i, 0);
                }
                a.clock().sleepNanos(500_000);
                try {
                    a.mailbox().send(b.id(), 0, 1, 0, 9, 0);
                } catch (PeerUnreachableException e) {
                    sendError.set(e);
                }
            });
            fabric.crashAt(receiver, 400_000);
            sender.join();
            assertEquals("01234", got.get());
            assertTrue(receiver.crashed());
            assertTrue(sendError.get() instanceof PeerUnreachableException, "RNR on send to a crashed client");
        }
    }

    @Test
    void aCrashedCasHolderBlocksTheLockForever() {
        try (SimFabric fabric = new SimFabric(config(4))) {
            fabric.simulation().timeLimitNs(50_000_000);
            Endpoint a = fabric.newEndpoint();
            Endpoint b = fabric.newEndpoint();
            LockClient ca = LockProtocols.byName("cas").open(a, "l", 1, LockOptions.DEFAULTS);
            LockClient cb = LockProtocols.byName("cas").open(b, "l", 1, LockOptions.DEFAULTS);
            SimProcess holder = (SimProcess) fabric.spawn("holder", () -> {
                ca.acquire(0, Mode.EXCLUSIVE);
                a.clock().sleepNanos(Long.MAX_VALUE / 4);
            });
            fabric.crashAt(holder, 10_000);
            ClientThread waiter = fabric.spawn("waiter", () -> {
                b.clock().sleepNanos(20_000);
                Grant g = cb.acquire(0, Mode.EXCLUSIVE);
                cb.release(g);
            });
            assertThrows(SimulationStuckException.class, waiter::join, "cas does not recover: that is cas");
            assertTrue(holder.crashed());
        }
    }

    @Test
    void aPausedHolderDelaysButDoesNotBreakTheLock() {
        try (SimFabric fabric = new SimFabric(config(8))) {
            Endpoint a = fabric.newEndpoint();
            Endpoint b = fabric.newEndpoint();
            LockClient ca = LockProtocols.byName("cas").open(a, "l", 1, LockOptions.DEFAULTS);
            LockClient cb = LockProtocols.byName("cas").open(b, "l", 1, LockOptions.DEFAULTS);
            AtomicLong waiterGrantedAt = new AtomicLong();
            SimProcess holder = (SimProcess) fabric.spawn("holder", () -> {
                Grant g = ca.acquire(0, Mode.EXCLUSIVE);
                a.clock().sleepNanos(5_000);
                ca.release(g);
            });
            fabric.pauseAt(holder, 3_000, 2_000_000);
            ClientThread waiter = fabric.spawn("waiter", () -> {
                b.clock().sleepNanos(4_000);
                Grant g = cb.acquire(0, Mode.EXCLUSIVE);
                waiterGrantedAt.set(fabric.observerNanoTime());
                cb.release(g);
            });
            waiter.join();
            assertTrue(waiterGrantedAt.get() >= 2_000_000, "the waiter got the lock only after the pause: "
                    + waiterGrantedAt.get());
        }
    }

    @Test
    void batchesExecuteInOrderInOneRoundTrip() {
        SimConfig cfg = SimConfig.builder().networkJitterNs(0).build();
        try (SimFabric fabric = new SimFabric(cfg)) {
            Endpoint e = fabric.newEndpoint();
            Table t = e.openTable(new TableSpec("b", "test", 1, 64));
            AtomicLong read = new AtomicLong();
            AtomicLong took = new AtomicLong();
            fabric.spawn("c", () -> {
                QueuePair qp = e.queuePair(0);
                var batch = new io.lockfabric.fabric.Batch();
                batch.faa(t.address(), 7);
                int r = batch.read8(t.address());
                long start = fabric.observerNanoTime();
                qp.execute(batch);
                took.set(fabric.observerNanoTime() - start);
                read.set(batch.longResult(r));
            }).join();
            assertEquals(7, read.get(), "the READ sees the FAA before it");
            assertTrue(took.get() < 2 * (2 * cfg.networkOneWayNs()), "one round trip, not two: " + took.get());
        }
    }
}
