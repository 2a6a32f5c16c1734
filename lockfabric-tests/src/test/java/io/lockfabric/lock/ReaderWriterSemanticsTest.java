package io.lockfabric.lock;

import io.lockfabric.protocols.LockProtocols;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.local.LocalFabric;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Deterministic two-client scenarios for the reader-writer protocols: who waits for whom. */
@Tag("contract")
@Timeout(30)
class ReaderWriterSemanticsTest {

    /** Runs each client on its own thread, as a lock client belongs to one thread (juc's locks are thread-affine). */
    private static final class ClientThread implements AutoCloseable {
        private final ExecutorService thread = Executors.newSingleThreadExecutor();

        <T> CompletableFuture<T> submit(Callable<T> task) {
            CompletableFuture<T> f = new CompletableFuture<>();
            thread.execute(() -> {
                try {
                    f.complete(task.call());
                } catch (Throwable e) {
                    f.completeExceptionally(e);
                }
            });
            return f;
        }

        <T> T run(Callable<T> task) throws Exception {
            return submit(task).get(5, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            thread.shutdownNow();
        }
    }

    /**
     * These scenarios hold locks for hundreds of milliseconds on purpose, longer than DSLR's 10 ms
     * lease (after which waiters would rightly skip the holders): run it without the lease.
     */
    private static LockOptions unleased(String name) {
        return name.equals("dslr") ? LockOptions.of(java.util.Map.of("lease-ns", Long.MAX_VALUE)) : LockOptions.DEFAULTS;
    }

    @ParameterizedTest
    @ValueSource(strings = {"cas-rw", "dslr", "juc"})
    void readersShareAndAWriterWaitsForThem(String name) throws Exception {
        LockProtocol p = LockProtocols.byName(name);
        LockOptions options = unleased(name);
        try (LocalFabric fabric = LocalFabric.builder().build();
             ClientThread ta = new ClientThread(); ClientThread tb = new ClientThread(); ClientThread tc = new ClientThread()) {
            LockClient ra = p.open(fabric.newEndpoint(), "rw", 4, options);
            LockClient rb = p.open(fabric.newEndpoint(), "rw", 4, options);
            LockClient wc = p.open(fabric.newEndpoint(), "rw", 4, options);
            Grant g1 = ta.run(() -> ra.acquire(1, Mode.SHARED));
            Grant g2 = tb.run(() -> rb.acquire(1, Mode.SHARED));
            CompletableFuture<Grant> writer = tc.submit(() -> wc.acquire(1, Mode.EXCLUSIVE));
            assertThrows(TimeoutException.class, () -> writer.get(200, TimeUnit.MILLISECONDS), "writer must wait for readers");
            // Another lock of the table is independent.
            Grant other = tb.run(() -> rb.acquire(2, Mode.EXCLUSIVE));
            tb.run(() -> release(rb, other));
            ta.run(() -> release(ra, g1));
            assertFalse(writer.isDone(), "one reader still holds");
            tb.run(() -> release(rb, g2));
            Grant w = writer.get(5, TimeUnit.SECONDS);
            assertEquals(Mode.EXCLUSIVE, w.mode());
            CompletableFuture<Grant> reader = ta.submit(() -> ra.acquire(1, Mode.SHARED));
            assertThrows(TimeoutException.class, () -> reader.get(200, TimeUnit.MILLISECONDS), "reader must wait for the writer");
            tc.run(() -> release(wc, w));
            Grant r = reader.get(5, TimeUnit.SECONDS);
            assertTrue(r.fencingToken() >= w.fencingToken() || !p.strictFencing(), "reader token after writer's");
            ta.run(() -> release(ra, r));
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    private static Void release(LockClient c, Grant g) {
        c.release(g);
        return null;
    }

    @ParameterizedTest
    @ValueSource(strings = {"cas", "cas-nb", "cas-rw", "dslr", "juc"})
    void exclusiveTokensIncrease(String name) {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint()) {
            LockClient c = LockProtocols.byName(name).open(a, "tok", 2, LockOptions.DEFAULTS);
            long last = -1;
            for (int i = 0; i < 50; i++) {
                Grant g = c.acquire(0, Mode.EXCLUSIVE);
                assertTrue(g.fencingToken() > last, name + ": token " + g.fencingToken() + " after " + last);
                last = g.fencingToken();
                c.release(g);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cas", "cas-nb", "cas-rw", "dslr", "juc"})
    void badLockIdsAreRejected(String name) {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint()) {
            LockClient c = LockProtocols.byName(name).open(a, "bad", 2, LockOptions.DEFAULTS);
            assertThrows(IllegalArgumentException.class, () -> c.acquire(2, Mode.EXCLUSIVE));
            assertThrows(IllegalArgumentException.class, () -> c.acquire(-1, Mode.SHARED));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cas", "dslr"})
    void unknownOptionsAndMismatchedTablesAreClearErrors(String name) {
        LockProtocol p = LockProtocols.byName(name);
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint()) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> p.open(a, "x", 2, LockOptions.parse(java.util.List.of("no-such-option=1"))));
            assertTrue(e.getMessage().contains("no-such-option"), e.getMessage());
            p.open(a, "y", 2, LockOptions.DEFAULTS);
            assertThrows(io.lockfabric.fabric.TableMismatchException.class, () -> p.open(a, "y", 3, LockOptions.DEFAULTS));
            String otherName = name.equals("cas") ? "dslr" : "cas";
            assertThrows(io.lockfabric.fabric.TableMismatchException.class,
                    () -> LockProtocols.byName(otherName).open(a, "y", 2, LockOptions.DEFAULTS));
        }
    }
}
