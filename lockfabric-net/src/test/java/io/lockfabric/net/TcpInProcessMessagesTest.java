package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Messages between endpoints of one tcp fabric (one compute node) are queued in the receiver's
 * mailbox directly, without a connection to its listener; messages to another fabric's endpoints
 * still travel over TCP. Both keep each sender's order, and a closed receiver fails the send.
 */
class TcpInProcessMessagesTest {
    private static final int SENDERS = 4;
    private static final int PER_SENDER = 2_000;

    private static long deadline() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    }

    @Test
    void messagesWithinAFabricArriveInEachSendersOrderWithoutAConnection() throws Exception {
        for (String threads : List.of("platform", "virtual")) {
            try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).start();
                 TcpFabric fabric = TcpFabric.builder().uri(server.uri() + "?threads=" + threads).build();
                 TcpFabric other = TcpFabric.builder().uri(server.uri() + "?threads=" + threads).build()) {
                Endpoint receiver = fabric.newEndpoint();
                List<Endpoint> senders = new ArrayList<>();
                for (int i = 0; i < SENDERS; i++) {
                    senders.add(i % 2 == 0 ? fabric.newEndpoint() : other.newEndpoint()); // half of them in another process
                }
                List<ClientThread> running = new ArrayList<>();
                for (Endpoint s : senders) {
                    running.add(fabric.spawn("sender", () -> {
                        for (int k = 0; k < PER_SENDER; k++) {
                            s.mailbox().send(receiver.id(), 3, 7, k, s.id().pack(), -k);
                        }
                    }));
                }
                long[] next = new long[SENDERS];
                for (int got = 0; got < SENDERS * PER_SENDER; got++) {
                    Message m = receiver.mailbox().await(deadline());
                    if (m == null) {
                        throw new AssertionError(threads + ": " + got + " of " + SENDERS * PER_SENDER + " messages came");
                    }
                    int from = senders.indexOf(senders.stream().filter(s -> s.id().equals(m.from())).findFirst().orElseThrow());
                    assertEquals(next[from], m.lock(), threads + ": sender " + from + "'s messages in order");
                    assertEquals(new Message(m.from(), 3, 7, next[from], m.from().pack(), -next[from]), m, "intact");
                    next[from]++;
                }
                running.forEach(ClientThread::join);
                assertNull(receiver.mailbox().poll(), "nothing twice");
                assertEquals(0, fabric.peerConnections(), threads + ": no connection to a listener of this fabric");
                assertEquals(1, other.peerConnections(), threads + ": the other fabric's senders reached it over TCP");
                assertEquals((long) PER_SENDER * (SENDERS / 2), fabric.messagesSent(7, false), "counted as within the node");
                assertEquals((long) PER_SENDER * (SENDERS / 2), other.messagesSent(7, true), "counted as across nodes");
            }
        }
    }

    @Test
    void aClosedEndpointOfTheFabricFailsSendsAndPingsAndAnOpenOneIsAlive() {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).start();
             TcpFabric fabric = TcpFabric.builder().uri(server.uri()).build()) {
            Endpoint a = fabric.newEndpoint();
            Endpoint b = fabric.newEndpoint();
            a.mailbox().ping(b.id());
            a.mailbox().send(b.id(), 1, 2, 3, 4, 5);
            assertEquals(new Message(a.id(), 1, 2, 3, 4, 5), b.mailbox().await(deadline()));
            b.close();
            assertThrows(PeerUnreachableException.class, () -> a.mailbox().send(b.id(), 1, 2, 3, 4, 5),
                    "a closed receiver: as RNR");
            assertThrows(PeerUnreachableException.class, () -> a.mailbox().ping(b.id()));
            assertEquals(0, fabric.peerConnections());
            a.close();
        }
    }
}
