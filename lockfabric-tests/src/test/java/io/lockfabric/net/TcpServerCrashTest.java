package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Message;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The memory-node process is killed (SIGKILL) while one client holds a lock and another waits for
 * it: the waiter's acquire and the holder's next verb fail with a {@link FabricException} naming
 * the lost connection instead of hanging, new endpoints fail clearly, and messages between live
 * clients, which never go through the server, still arrive. Each live endpoint's
 * {@link Endpoint#onMemoryNodeLost} listener is told once; a closed endpoint's is not.
 */
@Tag("faults")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TcpServerCrashTest {
    @Test
    void clientsOfAKilledServerFailClearlyAndDoNotHang() throws Exception {
        killedServer(false);
    }

    /**
     * The same with the clients on virtual threads: each connection's reader, always reading, sees
     * the loss while the holder is idle, and the waiter (a virtual thread that never reads) is failed.
     */
    @Test
    void virtualThreadClientsOfAKilledServerFailClearlyAndDoNotHang() throws Exception {
        killedServer(true);
    }

    private static void killedServer(boolean virtual) throws Exception {
        try (ServerProcess server = ServerProcess.start(16L << 20);
             TcpFabric fabric = TcpFabric.builder().uri(server.uri()).connectTimeoutMs(1_000)
                     .virtualThreads(virtual).build()) {
            var dslr = LockProtocols.byName("dslr");
            // a long lease: the waiter must still be waiting when the server dies
            LockOptions options = LockOptions.parse(List.of("lease-ns=60s"));
            Endpoint holder = fabric.newEndpoint();
            LockClient held = dslr.open(holder, "locks", 1, options);
            Grant g = held.acquire(0, Mode.EXCLUSIVE);
            Endpoint waiter = fabric.newEndpoint();
            AtomicReference<Throwable> waiterFailure = new AtomicReference<>();
            ClientThread waiting = fabric.spawn("waiter", () -> {
                try {
                    dslr.open(waiter, "locks", 1, options).acquire(0, Mode.EXCLUSIVE);
                } catch (Throwable t) {
                    waiterFailure.set(t);
                }
            });
            holder.mailbox().send(waiter.id(), 1, 2, 3, 4, 5); // connects the two before the server goes
            assertNotNull(waiter.mailbox().await(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
            var holderLost = new CompletableFuture<FabricException>();
            var told = new AtomicInteger();
            holder.onMemoryNodeLost(e -> {
                told.incrementAndGet();
                holderLost.complete(e);
            });
            Endpoint closedBefore = fabric.newEndpoint();
            var closedTold = new AtomicBoolean();
            closedBefore.onMemoryNodeLost(e -> closedTold.set(true));
            closedBefore.close();

            server.kill();
            FabricException toldWhy = holderLost.get(10, TimeUnit.SECONDS);
            assertTrue(toldWhy.getMessage().contains("lost"), toldWhy.getMessage());
            waiting.join();
            FabricException lost = assertInstanceOf(FabricException.class, waiterFailure.get(),
                    "the waiter's acquire fails once the server is gone");
            assertTrue(lost.getMessage().contains("lost"), lost.getMessage());
            FabricException release = assertThrows(FabricException.class, () -> held.release(g));
            assertTrue(release.getMessage().contains("lost"), release.getMessage());
            var late = new AtomicBoolean();
            holder.onMemoryNodeLost(e -> late.set(true));
            assertTrue(late.get(), "a listener added after the loss is told at once");
            assertEquals(1, told.get(), "told once");
            assertFalse(closedTold.get(), "closing an endpoint is not a loss");
            FabricException fresh = assertThrows(FabricException.class, fabric::newEndpoint);
            assertTrue(fresh.getMessage().contains("cannot connect"), fresh.getMessage());

            holder.mailbox().send(waiter.id(), 1, 6, 7, 8, 9);
            Message m = waiter.mailbox().await(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
            assertEquals(new Message(holder.id(), 1, 6, 7, 8, 9), m, "peers still reach each other directly");
        }
    }
}
