package io.lockfabric.txn;

import io.lockfabric.Held;
import io.lockfabric.LockFabric;
import io.lockfabric.LockSession;
import io.lockfabric.LockSpace;
import io.lockfabric.SpaceOptions;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The LockFabric locker: slot order and merging, many locks through a small pool, and the abort path. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockFabricLockerTest {
    /** Two keys of one slot in a space of few slots. */
    private static List<String> twoKeysOfOneSlot(LockSpace s) {
        Map<Long, String> seen = new java.util.HashMap<>();
        for (int i = 0; ; i++) {
            String k = Integer.toString(i);
            String other = seen.putIfAbsent(s.slotOf(k), k);
            if (other != null) {
                return List.of(other, k);
            }
        }
    }

    @Test
    void keysOfOneSlotAreOneLockInTheStrongerModeAndSetsTakeOneEndpoint() throws Exception {
        try (LockFabric lf = LockFabric.builder("local").poolSize(2).open()) {
            LockSpace s = lf.lockSpace("few", SpaceOptions.builder().slots(64).build());
            LockFabricLocker locker = new LockFabricLocker(s);
            List<String> same = twoKeysOfOneSlot(s);
            List<TxnLock> set = List.of(TxnLock.shared(same.get(0)), TxnLock.exclusive(same.get(1)));
            assertEquals(Mode.EXCLUSIVE, locker.ordered(set).values().iterator().next().mode());
            List<TxnLock> many = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                many.add(i % 3 == 0 ? TxnLock.shared("k" + i) : TxnLock.exclusive("k" + i));
            }
            // three threads each taking a set of 200 keys (as many as 64 slots) through a pool of 2 endpoints
            List<Thread> ts = new ArrayList<>();
            java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
            for (int t = 0; t < 3; t++) {
                List<TxnLock> mine = new ArrayList<>(many);
                java.util.Collections.shuffle(mine, new java.util.Random(t));
                ts.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 20; i++) {
                        try (Locked l = locker.lockAll(mine)) {
                            assertTrue(l.count() <= 64);
                        }
                    }
                    done.incrementAndGet();
                }));
            }
            for (Thread t : ts) {
                t.join();
            }
            assertEquals(3, done.get(), "no set deadlocked, on the pool or on a slot");
        }
    }

    /** How long a try waits for a lock that should be free: well under the space's 1 s lease. */
    private static final Duration FREE_WAIT = Duration.ofMillis(500);

    @Test
    void aSetOneOfWhoseLocksIsHeldElsewhereAbortsAndLeavesNothingHeld() throws Exception {
        try (LockFabric lf = LockFabric.builder("local").poolSize(8).open()) {
            LockSpace s = lf.lockSpace("abort");
            LockFabricLocker locker = new LockFabricLocker(s);
            List<TxnLock> set = List.of(TxnLock.exclusive("a"), TxnLock.shared("b"), TxnLock.exclusive("c"),
                    TxnLock.exclusive("d"));
            Held blocker = s.acquire("c");
            long t0 = System.nanoTime();
            Optional<Locked> got = locker.tryLockAll(set, Duration.ofMillis(100));
            long waitedMs = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(got.isEmpty(), "c is held elsewhere: the transaction aborts");
            assertTrue(waitedMs >= 90 && waitedMs < 2000, "gave up after its wait, not later: " + waitedMs + " ms");
            // right after the abort, another session has every other lock of the set, exclusive (a try waits
            // under the space's 1 s lease: room for a loaded machine, too short for a lock left held to expire)
            try (LockSession other = s.session()) {
                for (String k : List.of("a", "b", "d")) {
                    assertTrue(other.tryAcquire(k, Mode.EXCLUSIVE, FREE_WAIT).isPresent(), k + " left held");
                }
            }
            assertTrue(s.tryAcquire("c", Duration.ZERO).isEmpty(), "c is still its blocker's");
            blocker.close();
            // the abandoned request for c is granted once its blocker releases, and released at once
            try (Held h = s.tryAcquire("c", Duration.ofSeconds(5)).orElseThrow(() -> new AssertionError("c left held"))) {
                assertTrue(h.isValid());
            }
            assertEquals(2, s.stats().abandoned(), "only the requests in flight were abandoned: the set's for c, the probe's");
            Optional<Locked> now = locker.tryLockAll(set, Duration.ofSeconds(5));
            assertTrue(now.isPresent(), "with nothing held elsewhere the set is had");
            assertEquals(4, now.get().count());
            now.get().close();
            for (String k : List.of("a", "b", "c", "d")) {
                s.tryAcquire(k, FREE_WAIT).orElseThrow(() -> new AssertionError(k + " left held after commit")).close();
            }
        }
    }
}
