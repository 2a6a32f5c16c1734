package io.lockfabric.apps.btree;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.Mode;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sherman's hierarchical lock on the simulator: clients of two compute nodes take one lock; within a
 * node the remote lock is handed over, at most the bound in a row, and a plain counter on the memory
 * node (READ, then WRITE + 1 under the lock) loses no increment.
 */
@Tag("seeds")
class ShermanLockTest {
    @Test
    void localWaitersGetTheRemoteLockHandedOverAtMostTheBoundInARowAndNoIncrementIsLost() {
        for (long seed = 1; seed <= 3; seed++) {
            try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4)
                    .memoryNodes(1).seed(seed).build())) {
                int clients = 8;
                int rounds = 100;
                List<Endpoint> endpoints = new ArrayList<>();
                for (int i = 0; i < clients; i++) {
                    endpoints.add(fabric.newEndpoint());
                }
                long[] handovers = new long[clients];
                long[] remote = new long[clients];
                long[] counterAt = new long[1];
                List<ClientThread> threads = new ArrayList<>();
                for (int i = 0; i < clients; i++) {
                    int me = i;
                    threads.add(fabric.spawn("c" + i, () -> {
                        Endpoint e = endpoints.get(me);
                        LockClient lock = BTreeLocks.open("sherman", e, "locks", 4, List.of(), ShermanLock.DEFAULT_HANDOVER_BOUND);
                        var data = e.openTable(new io.lockfabric.fabric.TableSpec("counter", "test", 1, 8));
                        counterAt[0] = data.address();
                        for (int r = 0; r < rounds; r++) {
                            Grant g = lock.acquire(0, Mode.EXCLUSIVE);
                            long v = e.queuePair(0).read8(data.address());
                            e.queuePair(0).write8(data.address(), v + 1);
                            lock.release(g);
                        }
                        handovers[me] = ((ShermanLock) lock).handovers();
                        remote[me] = ((ShermanLock) lock).remoteAcquisitions();
                    }));
                }
                for (ClientThread t : threads) {
                    t.join();
                }
                long h = 0;
                long rem = 0;
                for (int i = 0; i < clients; i++) {
                    h += handovers[i];
                    rem += remote[i];
                }
                assertEquals(clients * rounds, h + rem, "every grant is a handover or a remote acquisition");
                assertTrue(h > clients * rounds / 4, "seed " + seed + ": local waiters are handed the lock: " + h);
                assertTrue(rem * (ShermanLock.DEFAULT_HANDOVER_BOUND + 1) >= clients * rounds,
                        "at most " + ShermanLock.DEFAULT_HANDOVER_BOUND + " handovers per remote acquisition: " + rem);
                long[] value = new long[1];
                Endpoint reader = fabric.newEndpoint();
                fabric.spawn("reader", () -> value[0] = reader.queuePair(0).read8(counterAt[0])).join();
                assertEquals(clients * rounds, value[0], "seed " + seed + ": no increment lost");
            }
        }
    }
}
