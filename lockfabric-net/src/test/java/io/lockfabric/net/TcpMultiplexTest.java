package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableInUseException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.Verb;
import io.lockfabric.net.wire.ErrorCode;
import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.HandshakeLayout;

import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Endpoints of one fabric share a few connections to the memory node: each endpoint's verbs still
 * execute in the order it posted them (unsignaled ones too) while many endpoints post at once on
 * one connection; one endpoint's close (BYE) leaves the others and keeps the table bookkeeping per endpoint; a lost
 * connection is lost for every endpoint on it; the memory node refuses frames naming an endpoint
 * not opened on their connection, and a client of the older wire version, saying why.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpMultiplexTest {
    private static final int THREADS = 12;
    private static final int ROUNDS = 1_000;

    private static TcpMemoryNode server() {
        return TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start();
    }

    @Test
    void manyEndpointsOnTwoConnectionsEachSeeTheirOwnVerbsInOrder() {
        eachSeesItsOwnVerbsInOrder(false);
    }

    /**
     * The same on a fabric built for virtual threads: the clients are virtual threads, a reader
     * brings every reply and a flusher writes the virtual callers' frames in batches, and each
     * endpoint's order still holds; the frames did share writes.
     */
    @Test
    void virtualThreadClientsOnTwoConnectionsEachSeeTheirOwnVerbsInOrder() {
        eachSeesItsOwnVerbsInOrder(true);
    }

    private void eachSeesItsOwnVerbsInOrder(boolean virtual) {
        try (TcpMemoryNode server = server();
             TcpFabric fabric = TcpFabric.builder().uri(server.uri() + "?connections=2").virtualThreads(virtual).build()) {
            assertEquals(2, fabric.connections());
            List<String> failures = new CopyOnWriteArrayList<>();
            Set<Long> sharedTickets = ConcurrentHashMap.newKeySet();
            Set<ServerLink> links = ConcurrentHashMap.newKeySet();
            List<ClientThread> clients = new ArrayList<>();
            for (int c = 0; c < THREADS; c++) {
                int slot = c;
                clients.add(fabric.spawn("mux-" + c, () -> {
                    if (Thread.currentThread().isVirtual() != virtual) {
                        failures.add("client " + slot + " runs on a " + (virtual ? "platform" : "virtual") + " thread");
                    }
                    try (Endpoint e = fabric.newEndpoint()) {
                        links.add(((TcpEndpoint) e).link());
                        Table t = e.openTable(new TableSpec("mux", "t", 1, 64L * THREADS + 64));
                        QueuePair qp = e.queuePair(0);
                        long mine = t.at(64L * slot);
                        long counter = mine + 8;
                        long shared = t.at(64L * THREADS);
                        Batch b = new Batch();
                        for (int i = 1; i <= ROUNDS; i++) {
                            qp.write8(mine, i);
                            long read = qp.read8(mine);
                            if (read != i) {
                                failures.add("endpoint " + slot + " wrote " + i + " and read " + read);
                                return;
                            }
                            long before = qp.faa(counter, 1);
                            if (before != i - 1) {
                                failures.add("endpoint " + slot + ": FAA " + i + " returned " + before);
                                return;
                            }
                            sharedTickets.add(qp.faa(shared, 1));
                            qp.post(new Verb.Write8(mine, -i)); // posted: no wait, still before the read
                            long posted = qp.read8(mine);
                            if (posted != -i) {
                                failures.add("endpoint " + slot + " posted a write of " + -i + " and read " + posted);
                                return;
                            }
                            if (i % 100 == 0) { // a batch after single verbs: in order with them too
                                b.clear();
                                b.write8(mine, -i);
                                b.read8(mine);
                                b.faa(counter, 0);
                                qp.execute(b);
                                if (b.longResult(1) != -i || b.longResult(2) != i) {
                                    failures.add("endpoint " + slot + ": batch at " + i + " saw " + b.longResult(1)
                                            + ", " + b.longResult(2));
                                    return;
                                }
                            }
                        }
                    }
                }));
            }
            clients.forEach(ClientThread::join);
            assertEquals(List.of(), failures);
            assertEquals(2, links.size(), "the endpoints shared two connections");
            assertEquals(THREADS * ROUNDS, sharedTickets.size(), "every FAA on the shared word got its own ticket");
            Set<Long> expected = new HashSet<>();
            for (long k = 0; k < (long) THREADS * ROUNDS; k++) {
                expected.add(k);
            }
            assertEquals(expected, sharedTickets);
            assertEquals(2, server.openConnections(), "two connections for " + THREADS + " endpoints");
            if (virtual) {
                long[] writes = fabric.writeCounts();
                assertTrue(writes[1] > writes[0], "virtual callers' frames shared writes: " + writes[1] + " frames in "
                        + writes[0] + " writes");
            }
        }
    }

    @Test
    void aClosedEndpointLeavesItsConnectionToTheOthersAndStopsCountingAsAnOpener() {
        try (TcpMemoryNode server = server();
             TcpFabric fabric = TcpFabric.builder().uri(server.uri()).connections(1).build()) {
            Endpoint a = fabric.newEndpoint();
            Endpoint b = fabric.newEndpoint();
            assertSame(((TcpEndpoint) a).link(), ((TcpEndpoint) b).link(), "one connection");
            TableSpec spec = new TableSpec("shared", "t", 1, 64);
            Table ta = a.openTable(spec);
            Table tb = b.openTable(spec);
            a.queuePair(0).write8(ta.at(0), 7);
            assertThrows(TableInUseException.class, () -> fabric.dropTable(0, "shared", List.of(b)),
                    "a has it open too");
            a.close();
            assertFalse(server.liveEndpoints().contains(a.id()), "a is dead in the directory at once");
            assertTrue(server.liveEndpoints().contains(b.id()));
            assertEquals(7, b.queuePair(0).read8(tb.at(0)), "b goes on on the same connection");
            b.mailbox().send(b.id(), 1, 2, 3, 4, 5);
            assertEquals(new Message(b.id(), 1, 2, 3, 4, 5), b.mailbox().await(System.nanoTime()
                    + TimeUnit.SECONDS.toNanos(10)));
            assertTrue(fabric.dropTable(0, "shared", List.of(b)) > 0, "only b had it open");
            assertEquals(1, server.openConnections());
        }
    }

    @Test
    void aLostConnectionIsLostForEveryEndpointOnItAndALaterEndpointGetsANewOne() throws Exception {
        try (TcpMemoryNode server = server();
             TcpFabric fabric = TcpFabric.builder().uri(server.uri()).connections(1).build()) {
            List<Endpoint> on = List.of(fabric.newEndpoint(), fabric.newEndpoint(), fabric.newEndpoint());
            AtomicInteger told = new AtomicInteger();
            Endpoint closedBefore = fabric.newEndpoint();
            closedBefore.onMemoryNodeLost(e -> told.addAndGet(100));
            closedBefore.close();
            for (Endpoint e : on) {
                e.onMemoryNodeLost(x -> told.incrementAndGet());
            }
            ServerLink link = ((TcpEndpoint) on.get(0)).link();
            link.sever();
            ServerLimitsTest.awaitTrue(() -> server.liveEndpoints().isEmpty(), "every endpoint of it is dead");
            assertEquals(3, told.get(), "each open endpoint was told once, the closed one not");
            assertThrows(FabricException.class, () -> on.get(1).queuePair(0).read8(0));
            Endpoint later = fabric.newEndpoint();
            Table t = later.openTable(new TableSpec("after", "t", 1, 64));
            later.queuePair(0).write8(t.at(0), 9);
            assertEquals(9, later.queuePair(0).read8(t.at(0)));
            assertTrue(server.liveEndpoints().contains(later.id()));
        }
    }

    @Test
    void theMemoryNodeRefusesAnEndpointNotOpenedOnTheConnection() throws Exception {
        try (TcpMemoryNode server = server();
             TcpFabric fabric = TcpFabric.builder().uri(server.uri()).build();
             Socket s = new Socket("127.0.0.1", server.port())) {
            Endpoint other = fabric.newEndpoint();
            assertInstanceOf(Frame.AuthOk.class, RawHandshake.open(s, null, TcpMemoryNode.HANDSHAKE_CONTEXT));
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(RawHandshake.encode(new Frame.Hello(1, 99, "127.0.0.1", 1)));
            Frame.Welcome w = assertInstanceOf(Frame.Welcome.class, RawHandshake.readFrame(in));
            TableSpec spec = new TableSpec("raw", "t", 1, 64);
            for (Frame f : List.of(new Frame.OpenTable(2, other.id().pack(), spec, false),
                    new Frame.RpcRequest(3, other.id().pack(), 0, new byte[0]), new Frame.Bye(4, other.id().pack()))) {
                out.write(RawHandshake.encode(f));
                Frame.ErrorReply e = assertInstanceOf(Frame.ErrorReply.class, RawHandshake.readFrame(in), f.toString());
                assertEquals(ErrorCode.REFUSED, e.code());
                assertTrue(e.message().contains("not open on this connection"), e.message());
            }
            assertTrue(server.liveEndpoints().contains(other.id()), "the other endpoint is untouched");
            out.write(RawHandshake.encode(new Frame.OpenTable(5, w.endpointId(), spec, false)));
            assertInstanceOf(Frame.TableOpened.class, RawHandshake.readFrame(in));
            out.write(RawHandshake.encode(new Frame.Bye(6, w.endpointId())));
            assertInstanceOf(Frame.Results.class, RawHandshake.readFrame(in));
            assertFalse(server.liveEndpoints().stream().anyMatch(id -> id.pack() == w.endpointId()), "bye");
        }
    }

    @Test
    void anInterruptedThreadStillOpensAndClosesItsEndpointOnTheSharedConnectionAndKeepsItsInterrupt() {
        try (TcpMemoryNode server = server();
             TcpFabric fabric = TcpFabric.builder().uri(server.uri()).connections(1).build()) {
            Endpoint first = fabric.newEndpoint(); // the connection is made
            Endpoint e;
            Thread.currentThread().interrupt();
            try {
                e = fabric.newEndpoint();
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept");
                assertTrue(server.liveEndpoints().contains(e.id()));
                e.close();
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept");
            } finally {
                Thread.interrupted();
            }
            assertFalse(server.liveEndpoints().contains(e.id()), "its BYE was not given up");
            assertEquals(List.of(first.id()), server.liveEndpoints());
        }
    }

    @Test
    void aClientOfWireVersionOneIsRefusedWithTheReason() throws Exception {
        assertEquals(2, HandshakeLayout.WIRE_VERSION, "connections shared by endpoints are wire version 2");
        try (TcpMemoryNode server = server(); Socket s = new Socket("127.0.0.1", server.port())) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            Frame.Challenge c = assertInstanceOf(Frame.Challenge.class, RawHandshake.readFrame(in));
            assertEquals(2, c.version());
            s.getOutputStream().write(RawHandshake.encode(new Frame.Auth(0, 1, SharedSecret.nonce(), new byte[0])));
            Frame.ErrorReply e = assertInstanceOf(Frame.ErrorReply.class, RawHandshake.readFrame(in));
            assertTrue(e.message().contains("wire version 1") && e.message().contains("version 2"), e.message());
        }
    }

    @Test
    void theConnectionsOptionIsCheckedInTheAddressAndTheBuilder() {
        try (TcpFabric f = TcpFabric.builder().uri("tcp://127.0.0.1:7420?connections=3").build()) {
            assertEquals(3, f.connections(), "connections are made on first use");
        }
        try (TcpFabric f = TcpFabric.builder().uri("tcp://127.0.0.1:7420").ioThreads(1).build()) {
            assertEquals(1, f.connections(), "one per I/O thread by default");
        }
        for (String bad : List.of("tcp://127.0.0.1:7420?connections=0", "tcp://127.0.0.1:7420?connections=x",
                "tcp://127.0.0.1:7420?threads=2", "tcp://127.0.0.1:7420?connections=65")) {
            assertThrows(IllegalArgumentException.class, () -> TcpFabric.builder().uri(bad).build(), bad);
        }
    }
}
