package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * The plain connection to the memory node without an I/O thread ({@link DirectServerLink}): the
 * frames of concurrent senders leave in one write system call, the server answers a read batch with
 * one flush, and a loss is seen while nobody calls. Counted with the link's and the server's
 * counters, never by timing.
 */
class TcpCoalescingTest {
    private static final int SENDERS = 8;

    @Test
    void framesOfConcurrentSendersShareOneWriteAndTheirRepliesOneFlush() throws Exception {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).start();
             TcpFabric fabric = TcpFabric.builder().uri(server.uri()).connections(1).build()) {
            List<Endpoint> endpoints = new ArrayList<>();
            List<QueuePair> qps = new ArrayList<>();
            long[] words = new long[SENDERS];
            for (int i = 0; i < SENDERS; i++) {
                Endpoint e = fabric.newEndpoint();
                endpoints.add(e);
                Table t = e.openTable(new TableSpec("coalesce", "t", 1, 8L * SENDERS));
                qps.add(e.queuePair(0));
                words[i] = t.at(8L * i);
            }
            DirectServerLink link = assertInstanceOf(DirectServerLink.class, ((TcpEndpoint) endpoints.get(0)).link(),
                    "a plain connection is direct");
            long[] writesBefore = link.writeCounts();
            long[] repliesBefore = server.replyCounts();
            AtomicLongArray results = new AtomicLongArray(SENDERS);
            List<ClientThread> senders = new ArrayList<>();
            Runnable release = link.holdWrites(); // as if a long write were under way
            try {
                for (int i = 0; i < SENDERS; i++) {
                    int me = i;
                    senders.add(fabric.spawn("sender-" + i, () -> results.set(me, qps.get(me).faa(words[me], 1) + 1)));
                }
                ServerLimitsTest.awaitTrue(() -> link.queuedFrames() == SENDERS, "every sender queued its frame");
            } finally {
                release.run();
            }
            senders.forEach(ClientThread::join);
            for (int i = 0; i < SENDERS; i++) {
                assertEquals(1, results.get(i), "sender " + i + " got its own reply");
            }
            long[] writesAfter = link.writeCounts();
            assertEquals(1, writesAfter[0] - writesBefore[0], "one write system call");
            assertEquals(SENDERS, writesAfter[1] - writesBefore[1], "carrying every sender's frame");
            long[] repliesAfter = server.replyCounts();
            assertEquals(SENDERS, repliesAfter[1] - repliesBefore[1], "a reply each");
            assertEquals(1, repliesAfter[0] - repliesBefore[0], "the server answered the read batch with one flush");
            for (int i = 0; i < SENDERS; i++) {
                assertEquals(1, qps.get(i).read8(words[i]), "each FAA took effect once");
            }
        }
    }

    @Test
    void aServerThatGoesAwayIsSeenWhileNobodyCalls() throws Exception {
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).start();
        try (TcpFabric fabric = TcpFabric.builder().uri(server.uri()).connections(1).build()) {
            Endpoint e = fabric.newEndpoint();
            AtomicInteger told = new AtomicInteger();
            e.onMemoryNodeLost(x -> told.incrementAndGet());
            Table t = e.openTable(new TableSpec("idle", "t", 1, 64));
            e.queuePair(0).write8(t.at(0), 1);
            server.close();
            ServerLimitsTest.awaitTrue(() -> told.get() == 1, "the endpoint is told of the loss without calling");
            assertThrows(FabricException.class, () -> e.queuePair(0).read8(t.at(0)));
            assertTrue(((TcpEndpoint) e).link().isLost());
        }
    }
}
