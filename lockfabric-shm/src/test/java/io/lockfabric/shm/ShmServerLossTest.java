package io.lockfabric.shm;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.protocols.LockProtocols;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An endpoint whose rpcs went to one rpc server depends on it: what they left there (an {@code rpc}
 * lock held) is in that server's memory only. When that server stops, or another server (even in
 * the same process) serves the file after it, the endpoint is lost as a tcp endpoint whose memory
 * node restarted is: told while it does nothing, its later verbs, rpcs and table opens failing.
 * An endpoint that never sent an rpc is not lost; a new endpoint goes to the new server, which
 * waits out a grace before it grants anything. (Killed servers and standbys across processes:
 * {@link ShmMultiProcessTest}.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmServerLossTest extends ShmDirectoryTest {
    private static final long TOLD_WITHIN_S = 10;

    private static ShmFabric server(Path file) {
        return ShmFabric.builder().path(file).capacityBytes(16L << 20).serveRpc(true).build();
    }

    /** What a test does on a client thread of {@code client}, with the first server and a way to start the next. */
    private interface Scenario {
        void run(ShmFabric client, ShmFabric first, Servers next) throws Exception;
    }

    /** Starts servers on the test's file for a {@link Scenario}; closed with it. */
    private static final class Servers {
        private final Path file;
        private final java.util.List<ShmFabric> started = new java.util.concurrent.CopyOnWriteArrayList<>();

        Servers(Path file) {
            this.file = file;
        }

        void start() {
            started.add(server(file));
        }
    }

    /**
     * Serves {@code name} in this JVM, opens a client fabric on it and runs {@code scenario} on a
     * client thread; a failure there fails the test. Every server is closed after.
     */
    private void run(String name, Scenario scenario) throws Exception {
        Path file = dir.resolve(name);
        ShmFabric first = server(file);
        Servers next = new Servers(file);
        try (ShmFabric client = ShmFabric.builder().path(file).build()) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            client.spawn("holder", () -> {
                try {
                    scenario.run(client, first, next);
                } catch (Throwable t) {
                    failure.set(t);
                }
            }).join();
            assertNull(failure.get(), () -> String.valueOf(failure.get()));
        } finally {
            first.close();
            next.started.forEach(ShmFabric::close);
        }
    }

    @Test
    void aStoppedServerLosesTheEndpointsItServedWhileTheyIdleAndANewServerGrantsAfterItsGrace() throws Exception {
        run("loss.shm", (client, first, next) -> {
            Endpoint rpcUser = client.newEndpoint();
            Endpoint verbsOnly = client.newEndpoint();
            LockClient lock = LockProtocols.byName("rpc").open(rpcUser, "served", 4, LockOptions.DEFAULTS);
            Grant held = lock.acquire(0, Mode.EXCLUSIVE);
            CompletableFuture<FabricException> rpcUserLost = new CompletableFuture<>();
            CompletableFuture<FabricException> verbsOnlyLost = new CompletableFuture<>();
            rpcUser.onMemoryNodeLost(rpcUserLost::complete);
            verbsOnly.onMemoryNodeLost(verbsOnlyLost::complete);
            Table words = verbsOnly.openTable(new TableSpec("words", "test", 4, 64));
            verbsOnly.queuePair(0).write8(words.at(0), 7);

            first.close(); // stops serving: the word is cleared
            FabricException why = rpcUserLost.get(TOLD_WITHIN_S, TimeUnit.SECONDS);
            assertTrue(why.getMessage().contains("stopped") && why.getMessage().contains("rpc locks held"),
                    why.getMessage());
            FabricException verb = assertThrows(FabricException.class, () -> rpcUser.queuePair(0).read8(words.at(0)));
            assertTrue(verb.getMessage().contains("stopped"), verb.getMessage());
            assertThrows(FabricException.class, () -> rpcUser.queuePair(0).rpc(1, new byte[1]));
            assertThrows(FabricException.class, () -> rpcUser.openTable(new TableSpec("words", "test", 4, 64)));
            AtomicReference<FabricException> toldLate = new AtomicReference<>();
            rpcUser.onMemoryNodeLost(toldLate::set);
            assertEquals(why, toldLate.get(), "a listener added after the loss is told at once, on its thread");

            assertEquals(7, verbsOnly.queuePair(0).read8(words.at(0)), "an endpoint that sent no rpc goes on");
            assertTrue(!verbsOnlyLost.isDone(), "and is not lost");

            long openedAt = System.nanoTime();
            next.start();
            Endpoint fresh = client.newEndpoint();
            Grant again = LockProtocols.byName("rpc").open(fresh, "served", 4, LockOptions.DEFAULTS)
                    .acquire(0, Mode.EXCLUSIVE);
            long grantedAfterNs = System.nanoTime() - openedAt;
            assertTrue(grantedAfterNs >= ShmRpcServer.TAKEOVER_GRACE_NS, "the new server granted "
                    + grantedAfterNs / 1_000 + " us after it began serving, within its grace");
            assertTrue(again.fencingToken() > held.fencingToken(), "fenced above the old server's grant: "
                    + held.fencingToken() + " then " + again.fencingToken());
            assertTrue(!verbsOnlyLost.isDone(), "the endpoint that sent no rpc is still not lost");
        });
    }

    /**
     * The same process serves the file again before this endpoint's next rpc: same process token, a
     * new epoch. The rpc fails (or the watch has lost the endpoint already); it never reaches the new
     * server, where it would act on state that is not there.
     */
    @Test
    void aServerStartedAgainInTheSameProcessIsANewServer() throws Exception {
        run("again.shm", (client, first, next) -> {
            Endpoint e = client.newEndpoint();
            LockClient lock = LockProtocols.byName("rpc").open(e, "again", 4, LockOptions.DEFAULTS);
            Grant held = lock.acquire(0, Mode.EXCLUSIVE);
            long epoch = client.file().control().read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_EPOCH);
            first.close();
            next.start();
            assertEquals(epoch + 1, client.file().control().read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_EPOCH),
                    "each server that claims the file starts an epoch");
            FabricException release = assertThrows(FabricException.class, () -> lock.release(held));
            assertTrue(release.getMessage().contains("stopped"), release.getMessage());
            Endpoint fresh = client.newEndpoint();
            LockClient lock2 = LockProtocols.byName("rpc").open(fresh, "again", 4, LockOptions.DEFAULTS);
            lock2.release(lock2.acquire(0, Mode.EXCLUSIVE)); // the new server has the lock free
        });
    }
}
