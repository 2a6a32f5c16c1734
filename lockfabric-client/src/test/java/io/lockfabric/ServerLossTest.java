package io.lockfabric;

import io.lockfabric.lock.Mode;
import io.lockfabric.net.TcpMemoryNode;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The memory node goes away while locks are held and requested: killed (SIGKILL, a server in its
 * own process) or stopped (in this JVM). Every hold turns invalid and is reported lost once, a
 * waiting request fails, closing a lost hold returns at once without an error, and a later request
 * fails quickly with {@link FabricUnreachableException}. A hold lost to its lease first is not
 * reported again. A server started again on the same port serves the same {@link LockFabric} again
 * (on DecLock too, whose compute node kept its local lock table through the loss).
 */
@Tag("faults")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerLossTest {
    /** Long enough that no hold of these tests is lost to its lease unless a test means it. */
    private static final SpaceOptions LONG_LEASE = SpaceOptions.builder().option("lease-ns", "60s").build();
    private static final long TOLD_WITHIN_S = 10;

    @Test
    void aKilledServerLosesEveryHoldOnceAndLaterRequestsFailClearly() throws Exception {
        JavaProcess server = JavaProcess.memoryNode();
        try (LockFabric lf = LockFabric.builder(server.awaitMark(0)).poolSize(3).open()) {
            LockSpace s = lf.lockSpace("orders", LONG_LEASE);
            List<Held> lost = new CopyOnWriteArrayList<>();
            s.onLoss(lost::add);
            Held a = s.acquire("a");
            Held b = s.acquire("b", Mode.SHARED);
            CompletableFuture<Held> waiting = s.acquireAsync("a");
            Thread.sleep(100);
            assertFalse(waiting.isDone(), "'a' is held: the request waits");

            long killedNs = System.nanoTime();
            server.close(); // SIGKILL, and waits until the process is gone
            awaitSize(lost, 2);
            System.out.printf("losses told %.1f ms after the kill began%n", (System.nanoTime() - killedNs) / 1e6);
            assertFalse(a.isValid());
            assertFalse(b.isValid());
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> waiting.get(TOLD_WITHIN_S, TimeUnit.SECONDS));
            assertInstanceOf(FabricUnreachableException.class, failed.getCause(), failed.getCause().toString());
            assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
                a.close();
                b.close();
                a.close();
            }, "closing a lost hold returns at once");
            FabricUnreachableException later = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> assertThrows(FabricUnreachableException.class, () -> s.acquire("c")));
            assertTrue(later.getMessage().contains("lost"), later.getMessage());
            Thread.sleep(100);
            assertEquals(2, lost.size(), "each hold is reported once: " + lost);
            assertTrue(lost.contains(a) && lost.contains(b), lost.toString());
            assertEquals(2, s.stats().losses());
        } finally {
            server.close();
        }
    }

    @Test
    void aStoppedServerInThisJvmLosesTheHoldAndALeaseLossIsNotReportedTwiceAndARestartedOneServesAgain() throws Exception {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start();
        TcpMemoryNode restarted = null;
        try (LockFabric lf = LockFabric.builder(server.uri()).poolSize(4).open()) {
            LockSpace s = lf.lockSpace("short", SpaceOptions.builder().protocol("dslr").option("lease-ns", "100ms").build());
            LockSpace l = lf.lockSpace("long", SpaceOptions.builder().protocol("dslr").option("lease-ns", "60s").build());
            List<Held> lost = new CopyOnWriteArrayList<>();
            s.onLoss(lost::add);
            l.onLoss(lost::add);
            Held leased = s.acquire("k");
            awaitSize(lost, 1);
            assertSame(leased, lost.getFirst(), "lost to its lease");
            Held kept = l.acquire("k");
            assertTrue(kept.isValid());
            LockSpace d = lf.lockSpace("declock", LONG_LEASE);
            Held dh = d.acquire("k");
            CompletableFuture<Held> dw = d.acquireAsync("k");

            server.close();
            awaitSize(lost, 2);
            assertFalse(kept.isValid());
            assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
                kept.close();
                leased.close();
            });
            assertThrows(FabricUnreachableException.class, () -> l.acquire("k"));
            Thread.sleep(100);
            assertEquals(2, lost.size(), "the lease loss is not reported again: " + lost);
            assertEquals(1, s.stats().losses());
            assertEquals(1, l.stats().losses());

            // a server started again on the port serves the same LockFabric: new connections, tables made afresh
            restarted = TcpMemoryNode.builder().port(server.port()).capacityBytes(16L << 20).start();
            try (Held again = l.acquire("k")) {
                assertTrue(again.isValid());
            }
            assertFalse(dh.isValid());
            assertThrows(ExecutionException.class, () -> dw.get(5, TimeUnit.SECONDS));
            for (int i = 0; i < 5; i++) {
                try (Held again = d.tryAcquire("k", Duration.ofSeconds(5)).orElseThrow()) {
                    assertTrue(again.isValid());
                }
            }
        } finally {
            server.close();
            if (restarted != null) {
                restarted.close();
            }
        }
    }

    /**
     * On shm the memory is the file, which outlives any process, but an {@code rpc} lock lives in
     * the memory of the process that serves the file's rpcs. When that server stops, the holds it
     * granted are reported lost (with the holder doing nothing), holds of one-sided protocols on the
     * same {@link LockFabric} stay valid, and once a server serves the file again the space works,
     * its grants fenced above the lost ones.
     */
    @Test
    void anShmRpcServerThatStopsLosesTheHoldsItGrantedAndNoOthers() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.isDirectory(java.nio.file.Path.of("/dev/shm"))
                ? java.nio.file.Path.of("/dev/shm") : java.nio.file.Path.of(System.getProperty("java.io.tmpdir"));
        java.nio.file.Path file = dir.resolve("lockfabric-server-loss-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        String address = "shm:" + file + "?capacity=33554432";
        io.lockfabric.fabric.Fabric server = io.lockfabric.fabric.Fabrics.open(address + "&serve=true");
        io.lockfabric.fabric.Fabric again = null;
        try (LockFabric lf = LockFabric.builder(address).poolSize(3).open()) {
            LockSpace served = lf.lockSpace("served", SpaceOptions.builder().protocol("rpc").build());
            LockSpace oneSided = lf.lockSpace("one-sided", SpaceOptions.builder().protocol("cas").build());
            List<Held> lost = new CopyOnWriteArrayList<>();
            served.onLoss(lost::add);
            oneSided.onLoss(lost::add);
            Held verbs = oneSided.acquire("k"); // first, on an endpoint that has sent no rpc
            Held rpc = served.acquire("k");

            server.close();
            awaitSize(lost, 1);
            assertSame(rpc, lost.getFirst());
            assertFalse(rpc.isValid());
            assertTrue(verbs.isValid(), "a one-sided hold does not depend on the rpc server");
            assertTimeoutPreemptively(Duration.ofSeconds(2), rpc::close, "closing a lost hold returns at once");

            again = io.lockfabric.fabric.Fabrics.open(address + "&serve=true");
            try (Held next = served.tryAcquire("k", Duration.ofSeconds(10)).orElseThrow()) {
                assertTrue(next.isValid());
                assertTrue(next.fencingToken() > rpc.fencingToken(), rpc.fencingToken() + " then " + next.fencingToken());
            }
            verbs.close();
            try (Held more = oneSided.acquire("k")) {
                assertTrue(more.isValid());
            }
            assertEquals(1, served.stats().losses());
            assertEquals(0, oneSided.stats().losses());
        } finally {
            server.close();
            if (again != null) {
                again.close();
            }
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    private static void awaitSize(List<Held> lost, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TOLD_WITHIN_S);
        while (lost.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(n, lost.size(), "losses told within " + TOLD_WITHIN_S + " s: " + lost);
    }
}
