package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableDroppedException;
import io.lockfabric.fabric.TableInUseException;
import io.lockfabric.fabric.TableRefusedException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.net.wire.Frame;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tables on a tcp memory node live while a client connection has them open, plus a grace; an
 * explicit drop frees them at once (refused while open unless forced); their memory comes back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpTableLifecycleTest {
    private static final long CAPACITY = 64 * 1024;
    /** Most of the server's memory: a second such table fits only if the first one's bytes came back. */
    private static final long BIG = 48 * 1024;

    private static TcpMemoryNode server(long graceNs) {
        return TcpMemoryNode.builder().port(0).capacityBytes(CAPACITY).tableGraceNs(graceNs).start();
    }

    private static TcpFabric client(TcpMemoryNode server) {
        return TcpFabric.connect(server.uri());
    }

    @Test
    void thousandsOfCreateDropCyclesLeaveTheServersMemoryWhereItStarted() {
        try (TcpMemoryNode server = server(TimeUnit.HOURS.toNanos(1)); TcpFabric fabric = client(server)) {
            Endpoint e = fabric.newEndpoint();
            e.openTable(new TableSpec("kept", "cas", 1, 64));
            long start = server.memory().allocatedBytes();
            for (int i = 0; i < 2_000; i++) {
                Table t = e.openTable(new TableSpec("run-" + i, "cas", 1, BIG));
                assertEquals(1, e.queuePair(0).faa(t.address(), 1) + 1, "a fresh table is zeroed");
                assertEquals(BIG, fabric.dropTable(0, "run-" + i, true));
                assertEquals(start, server.memory().allocatedBytes(), "after cycle " + i);
            }
            assertEquals(List.of("kept"), server.tables().stream().map(Frame.TableRow::name).toList());
        }
    }

    @Test
    void tablesOfClosedConnectionsGoAfterTheGraceAndTheirBytesComeBack() {
        try (TcpMemoryNode server = server(0); TcpFabric fabric = client(server)) {
            long start = server.memory().allocatedBytes();
            for (int i = 0; i < 200; i++) {
                // as bench processes do: a connection opens a table of its own, uses it, goes away
                Endpoint e = fabric.newEndpoint();
                Table t = e.openTable(new TableSpec("pid-" + i, "cas", 1, BIG));
                e.queuePair(0).faa(t.address(), 1);
                e.close();
                awaitGone(server, "pid-" + i);
                assertEquals(start, server.memory().allocatedBytes(), "after connection " + i);
            }
        }
    }

    @Test
    void aTableIsKeptWhileOpenAndForItsGraceThenDropped() throws Exception {
        long graceMs = 400;
        try (TcpMemoryNode server = server(TimeUnit.MILLISECONDS.toNanos(graceMs)); TcpFabric fabric = client(server)) {
            Endpoint a = fabric.newEndpoint();
            Endpoint b = fabric.newEndpoint();
            TableSpec spec = new TableSpec("shared", "cas", 1, 64);
            Table t = a.openTable(spec);
            b.openTable(spec);
            a.queuePair(0).write8(t.address(), 42);
            assertEquals(2, row(server, "shared").openers());
            assertEquals(-1, row(server, "shared").idleMs(), "not idle while open");

            a.close();
            Thread.sleep(2 * graceMs);
            assertEquals(1, row(server, "shared").openers(), "one open connection keeps it past the grace");

            long closedAt = System.nanoTime();
            b.close();
            Thread.sleep(graceMs / 4);
            Frame.TableRow idle = row(server, "shared");
            assertNotNull(idle, "kept within its grace");
            assertEquals(0, idle.openers());
            Endpoint c = fabric.newEndpoint();
            assertEquals(42, c.queuePair(0).read8(c.openTable(spec).address()), "reopened within the grace: state kept");
            c.close();

            awaitGone(server, "shared");
            long goneAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt);
            assertTrue(goneAfterMs >= graceMs, "dropped after its grace, not before: " + goneAfterMs + " ms");
            assertEquals(0, server.memory().allocatedBytes());
            Endpoint d = fabric.newEndpoint();
            assertEquals(0, d.queuePair(0).read8(d.openTable(spec).address()), "after the grace: a new, zeroed table");
        }
    }

    @Test
    void droppingATableInUseIsRefusedUnlessForcedAndThenItsClientsSeeTableDropped() {
        try (TcpMemoryNode server = server(TimeUnit.HOURS.toNanos(1)); TcpFabric user = client(server);
             TcpFabric admin = client(server)) {
            Endpoint e = user.newEndpoint();
            Table t = e.openTable(new TableSpec("busy", "cas", 4, 64));
            e.queuePair(0).cas(t.address(), 0, 7);

            TableInUseException refused = assertThrows(TableInUseException.class, () -> admin.dropTable(0, "busy", false));
            assertTrue(refused.getMessage().contains("open by 1 client connection"), refused.getMessage());
            assertEquals(7, e.queuePair(0).read8(t.address()), "a refused drop changed nothing");

            assertEquals(64, admin.dropTable(0, "busy", true));
            assertNull(row(server, "busy"));
            TableDroppedException verb = assertThrows(TableDroppedException.class, () -> e.queuePair(0).read8(t.address()));
            assertTrue(verb.getMessage().contains("table 'busy' was dropped"), verb.getMessage());
            Batch batch = new Batch();
            batch.faa(t.address(), 1);
            assertThrows(TableDroppedException.class, () -> e.queuePair(0).execute(batch));
            assertEquals(0, admin.dropTable(0, "busy", true), "nothing left to drop");
            assertEquals(0, e.queuePair(0).read8(e.openTable(new TableSpec("busy", "cas", 4, 64)).address()),
                    "opened again: a new table, the old lock state is gone");
        }
    }

    @Test
    void aTableThatDoesNotFitIsATableRefusedException() {
        try (TcpMemoryNode server = server(0); TcpFabric fabric = client(server)) {
            Endpoint e = fabric.newEndpoint();
            TableRefusedException x = assertThrows(TableRefusedException.class,
                    () -> e.openTable(new TableSpec("huge", "cas", 1, 2 * CAPACITY)));
            assertTrue(x.getMessage().contains("cannot hold table 'huge'"), x.getMessage());
            assertTrue(server.tables().isEmpty());
        }
    }

    @Test
    void theListSaysBytesOpenConnectionsAndIdleTime() throws Exception {
        try (TcpMemoryNode server = server(TimeUnit.HOURS.toNanos(1)); TcpFabric fabric = client(server)) {
            Endpoint a = fabric.newEndpoint();
            a.openTable(new TableSpec("one", "cas", 1, 128));
            Endpoint b = fabric.newEndpoint();
            b.openTable(new TableSpec("two", "dslr", 2, 256));
            b.close();
            Thread.sleep(50);
            Frame.TableList list = fabric.tables();
            assertEquals(2, list.total());
            Frame.TableRow one = list.tables().get(0);
            Frame.TableRow two = list.tables().get(1);
            assertEquals(new Frame.TableRow("one", "cas", 128, 1, -1), one);
            assertEquals("two", two.name());
            assertEquals(256, two.bytes());
            assertEquals(0, two.openers());
            assertTrue(two.idleMs() >= 40, "idle since its connection closed: " + two.idleMs());
        }
    }

    private static Frame.TableRow row(TcpMemoryNode server, String name) {
        Optional<Frame.TableRow> r = server.tables().stream().filter(t -> t.name().equals(name)).findFirst();
        return r.orElse(null);
    }

    private static void awaitGone(TcpMemoryNode server, String name) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (row(server, name) != null) {
            assertTrue(System.nanoTime() < until, "table " + name + " still there 10 s after its last connection closed");
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
