package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the tcp fabric adds to the verb contract: two client fabrics (as two processes would have)
 * on one server, table agreement through the server, services rebuilt from protocol names, the
 * directory, and messages that go straight between clients.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpFabricTest {
    private TcpMemoryNode server;
    private TcpFabric first;
    private TcpFabric second;

    @BeforeEach
    void start() {
        server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start();
        first = TcpFabric.connect(server.uri());
        second = TcpFabric.connect(server.uri());
    }

    @AfterEach
    void stop() {
        first.close();
        second.close();
        server.close();
    }

    @Test
    void uriIsParsedAndBadOnesAreRejectedClearly() {
        assertEquals(server.uri(), first.name());
        for (String bad : List.of("tcp://", "udp://127.0.0.1:1", "tcp://127.0.0.1", "127.0.0.1:7420", "tcp://h:1/x",
                "tcp://h:70000")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TcpFabric.connect(bad), bad);
            assertTrue(e.getMessage().contains("tcp://host:port") || e.getMessage().contains("port"), e.getMessage());
        }
    }

    /**
     * {@code threads=virtual} in an address (both address forms) builds a fabric whose clients are
     * virtual threads and which serves them; a bad value is refused, saying what is allowed.
     */
    @Test
    void threadsInTheAddressPicksVirtualOrPlatformClientsAndBadValuesAreRefused() throws Exception {
        for (String address : List.of(server.uri() + "?threads=virtual", server.uri() + "?connections=1&threads=virtual")) {
            try (TcpFabric f = TcpFabric.builder().uri(address).build()) {
                boolean[] virtual = new boolean[1];
                long[] read = new long[1];
                f.spawn("v", () -> {
                    virtual[0] = Thread.currentThread().isVirtual();
                    try (Endpoint e = f.newEndpoint()) {
                        Table t = e.openTable(new TableSpec("threads", "t", 1, 64));
                        e.queuePair(0).write8(t.at(0), 42);
                        read[0] = e.queuePair(0).read8(t.at(0));
                    }
                }).join();
                assertTrue(virtual[0], address + ": clients are virtual threads");
                assertEquals(42, read[0], address);
            }
        }
        try (var f = io.lockfabric.fabric.Fabrics.open(server.uri() + "?threads=virtual")) {
            boolean[] virtual = new boolean[1];
            f.spawn("v", () -> virtual[0] = Thread.currentThread().isVirtual()).join();
            assertTrue(virtual[0], "Fabrics.open takes threads=virtual too");
        }
        try (var f = io.lockfabric.fabric.Fabrics.open(server.uri() + "?threads=platform")) {
            boolean[] virtual = {true};
            f.spawn("p", () -> virtual[0] = Thread.currentThread().isVirtual()).join();
            assertFalse(virtual[0], "threads=platform is the default's platform threads");
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TcpFabric.builder().uri(server.uri() + "?threads=green").build());
        assertTrue(e.getMessage().contains("virtual or platform"), e.getMessage());
        IllegalArgumentException viaFabrics = assertThrows(IllegalArgumentException.class,
                () -> io.lockfabric.fabric.Fabrics.open(server.uri() + "?threads=green"));
        assertTrue(viaFabrics.getMessage().contains("virtual or platform"), viaFabrics.getMessage());
    }

    /** A client fabric is one compute node (one process): its endpoints share its state, another fabric's do not. */
    @Test
    void eachClientFabricIsOneComputeNode() {
        final class Shared {
        }
        Endpoint a = first.newEndpoint();
        Endpoint b = first.newEndpoint();
        Endpoint c = second.newEndpoint();
        assertEquals(a.id().node(), b.id().node(), "one node id per client fabric");
        assertTrue(a.id().node() != c.id().node(), "and another for the other fabric");
        Shared node = a.computeNode().computeIfAbsent(Shared.class, Shared::new);
        assertSame(node, b.computeNode().getIfPresent(Shared.class), "shared within the fabric");
        assertNull(c.computeNode().getIfPresent(Shared.class), "not across fabrics");
        assertNull(b.attachments().getIfPresent(Shared.class), "an endpoint's own state is not its node's");
        Shared all = first.attachments().computeIfAbsent(Shared.class, Shared::new);
        assertSame(all, b.fabric().attachments().getIfPresent(Shared.class));
        assertNull(second.attachments().getIfPresent(Shared.class), "each process has its own fabric-wide state");
    }

    @Test
    void aDeadServerFailsNewEndpointsClearly() {
        int port = server.port();
        server.close();
        try (TcpFabric f = TcpFabric.builder().server("127.0.0.1", port).connectTimeoutMs(500).build()) {
            FabricException e = assertThrows(FabricException.class, f::newEndpoint);
            assertTrue(e.getMessage().contains("cannot connect"), e.getMessage());
        }
    }

    @Test
    void theFirstOpenerCreatesAndAMismatchNamesBothShapes() {
        Endpoint a = first.newEndpoint();
        Endpoint b = second.newEndpoint();
        Table t = a.openTable(new TableSpec("shared", "cas", 4, 32));
        Table again = b.openTable(new TableSpec("shared", "cas", 4, 32));
        assertEquals(t.address(), again.address(), "the second process finds the first one's table");
        a.queuePair(0).write8(t.at(8), 99);
        assertEquals(99, b.queuePair(0).read8(again.at(8)), "and sees its memory");
        TableMismatchException e = assertThrows(TableMismatchException.class,
                () -> b.openTable(new TableSpec("shared", "dslr", 4, 32)));
        assertTrue(e.getMessage().contains("dslr") && e.getMessage().contains("cas"), e.getMessage());
        assertThrows(TableMismatchException.class, () -> b.openTable(new TableSpec("shared", "cas", 5, 40)));
    }

    @Test
    void tableNamespacesKeepFabricsTablesApartOnOneServer() {
        try (TcpFabric x = TcpFabric.builder().uri(server.uri()).tableNamespace("x").build();
             TcpFabric x2 = TcpFabric.builder().uri(server.uri()).tableNamespace("x").build();
             TcpFabric y = TcpFabric.builder().uri(server.uri()).tableNamespace("y").build()) {
            Endpoint ex = x.newEndpoint();
            Table tx = ex.openTable(new TableSpec("t", "test", 1, 64));
            assertEquals("t", tx.spec().name(), "the fabric's endpoints see their own name");
            ex.queuePair(0).write8(tx.at(0), 42);
            Endpoint ey = y.newEndpoint();
            Table ty = ey.openTable(new TableSpec("t", "test", 2, 128));
            assertEquals(0, ey.queuePair(0).read8(ty.at(0)), "another namespace: another table, another shape");
            Endpoint ex2 = x2.newEndpoint();
            assertEquals(42, ex2.queuePair(0).read8(ex2.openTable(new TableSpec("t", "test", 1, 64)).at(0)),
                    "the same namespace shares the table");
            TableMismatchException e = assertThrows(TableMismatchException.class,
                    () -> ex2.openTable(new TableSpec("t", "test", 3, 64)));
            assertFalse(e.getMessage().contains("x/t"), "named as the fabric names it: " + e.getMessage());
            assertNotNull(server.memory().table("x/t"));
            assertNotNull(server.memory().table("y/t"));
            for (String bad : List.of("", "a/b", "a b")) {
                assertThrows(IllegalArgumentException.class, () -> TcpFabric.builder().tableNamespace(bad), bad);
            }
        }
    }

    @Test
    void servicesAreRebuiltFromTheProtocolNameWithTheRightOptions() {
        // shiftlock with 4 eras has a bigger table than the default: its open carries eras=4 for the service
        LockOptions eras = LockOptions.parse(List.of("eras=4"));
        var shiftlock = LockProtocols.byName("shiftlock");
        try (Endpoint a = first.newEndpoint(); Endpoint b = second.newEndpoint()) {
            LockClient ca = shiftlock.open(a, "sl", 8, eras);
            LockClient cb = shiftlock.open(b, "sl", 8, eras);
            for (int i = 0; i < 20; i++) {
                Grant g = (i % 2 == 0 ? ca : cb).acquire(i % 8, Mode.EXCLUSIVE);
                (i % 2 == 0 ? ca : cb).release(g);
            }
            Table t = a.openTable(shiftlock.tableSpec("sl", 8, eras));
            byte[] stale = new byte[24]; // lock 0, era 99 (not the current one), RelCnt 0
            stale[8] = 99;
            byte[] answer = a.queuePair(0).rpc(t.service(), stale);
            assertEquals(1, answer.length, "the recovery service answered (stale era), so it exists");
            var rpcLock = LockProtocols.byName("rpc");
            LockClient r = rpcLock.open(b, "rpc-t", 4, LockOptions.DEFAULTS);
            Grant g = r.acquire(3, Mode.EXCLUSIVE);
            r.release(g);
        }
    }

    @Test
    void aServiceTheServerCannotBuildIsAClearError() {
        Endpoint a = first.newEndpoint();
        TableSpec spec = new TableSpec("custom", "not-a-protocol", 1, 64).withService(host -> c -> c.reply(new byte[0]));
        FabricException e = assertThrows(FabricException.class, () -> a.openTable(spec));
        assertTrue(e.getMessage().contains("not-a-protocol") && e.getMessage().contains("rpc service"), e.getMessage());
        assertNotNull(a.openTable(new TableSpec("plain", "not-a-protocol", 1, 64)), "without a service it opens");
    }

    @Test
    void messagesGoStraightBetweenProcessesAndNeverThroughTheServer() {
        Endpoint a = first.newEndpoint();
        Endpoint b = second.newEndpoint();
        long serverSendsBefore = server.counters().ops(VerbKind.SEND);
        for (int i = 0; i < 100; i++) {
            a.mailbox().send(b.id(), 3, i, 7, i * 2L, -i);
        }
        for (int i = 0; i < 100; i++) {
            Message m = b.mailbox().await(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
            assertEquals(new Message(a.id(), 3, i, 7, i * 2L, -i), m, "message " + i + " in order, stamped");
        }
        b.mailbox().send(a.id(), 1, 2, 3, 4, 5);
        assertEquals(new Message(b.id(), 1, 2, 3, 4, 5), a.mailbox().await(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
        assertEquals(serverSendsBefore, server.counters().ops(VerbKind.SEND), "the server relays nothing");
        assertEquals(100, a.counters().ops(VerbKind.SEND));
        assertFalse(a.id().node() == b.id().node(), "two processes get two node ids: " + a.id() + ", " + b.id());
    }

    @Test
    void pingsBetweenProcessesDeliverNothingAndFailOnceThePeerProcessIsGone() {
        Endpoint a = first.newEndpoint();
        Endpoint b = second.newEndpoint();
        for (int i = 0; i < 50; i++) {
            a.mailbox().ping(b.id());
        }
        a.mailbox().send(b.id(), 0, 9, 0, 0, 0);
        assertEquals(new Message(a.id(), 0, 9, 0, 0, 0), b.mailbox().await(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)),
                "the send after 50 pings on the same connection is the first message to arrive");
        assertNull(b.mailbox().poll(), "pings enqueue nothing");
        assertEquals(51, a.counters().ops(VerbKind.SEND), "a ping counts as a send");
        second.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        PeerUnreachableException gone = null;
        while (gone == null) {
            try {
                a.mailbox().ping(b.id());
                assertTrue(System.nanoTime() < deadline, "pings to a dead peer kept succeeding");
                Thread.yield();
            } catch (PeerUnreachableException e) {
                gone = e;
            }
        }
        assertEquals(b.id(), gone.peer());
    }

    @Test
    void aDisconnectedClientIsDeadInTheDirectoryAndSendsToItFailPromptly() {
        Endpoint a = first.newEndpoint();
        Endpoint b = second.newEndpoint();
        a.mailbox().send(b.id(), 0, 0, 0, 0, 0);
        assertNotNull(b.mailbox().await(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
        assertTrue(server.liveEndpoints().contains(b.id()));
        second.close(); // the whole other process goes away
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.liveEndpoints().contains(b.id())) {
            assertTrue(System.nanoTime() < deadline, "the server never marked " + b.id() + " dead");
            Thread.onSpinWait();
        }
        // the cached connection learns of the close asynchronously; within the deadline a send fails
        PeerUnreachableException gone = null;
        while (gone == null) {
            try {
                a.mailbox().send(b.id(), 0, 1, 0, 0, 0);
                assertTrue(System.nanoTime() < deadline, "sends to a dead peer kept succeeding");
                Thread.yield();
            } catch (PeerUnreachableException e) {
                gone = e;
            }
        }
        assertEquals(b.id(), gone.peer());
        assertThrows(PeerUnreachableException.class, () -> a.mailbox().send(b.id(), 0, 2, 0, 0, 0), "and stays gone");
        Endpoint c = first.newEndpoint();
        assertThrows(PeerUnreachableException.class, () -> c.mailbox().send(b.id(), 0, 2, 0, 0, 0),
                "a fresh sender learns it from the directory");
    }

    @Test
    void rangesLongerThanAFrameFailAsRemoteAccessErrors() {
        Endpoint a = first.newEndpoint();
        Table t = a.openTable(new TableSpec("big", "x", 1, 2L << 20));
        byte[] data = new byte[1 << 20];
        data[5] = 1;
        assertThrows(io.lockfabric.fabric.RemoteAccessException.class, () -> a.queuePair(0).write(t.at(0), data));
        byte[] half = new byte[512 * 1024];
        half[7] = 7;
        a.queuePair(0).write(t.at(0), half);
        assertArrayEquals(half, a.queuePair(0).read(t.at(0), half.length), "half a MiB goes in one frame");
    }
}
