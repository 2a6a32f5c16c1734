package io.lockfabric;

import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client API tour of the README's "Using LockFabric from Java", run inside the client's own tests (the README quotes lockfabric-examples' OrdersExample, which ReadmeExcerptTest keeps in step). */
class ReadmeExampleTest {
    /** A store that refuses writes with an older fencing token. */
    static final class Store {
        private long lastToken = Long.MIN_VALUE;
        private String value;

        synchronized void write(String v, long token) {
            if (token < lastToken) {
                throw new IllegalStateException("stale token " + token);
            }
            lastToken = token;
            value = v;
        }
    }

    @Test
    void theReadmeExampleRuns() throws Exception {
        Store store = new Store();
        String value = "paid";
        // --- as in the README
        try (LockFabric lf = LockFabric.open("local")) {              // or "tcp://127.0.0.1:7420"
            LockSpace orders = lf.lockSpace("orders");                 // or lockSpace(name, SpaceOptions)
            ReadWriteLock rw = orders.readWriteLock("order:42");       // java.util.concurrent.locks
            Lock m = orders.lock("inventory");                         // exclusive, reentrant, thread-owned
            m.lock();
            try {
                rw.readLock().lock();
                rw.readLock().unlock();
            } finally {
                m.unlock();
            }
            try (Held h = orders.acquire("order:42")) {                // exclusive; acquire(key, Mode) for shared
                store.write(value, h.fencingToken());
            }
            Optional<Held> maybe = orders.tryAcquire("order:43", Mode.SHARED, Duration.ofMillis(50));
            maybe.ifPresent(Held::close);
            CompletableFuture<Held> later = orders.acquireAsync("order:44", Mode.EXCLUSIVE);
            later.thenAccept(Held::close).get(10, TimeUnit.SECONDS);
            RangeSpace file = lf.rangeSpace("file:/data/a");           // CITRON by default
            try (Held r = file.acquire(4096, 8192)) {                  // [start, end), exclusive
                assertTrue(r.isValid());
            }
            System.out.println(orders.stats());
        }
        // --- end
        assertEquals("paid", store.value);
    }

    /** The README's session snippet ("Transactions: many locks on one endpoint"), as it stands there, runs. */
    @Test
    void theReadmeSessionSnippetRunsAsItStands() throws Exception {
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("..", "README.md"));
        for (String line : java.util.List.of(
                "try (LockSession s = space.session()) {          // one endpoint, however many locks",
                "    for (String key : keysSortedBySlot) {         // order by space.slotOf(key): deadlock-free",
                "        s.acquire(key, Mode.EXCLUSIVE);",
                "}                                                 // commit: everything released")) {
            assertTrue(readme.contains(line), "the README's session snippet lost the line: " + line);
        }
        try (LockFabric lf = LockFabric.builder("local").poolSize(1).open()) {
            LockSpace space = lf.lockSpace("accounts");
            java.util.List<String> keysSortedBySlot = new java.util.ArrayList<>(
                    java.util.List.of("acct:7", "acct:3", "acct:12", "acct:5"));
            keysSortedBySlot.sort(java.util.Comparator.comparingLong(space::slotOf));
            long slots = keysSortedBySlot.stream().mapToLong(space::slotOf).distinct().count();
            // --- as in the README
            try (LockSession s = space.session()) {          // one endpoint, however many locks
                for (String key : keysSortedBySlot) {         // order by space.slotOf(key): deadlock-free
                    s.acquire(key, Mode.EXCLUSIVE);
                }
                // ... the transaction's body
                assertEquals(slots, s.heldSlots(), "every lock held at once through a pool of ONE endpoint");
            }                                                 // commit: everything released
            // --- end
            // a wait under the space's 1 s lease: room for a loaded machine, too short for a held lock to expire
            try (Held h = space.tryAcquire("acct:7", Duration.ofMillis(500))
                    .orElseThrow(() -> new AssertionError("acct:7 is still held after the session's close"))) {
                assertTrue(h.isValid(), "released at the session's close");
            }
        }
    }
}
