package io.lockfabric.shm;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shm fabric across processes: child JVMs ({@link ShmChild}) and this one map one file under
 * {@code /dev/shm}, deleted after each test.
 */
@Tag("stress")
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShmMultiProcessTest {
    private Path dir;
    private Path shm;

    @BeforeEach
    void newFile() {
        dir = ShmTestFiles.newDirectory();
        shm = dir.resolve("fabric.shm");
    }

    @AfterEach
    void deleteFile() {
        ShmTestFiles.delete(dir);
    }

    /** Runs {@code body} as a client of {@code fabric} and waits for it; what it throws fails the test here. */
    private static void asClient(ShmFabric fabric, String name, ClientBody body) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        fabric.spawn(name, () -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure.set(t);
            }
        }).join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    /** A client's body, which may throw. */
    private interface ClientBody {
        void run() throws Exception;
    }

    private ShmFabric open() {
        return ShmFabric.builder().path(shm).capacityBytes(64L << 20).build();
    }

    /**
     * Three JVMs, two clients each, add one to a number in a plain file under the protocol's lock:
     * the number is exact only if no two increments overlapped. A fourth JVM serves the file's rpcs
     * ({@code rpc} is a server-side lock manager; {@code shiftlock} has a service too): their calls
     * cross the request ring. {@code declock-tf} hands its lock over by messages, so its run checks
     * the mailbox rings across processes. {@code rpc/virtual} counts from virtual threads, which sleep
     * for their replies through their process's {@link ShmReplyWatcher}.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cas", "dslr", "declock-tf", "shiftlock", "rpc", "rpc/virtual"})
    void threeProcessesCountExactlyUnderOneLock(String protocol) throws Exception {
        Path counter = dir.resolve("counter");
        Files.write(counter, new byte[8]);
        int processes = 3;
        int threads = 2;
        int cycles = 400;
        List<ChildJvm> children = new ArrayList<>();
        ChildJvm server = new ChildJvm(ShmChild.READY, "serve", shm.toString());
        children.add(server);
        try {
            server.awaitMark(60);
            for (int i = 0; i < processes; i++) {
                children.add(new ChildJvm(null, "count", shm.toString(), protocol, "" + threads, "" + cycles,
                        counter.toString()));
            }
            for (ChildJvm c : children.subList(1, children.size())) {
                assertEquals(0, c.waitFor(90), "a counting process failed: " + c.output());
                assertTrue(c.output().contains("DONE"), c.output());
            }
        } finally {
            for (ChildJvm c : children) {
                c.close();
            }
        }
        long n = ByteBuffer.wrap(Files.readAllBytes(counter)).getLong();
        assertEquals((long) processes * threads * cycles, n, "increments of the counter under " + protocol
                + "'s lock were lost: two processes held it at once");
    }

    /**
     * A process killed with SIGKILL while it holds a lock: the lock is recovered by the protocol's
     * lease (dslr's), within its bound: the lease plus the scheduling slack of cold JVMs on a small
     * machine.
     */
    @Test
    void aLockHeldByAKilledProcessIsRecoveredWithinTheLease() throws Exception {
        long leaseMs = 300;
        String lease = "lease-ns=" + leaseMs + "ms";
        try (ShmFabric fabric = open()) {
            try (ChildJvm holder = new ChildJvm(ShmChild.HELD, "hold", shm.toString(), "dslr", lease)) {
                holder.awaitMark(60);
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long[] tookMs = new long[1];
            fabric.spawn("taker", () -> {
                try (Endpoint e = fabric.newEndpoint();
                     var lock = io.lockfabric.protocols.LockProtocols.byName("dslr").open(e, "held", 1,
                             io.lockfabric.lock.LockOptions.parse(List.of(lease)))) {
                    long start = System.nanoTime();
                    var g = lock.acquire(0, io.lockfabric.lock.Mode.EXCLUSIVE);
                    tookMs[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    lock.release(g);
                } catch (Throwable t) {
                    failure.set(t);
                }
            }).join();
            if (failure.get() != null) {
                throw new AssertionError("the lock of the killed holder was not recovered", failure.get());
            }
            assertTrue(tookMs[0] <= 4 * leaseMs + 1_000, "recovering the killed holder's lock took " + tookMs[0]
                    + " ms, lease " + leaseMs + " ms");
        }
    }

    /** Without a serving process, an rpc fails at once and says how to start one. */
    @Test
    void anRpcWithoutAServingProcessFailsClearly() {
        try (ShmFabric fabric = open()) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            fabric.spawn("caller", () -> {
                try (Endpoint e = fabric.newEndpoint();
                     var lock = io.lockfabric.protocols.LockProtocols.byName("rpc").open(e, "rpc-locks", 4,
                             io.lockfabric.lock.LockOptions.DEFAULTS)) {
                    lock.acquire(0, io.lockfabric.lock.Mode.EXCLUSIVE);
                } catch (Throwable t) {
                    thrown.set(t);
                }
            }).join();
            assertTrue(thrown.get() instanceof io.lockfabric.fabric.RpcException, "an rpc with no server: " + thrown.get());
            assertTrue(thrown.get().getMessage().contains("lockfabric serve --shm"), thrown.get().getMessage());
        }
    }

    /**
     * A process killed inside a 128-bit atomic (log and word 0 stored, word 1 not, stripe held): the
     * next 128-bit atomic on the entry takes the stripe over, replays the log, and applies itself on the
     * whole entry, promptly.
     */
    @Test
    void aProcessKilledInsideA128BitAtomicWedgesNobody() throws Exception {
        try (ShmFabric fabric = open()) {
            Endpoint e = fabric.newEndpoint();
            Table t = e.openTable(ShmChild.WIDE);
            QueuePair qp = e.queuePair(0);
            qp.maskedCas128(t.at(0), Int128.ZERO, Int128.ZERO, new Int128(41, 41), Int128.ONES);
            try (ChildJvm child = new ChildJvm(ShmChild.INSIDE, "die-inside-128", shm.toString())) {
                child.awaitMark(60);
                assertEquals(new Int128(42, 41), qp.read16(t.at(0)), "the child stopped between word 0 and word 1");
            }
            long start = System.nanoTime();
            Int128 old = qp.maskedFaa128(t.at(0), new Int128(1, 1), new Int128(1L << 63, 0));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(new Int128(42, 42), old, "the dead holder's update was replayed whole before the next one");
            assertEquals(new Int128(43, 43), qp.read16(t.at(0)));
            assertTrue(tookMs < 2_000, "taking the stripe over from a dead process took " + tookMs + " ms");
        }
    }

    /** A process killed at a random moment while it hammers an entry with 128-bit atomics leaves it whole. */
    @Test
    void aProcessKilledWhileHammering128BitAtomicsLeavesNoTornEntry() throws Exception {
        try (ShmFabric fabric = open()) {
            Endpoint e = fabric.newEndpoint();
            Table t = e.openTable(ShmChild.WIDE);
            QueuePair qp = e.queuePair(0);
            Int128 halves = new Int128(1L << 63, 0);
            for (int round = 0; round < 3; round++) {
                try (ChildJvm child = new ChildJvm(ShmChild.READY, "hammer-128", shm.toString())) {
                    child.awaitMark(60);
                    for (int i = 0; i < 20_000; i++) {
                        Int128 old = qp.maskedFaa128(t.at(0), new Int128(1, 1), halves);
                        assertEquals(old.lo(), old.hi(), "a torn entry while the child ran: " + old);
                    }
                }
                Int128 old = qp.maskedFaa128(t.at(0), new Int128(1, 1), halves);
                assertEquals(old.lo(), old.hi(), "a torn entry after the child was killed: " + old);
            }
        }
    }

    /**
     * Messages reach another process and come back; once that process is killed, a send to its
     * endpoint fails as RNR. Also: a child's process token as the child computes it is the one this
     * process computes for the child's pid (else a live holder could be taken for dead).
     */
    @Test
    void messagesCrossProcessesAndADeadProcessIsUnreachable() throws Exception {
        try (ShmFabric fabric = open()) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            try (ChildJvm child = new ChildJvm(ShmChild.READY, "echo", shm.toString())) {
                String[] ready = child.awaitMark(60).split(" ");
                long token = Long.parseLong(ready[0]);
                EndpointId peer = EndpointId.unpack(Long.parseLong(ready[1]));
                assertEquals(ProcessLiveness.tokenOf(ProcessHandle.of(child.pid()).orElseThrow()), token,
                        "the child's token as the child and as this process compute it");
                fabric.spawn("sender", () -> {
                    try (Endpoint e = fabric.newEndpoint()) {
                        for (int i = 0; i < 300; i++) {
                            e.mailbox().send(peer, 5, 10, i, -i, Long.MAX_VALUE);
                            Message back = e.mailbox().await(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
                            assertEquals(new Message(peer, 5, 11, i, -i, Long.MAX_VALUE), back, "echo " + i);
                        }
                        child.kill();
                        assertThrows(PeerUnreachableException.class, () -> {
                            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                            while (System.nanoTime() < deadline) { // liveness answers are cached for ms
                                e.mailbox().send(peer, 5, 10, 0, 0, 0);
                                Thread.sleep(1);
                            }
                        }, "a send to an endpoint of a killed process");
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }).join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
    }

    /**
     * A table another process has open is not dropped; once that process is killed with SIGKILL,
     * it is (a dead process's endpoints do not count), and its memory goes to the next table.
     */
    @Test
    void aTableOpenInAnotherProcessIsDroppedOnceThatProcessIsKilled() throws Exception {
        try (ShmFabric fabric = open()) {
            Endpoint mine = fabric.newEndpoint();
            Table t = mine.openTable(ShmChild.tableOf4k("theirs"));
            long at = ShmTestAccess.fileOffset(fabric.file(), t.at(0));
            try (ChildJvm child = new ChildJvm(ShmChild.READY, "open-table", shm.toString(), "theirs")) {
                child.awaitMark(60);
                var busy = assertThrows(io.lockfabric.fabric.TableInUseException.class,
                        () -> fabric.dropTable(0, "theirs", List.of(mine)));
                assertTrue(busy.getMessage().contains("1 other endpoint"), busy.getMessage());
                mine.queuePair(0).faa(t.at(0), 1); // still there
                child.kill();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                long freed = 0;
                while (freed == 0) { // liveness answers are cached for ms
                    try {
                        freed = fabric.dropTable(0, "theirs", List.of(mine));
                    } catch (io.lockfabric.fabric.TableInUseException stillAlive) {
                        assertTrue(System.nanoTime() < deadline, "the killed process still counts as having the table open");
                        Thread.sleep(5);
                    }
                }
                assertEquals(4096, freed);
            }
            assertThrows(io.lockfabric.fabric.TableDroppedException.class, () -> mine.queuePair(0).read8(t.at(0)));
            Table next = mine.openTable(ShmChild.tableOf4k("next"));
            assertEquals(at, ShmTestAccess.fileOffset(fabric.file(), next.at(0)), "the dropped table's memory is reused");
        }
    }

    /**
     * A process killed with SIGKILL in the middle of a drop, holding the file's directory lock: the
     * OS frees the lock, and the next directory change finishes the drop (the name makes a new table,
     * the old memory is given back).
     */
    @Test
    void aProcessKilledInsideADropWedgesNobodyAndTheDropIsFinished() throws Exception {
        try (ShmFabric fabric = open()) {
            Endpoint e = fabric.newEndpoint();
            Table t = e.openTable(ShmChild.tableOf4k("half"));
            long at = ShmTestAccess.fileOffset(fabric.file(), t.at(0));
            e.close();
            Endpoint e2 = fabric.newEndpoint();
            try (ChildJvm child = new ChildJvm(ShmChild.INSIDE, "die-inside-drop", shm.toString(), "half")) {
                child.awaitMark(60);
            }
            long start = System.nanoTime();
            Table again = e2.openTable(ShmChild.tableOf4k("half"));
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 2_000, "the dead dropper's lock was freed");
            assertTrue(again.address() != t.address(), "the half-done drop was finished: the name made a new table");
            assertEquals(at, ShmTestAccess.fileOffset(fabric.file(), again.at(0)), "and its memory was given back");
        }
    }

    /**
     * rpcs longer than the ring's inline {@value ShmLayout#RPC_INLINE_BYTES} bytes cross to another
     * process whole, both ways, up to {@link ShmLayout#RPC_MAX_BYTES}; a longer request is refused
     * before it is sent and a longer reply fails the call, each naming the bound; the blobs they
     * took are all given back.
     */
    @Test
    void longRpcsCrossProcessesUpToTheBoundAndLongerOnesFailNamingIt() throws Exception {
        try (ChildJvm server = new ChildJvm(ShmChild.READY, "serve", shm.toString()); ShmFabric fabric = open()) {
            server.awaitMark(60);
            asClient(fabric, "caller", () -> {
                try (Endpoint e = fabric.newEndpoint()) {
                    Table t = e.openTable(ShmChild.ECHO_TABLE);
                    QueuePair qp = e.queuePair(0);
                    java.util.Random random = new java.util.Random(7);
                    for (int n : new int[] {0, 1, ShmLayout.RPC_INLINE_BYTES, ShmLayout.RPC_INLINE_BYTES + 1, 100_000,
                            ShmLayout.RPC_MAX_BYTES}) {
                        byte[] request = new byte[n];
                        random.nextBytes(request);
                        if (n > 0) {
                            request[0] = 'x';
                        }
                        assertTrue(java.util.Arrays.equals(request, qp.rpc(t.service(), request)), "an echo of " + n + " bytes");
                    }
                    byte[] grown = qp.rpc(t.service(), ("grow:" + 300_000).getBytes());
                    assertEquals(300_000, grown.length);
                    assertEquals((byte) (299_999 * 31), grown[299_999]);
                    var tooLong = assertThrows(io.lockfabric.fabric.RpcException.class,
                            () -> qp.rpc(t.service(), new byte[ShmLayout.RPC_MAX_BYTES + 1]));
                    assertTrue(tooLong.getMessage().contains("" + ShmLayout.RPC_MAX_BYTES), tooLong.getMessage());
                    var replyTooLong = assertThrows(io.lockfabric.fabric.RpcException.class,
                            () -> qp.rpc(t.service(), ("grow:" + (ShmLayout.RPC_MAX_BYTES + 1)).getBytes()));
                    assertTrue(replyTooLong.getMessage().contains("" + ShmLayout.RPC_MAX_BYTES), replyTooLong.getMessage());
                    assertEquals("ok", new String(qp.rpc(t.service(), "ok".getBytes())), "the ring works on after them");
                    for (int b = 0; b < ShmLayout.BLOBS; b++) {
                        assertEquals(0, fabric.file().control().read8(ShmLayout.blob(b) + ShmLayout.BLOB_OWNER),
                                "blob " + b + " was given back");
                    }
                }
            });
        }
    }

    /**
     * A standby server takes over when the serving process is killed with SIGKILL: an rpc in flight
     * to the dead server (an {@code rpc} lock request queued behind a holder) fails promptly with an
     * error that says so instead of hanging, and later rpcs go to the standby. The lock state of the
     * dead server's memory is gone (the new server starts with the lock free), but its fencing
     * counts were in the table and go on: the next grant's token is larger than the old holder's.
     */
    @Test
    void aStandbyTakesOverWhenTheServerIsKilledAndCallsInFlightFailClearly() throws Exception {
        ChildJvm server = new ChildJvm(ShmChild.READY, "serve", shm.toString());
        ChildJvm standby = null;
        try (ShmFabric fabric = open()) {
            server.awaitMark(60);
            standby = new ChildJvm(ShmChild.STANDBY, "standby", shm.toString());
            assertEquals("false", standby.awaitMark(60), "the second server stands by");
            assertEquals(server.pid(), fabric.rpcServerPid());
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Throwable> inFlight = new AtomicReference<>();
            long[] tokens = new long[2];
            ChildJvm serverToKill = server;
            ChildJvm standbyChild = standby;
            fabric.spawn("holder", () -> {
                try (Endpoint e1 = fabric.newEndpoint(); Endpoint e2 = fabric.newEndpoint();
                     var lock1 = io.lockfabric.protocols.LockProtocols.byName("rpc").open(e1, "failover", 4,
                             io.lockfabric.lock.LockOptions.DEFAULTS)) {
                    tokens[0] = lock1.acquire(0, io.lockfabric.lock.Mode.EXCLUSIVE).fencingToken();
                    assertEquals("x", new String(e1.queuePair(0).rpc(e1.openTable(ShmChild.ECHO_TABLE).service(), "x".getBytes())));
                    java.util.concurrent.CompletableFuture<io.lockfabric.fabric.FabricException> holderLost =
                            new java.util.concurrent.CompletableFuture<>();
                    e1.onMemoryNodeLost(holderLost::complete);
                    java.util.concurrent.CountDownLatch queued = new java.util.concurrent.CountDownLatch(1);
                    var waiter = fabric.spawn("waiter", () -> {
                        try (var lock2 = io.lockfabric.protocols.LockProtocols.byName("rpc").open(e2, "failover", 4,
                                io.lockfabric.lock.LockOptions.DEFAULTS)) {
                            queued.countDown();
                            lock2.acquire(0, io.lockfabric.lock.Mode.EXCLUSIVE);
                            inFlight.set(new AssertionError("granted while the holder held it"));
                        } catch (Throwable t) {
                            inFlight.set(t);
                        }
                    });
                    queued.await();
                    Thread.sleep(200); // its ACQUIRE is queued at the server
                    long killedAt = System.nanoTime();
                    serverToKill.kill();
                    waiter.join();
                    long failedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                    assertTrue(failedMs < 5_000, "the call in flight took " + failedMs + " ms to fail");
                    assertEquals("" + serverToKill.pid(), standbyChild.awaitLine(ShmChild.SERVING, 30),
                            "the standby took over from the killed server");
                    // the holder of the killed server's lock sent nothing since: it is told anyway, and its
                    // endpoint no longer reaches the new server, which has the lock free
                    String why = holderLost.get(10, TimeUnit.SECONDS).getMessage();
                    assertTrue(why.contains("process " + serverToKill.pid() + ") died"), why);
                    assertThrows(io.lockfabric.fabric.FabricException.class,
                            () -> e1.queuePair(0).rpc(e1.openTable(ShmChild.ECHO_TABLE).service(), "x".getBytes()));
                } catch (Throwable t) {
                    failure.set(t);
                }
            }).join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            Throwable t = inFlight.get();
            String messages = "";
            for (Throwable c = t; c != null; c = c.getCause()) {
                messages += c + " / ";
            }
            assertTrue(messages.contains("died before it answered"), "the rpc in flight to the killed server: " + messages);
            fabric.spawn("after", () -> {
                try (Endpoint e3 = fabric.newEndpoint();
                     var lock3 = io.lockfabric.protocols.LockProtocols.byName("rpc").open(e3, "failover", 4,
                             io.lockfabric.lock.LockOptions.DEFAULTS)) {
                    tokens[1] = lock3.acquire(0, io.lockfabric.lock.Mode.EXCLUSIVE).fencingToken();
                } catch (Throwable t3) {
                    failure.set(t3);
                }
            }).join();
            if (failure.get() != null) {
                throw new AssertionError("an rpc after the takeover", failure.get());
            }
            assertEquals(standby.pid(), fabric.rpcServerPid());
            assertTrue(tokens[1] > tokens[0], "the new server's grant is fenced above the old holder's: " + tokens[0] + " then "
                    + tokens[1]);
        } finally {
            server.close();
            if (standby != null) {
                standby.close();
            }
        }
    }
}
