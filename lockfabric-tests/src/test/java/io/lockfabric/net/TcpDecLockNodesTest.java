package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.declock.DecLockClient;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DecLock on the tcp fabric with two compute nodes: two client fabrics, as two client processes
 * would be (each its own node id from the server, each its own local lock table), three clients
 * each on one hot lock. Intra-node handovers stay within a node: LOCAL wake-ups go only to
 * endpoints of the sender's own process, and local handovers happen; cross-node grants go by peer
 * messages (CQL GRANTs between the processes). An exclusive holder increments a counter on the
 * memory node, so a double grant shows as a lost increment.
 */
@Tag("stress")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpDecLockNodesTest {
    /** CqlMessages' types (package-private there): the queue's grant handover and the local wake-up. */
    private static final int GRANT = 1;
    private static final int LOCAL = 5;
    private static final int CLIENTS_PER_NODE = 3;
    private static final int CYCLES = 150;

    @ParameterizedTest
    @ValueSource(strings = {"declock-tf", "declock-pf"})
    void localHandoversStayInTheNodeAndCrossNodeGrantsAreMessages(String name) {
        var protocol = LockProtocols.byName(name);
        // the tcp tests' timeouts: the 10 ms default resets the lock often with millisecond round trips
        LockOptions options = LockOptions.parse(List.of("timeout-ns=200ms", "lease-ns=400ms"));
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(4L << 20).start();
        try (TcpFabric nodeA = TcpFabric.builder().embeddedServer(server).build();
             TcpFabric nodeB = TcpFabric.connect(server.uri())) {
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            AtomicLong exclusiveCycles = new AtomicLong();
            AtomicLong localHandovers = new AtomicLong();
            List<Integer> nodeIds = Collections.synchronizedList(new ArrayList<>());
            List<ClientThread> threads = new ArrayList<>();
            int c = 0;
            for (TcpFabric node : List.of(nodeA, nodeB)) {
                for (int i = 0; i < CLIENTS_PER_NODE; i++, c++) {
                    long seed = c;
                    threads.add(node.spawn(name + "-" + c, () -> {
                        try (Endpoint e = node.newEndpoint()) {
                            nodeIds.add(e.id().node());
                            DecLockClient lock = (DecLockClient) protocol.open(e, "hot", 1, options);
                            Table counter = e.openTable(new TableSpec("counter", "test", 1, 8));
                            QueuePair qp = e.queuePair(0);
                            SplittableRandom random = new SplittableRandom(seed);
                            for (int k = 0; k < CYCLES; k++) {
                                boolean write = random.nextInt(4) != 0;
                                Grant g = lock.acquire(0, write ? Mode.EXCLUSIVE : Mode.SHARED);
                                if (write) {
                                    qp.write8(counter.at(0), qp.read8(counter.at(0)) + 1);
                                    exclusiveCycles.incrementAndGet();
                                }
                                lock.release(g);
                            }
                            localHandovers.addAndGet(lock.localHandovers());
                        } catch (Throwable t) {
                            failures.add(t);
                        }
                    }));
                }
            }
            threads.forEach(ClientThread::join);
            assertTrue(failures.isEmpty(), "client failures: " + failures);
            assertEquals(2, nodeIds.stream().distinct().count(), "one node id per client fabric: " + nodeIds);
            Endpoint check = nodeA.newEndpoint();
            Table counter = check.openTable(new TableSpec("counter", "test", 1, 8));
            assertEquals(exclusiveCycles.get(), check.queuePair(0).read8(counter.at(0)),
                    "every increment under the lock landed: no two exclusive holders at once");

            long localWithin = nodeA.messagesSent(LOCAL, false) + nodeB.messagesSent(LOCAL, false);
            long localAcross = nodeA.messagesSent(LOCAL, true) + nodeB.messagesSent(LOCAL, true);
            long grantsAcross = nodeA.messagesSent(GRANT, true) + nodeB.messagesSent(GRANT, true);
            long grantsWithin = nodeA.messagesSent(GRANT, false) + nodeB.messagesSent(GRANT, false);
            System.out.printf("%s, 2 nodes x %d clients: %d local handovers; LOCAL messages %d within a node, %d across;"
                    + " GRANT messages %d across nodes, %d within%n", name, CLIENTS_PER_NODE, localHandovers.get(),
                    localWithin, localAcross, grantsAcross, grantsWithin);
            assertTrue(localHandovers.get() > 0, "some grants were handed over within a node");
            assertTrue(localWithin > 0, "local waiters were woken by messages within their node");
            assertEquals(0, localAcross, "a LOCAL message never leaves its node");
            assertTrue(grantsAcross > 0, "the CQL lock went from node to node by GRANT messages");
            assertNotEquals(0, nodeA.messagesSent(GRANT, true) * nodeB.messagesSent(GRANT, true),
                    "both nodes handed the lock to the other");
        }
    }
}
