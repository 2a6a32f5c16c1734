package io.lockfabric.shm;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Fabrics;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.fabric.TableSpec;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shm fabric in one JVM: its address, two fabrics on one file (as two processes would be), the
 * errors of bad files and bad parameters.
 */
class ShmFabricTest extends ShmDirectoryTest {
    @Test
    void fabricsOpensShmPathsAndChecksTheParameters() {
        Path file = dir.resolve("open.shm");
        try (Fabric f = Fabrics.open("shm:" + file + "?capacity=33554432&seed=5")) {
            assertInstanceOf(ShmFabric.class, f);
            assertEquals("shm:" + file, f.name());
            assertFalse(f.isInProcess(), "clients of other processes share no Java objects");
            assertEquals(ShmFabric.TIMING, f.timing());
        }
        assertEquals(32L << 20, file.toFile().length(), "the file is made with the capacity asked for");
        assertThrows(IllegalArgumentException.class, () -> Fabrics.open("shm"), "no path");
        assertThrows(IllegalArgumentException.class, () -> Fabrics.open("shm:" + file + "?serve=maybe"));
        assertThrows(IllegalArgumentException.class, () -> Fabrics.open("shm:" + file + "?capacity=1024"));
        assertThrows(IllegalArgumentException.class, () -> Fabrics.open("shm:" + file + "?mns=2"));
    }

    @Test
    void twoFabricsOnOneFileShareTablesAndMessages() {
        Path file = dir.resolve("two.shm");
        try (ShmFabric a = ShmFabric.builder().path(file).capacityBytes(16L << 20).build();
             ShmFabric b = ShmFabric.builder().path(file).build()) {
            Endpoint ea = a.newEndpoint();
            Endpoint eb = b.newEndpoint();
            assertNotEquals(ea.id().node(), eb.id().node(), "each fabric (process) is a compute node of its own");
            assertNotEquals(ea.ordinal(), eb.ordinal());
            TableSpec spec = new TableSpec("shared", "test", 4, 256).withFill(new byte[] {7});
            Table ta = ea.openTable(spec);
            Table tb = eb.openTable(spec);
            assertEquals(ta, tb, "one table, found by name");
            assertEquals(0x0707_0707_0707_0707L, eb.queuePair(0).read8(tb.at(8)), "the creator's fill");
            ea.queuePair(0).faa(ta.at(0), 5);
            assertEquals(0x0707_0707_0707_070CL, eb.queuePair(0).read8(tb.at(0)), "one memory");
            assertThrows(TableMismatchException.class, () -> eb.openTable(new TableSpec("shared", "other", 4, 256)));
            assertThrows(TableMismatchException.class, () -> eb.openTable(new TableSpec("shared", "test", 4, 256)),
                    "another fill");

            ea.mailbox().send(eb.id(), 1, 2, 3, 4, 5);
            assertEquals(ea.id(), eb.mailbox().await(System.nanoTime() + 5_000_000_000L).from());
            eb.close();
            assertThrows(PeerUnreachableException.class, () -> ea.mailbox().send(eb.id(), 1, 2, 3, 4, 5));
            Endpoint again = b.newEndpoint();
            assertNotEquals(eb.id(), again.id(), "a fabric never gives a closed endpoint's id out again");
        }
    }

    @Test
    void aFileThatIsNotAFabricsIsRefused() throws Exception {
        Path other = dir.resolve("other");
        Files.write(other, new byte[(int) ShmLayout.MIN_FILE_BYTES]);
        Files.write(other, "not a fabric".getBytes(), java.nio.file.StandardOpenOption.WRITE);
        FabricException e = assertThrows(FabricException.class, () -> ShmFabric.builder().path(other).build());
        assertTrue(e.getMessage().contains("not a lockfabric shm file"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ShmFabric.builder().path(Path.of("relative")).build());
    }

    /** A file of another layout version (one whose processes do not ring each other's bells) is refused, saying so. */
    @Test
    void aFileOfAnotherLayoutVersionIsRefused() throws Exception {
        Path file = dir.resolve("old.shm");
        ShmFabric.builder().path(file).capacityBytes(16L << 20).build().close();
        try (var channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            channel.write(java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, 2),
                    ShmLayout.HEADER_VERSION);
        }
        FabricException e = assertThrows(FabricException.class, () -> ShmFabric.builder().path(file).build());
        assertTrue(e.getMessage().contains("layout version 2") && e.getMessage().contains("version " + ShmLayout.VERSION)
                && e.getMessage().contains("delete the file"), e.getMessage());
    }

    @Test
    void aFullFileSaysSo() {
        try (ShmFabric f = ShmFabric.builder().path(dir.resolve("small.shm")).capacityBytes(ShmLayout.MIN_FILE_BYTES).build()) {
            Endpoint e = f.newEndpoint();
            FabricException full = assertThrows(FabricException.class,
                    () -> e.openTable(new TableSpec("big", "test", 1, 1L << 20)));
            assertTrue(full.getMessage().contains("cannot hold"), full.getMessage());
        }
    }

    private static final java.util.concurrent.atomic.AtomicInteger COUNTED = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * A service that counts "count" calls, keeps the server's thread busy on "block" until it is
     * interrupted, and never answers "never".
     */
    private static final TableSpec BLOCKING = new TableSpec("blocking", "test", 1, 64).withService(host -> call -> {
        if (new String(call.request()).equals("never")) {
            return;
        }
        if (new String(call.request()).equals("block")) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            call.fail("interrupted");
        } else {
            COUNTED.incrementAndGet();
            call.reply(new byte[] {1});
        }
    });

    /**
     * A fabric closed while its threads sleep for replies (platform threads in a futex call, virtual
     * threads parked for the reply watcher) closes: no sleeper keeps the file mapped. The sleepers
     * then end, failing.
     */
    @Test
    void aFabricClosesWhileItsCallersSleepForReplies() throws Exception {
        Path file = dir.resolve("sleepers.shm");
        try (ShmFabric server = ShmFabric.builder().path(file).capacityBytes(16L << 20).serveRpc(true).build()) {
            server.newEndpoint().openTable(BLOCKING);
            ShmFabric client = ShmFabric.builder().path(file).build();
            java.util.List<Thread> callers = new java.util.ArrayList<>();
            java.util.concurrent.atomic.AtomicInteger ended = new java.util.concurrent.atomic.AtomicInteger();
            for (int t = 0; t < 4; t++) {
                Endpoint e = client.newEndpoint();
                var service = e.openTable(BLOCKING).service();
                Runnable call = () -> {
                    try {
                        e.queuePair(0).rpc(service, "never".getBytes());
                    } catch (Throwable expected) {
                        ended.incrementAndGet();
                    }
                };
                callers.add(t % 2 == 0 ? Thread.ofPlatform().daemon().start(call) : Thread.ofVirtual().start(call));
            }
            Thread.sleep(300); // every caller asleep
            client.close();
            for (Thread t : callers) {
                t.join(10_000);
                assertFalse(t.isAlive(), "a caller still waits after its fabric closed");
            }
            assertEquals(4, ended.get(), "every caller failed");
        }
    }

    /**
     * A server a second without a request parks longer between its looks at the ring (to spare the
     * CPU at rest), and still answers the next request; that request makes it look often again.
     */
    @Test
    void aQuietServerStillAnswersAndWakesUp() throws Exception {
        Path file = dir.resolve("quiet.shm");
        COUNTED.set(0);
        try (ShmFabric server = ShmFabric.builder().path(file).capacityBytes(16L << 20).serveRpc(true).build();
             ShmFabric client = ShmFabric.builder().path(file).build();
             Endpoint e = client.newEndpoint()) {
            server.newEndpoint().openTable(BLOCKING);
            var service = e.openTable(BLOCKING).service();
            e.queuePair(0).rpc(service, "count".getBytes());
            assertFalse(server.rpcServer().isQuiet(), "quiet right after a request");
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
            while (!server.rpcServer().isQuiet() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(server.rpcServer().isQuiet(), "the server never went quiet");
            e.queuePair(0).rpc(service, "count".getBytes());
            assertEquals(2, COUNTED.get());
            assertFalse(server.rpcServer().isQuiet(), "still quiet after it answered a request");
        }
    }

    /**
     * A serving fabric that closes with requests still in the ring: their callers fail (the server
     * stopped), and a server started later does not run them late.
     */
    @Test
    void requestsLeftInTheRingWhenTheServerStopsFailAndAreNeverRunLate() throws Exception {
        Path file = dir.resolve("stop.shm");
        COUNTED.set(0);
        ShmFabric server = ShmFabric.builder().path(file).capacityBytes(16L << 20).serveRpc(true).build();
        server.newEndpoint().openTable(BLOCKING);
        try (ShmFabric client = ShmFabric.builder().path(file).build()) {
            java.util.concurrent.atomic.AtomicReference<Throwable> blocked = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicReference<Throwable> queued = new java.util.concurrent.atomic.AtomicReference<>();
            var first = client.spawn("block", () -> {
                try (Endpoint e = client.newEndpoint()) {
                    e.queuePair(0).rpc(e.openTable(BLOCKING).service(), "block".getBytes());
                } catch (Throwable t) {
                    blocked.set(t);
                }
            });
            Thread.sleep(200);
            var second = client.spawn("count", () -> {
                try (Endpoint e = client.newEndpoint()) {
                    e.queuePair(0).rpc(e.openTable(BLOCKING).service(), "count".getBytes());
                } catch (Throwable t) {
                    queued.set(t);
                }
            });
            Thread.sleep(200);
            server.close();
            first.join();
            second.join();
            assertInstanceOf(io.lockfabric.fabric.RpcException.class, queued.get(), "the request left in the ring");
            assertTrue(queued.get().getMessage().contains("stopped before it answered"), queued.get().getMessage());
            assertEquals(0, COUNTED.get());
            try (ShmFabric again = ShmFabric.builder().path(file).serveRpc(true).build()) {
                again.newEndpoint().openTable(BLOCKING);
                try (Endpoint e = client.newEndpoint()) {
                    e.queuePair(0).rpc(e.openTable(BLOCKING).service(), "count".getBytes());
                }
                assertEquals(1, COUNTED.get(), "the new server ran the new call only, not the one left in the ring");
            }
        } finally {
            server.close();
        }
    }
}
