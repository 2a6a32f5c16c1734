package io.lockfabric.compare.smallbank;

import io.lockfabric.compare.Servers;
import io.lockfabric.txn.Locked;
import io.lockfabric.txn.Locker;
import io.lockfabric.txn.TxnLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.api.RKeys;
import org.redisson.api.options.KeysScanOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Redis lockers on a real redis-server (started here; missing, the test fails): a set that
 * cannot be had is given up with nothing of it left held, the order takes a key twice once, and
 * the locks exclude (an unguarded counter under a contended pair of keys).
 */
@Tag("peers")
class RedisLockerTest {
    private static Servers.Running redis;
    private static RedissonClient client;

    @BeforeAll
    static void start() {
        redis = Servers.redis();
        client = RedisBank.connect(redis.address(), 8);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.shutdown();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static Set<String> keys(String pattern) {
        RKeys k = client.getKeys();
        Set<String> s = new TreeSet<>();
        k.getKeys(KeysScanOptions.defaults().pattern(pattern)).forEach(s::add);
        return s;
    }

    private static List<TxnLock> set(String... keys) {
        List<TxnLock> l = new ArrayList<>();
        for (String k : keys) {
            l.add(TxnLock.exclusive(k));
        }
        return l;
    }

    private static void abortLeavesNothingHeld(Locker a, Locker b, String pattern, String heldKey) {
        try (Locked held = a.lockAll(set("b"))) {
            assertEquals(1, held.count());
            long t0 = System.nanoTime();
            Optional<Locked> got = b.tryLockAll(List.of(TxnLock.exclusive("c"), TxnLock.shared("a"), TxnLock.exclusive("b"),
                    TxnLock.exclusive("a")), Duration.ofMillis(100));
            long waitedMs = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(got.isEmpty(), "took a set whose lock b another holds");
            assertTrue(waitedMs >= 90 && waitedMs < 2_000, "gave up after " + waitedMs + " ms, asked 100");
            // a was taken (it sorts first) and given back; c was never reached
            assertEquals(Set.of(heldKey), keys(pattern), "only the other holder's lock is left");
        }
        assertEquals(Set.of(), keys(pattern), "nothing is held after the holder closed");
        try (Locked all = b.tryLockAll(set("c", "a", "b", "a"), Duration.ofMillis(100)).orElseThrow()) {
            assertEquals(3, all.count(), "a key twice is one lock");
        }
        assertEquals(Set.of(), keys(pattern));
    }

    @Test
    void setNxTryLockAllGivesUpAndLeavesNothingHeld() {
        try (RedisSetNxLocker a = new RedisSetNxLocker(client, false, "t1:", Duration.ofSeconds(10));
             RedisSetNxLocker b = new RedisSetNxLocker(client, false, "t1:", Duration.ofSeconds(10))) {
            abortLeavesNothingHeld(a, b, "t1:*", "t1:b");
            assertTrue(b.retries() > 0, "the held key was tried again");
            assertEquals(0, a.lostLeases() + b.lostLeases());
        }
    }

    @Test
    void rlockTryLockAllGivesUpAndLeavesNothingHeld() throws Exception {
        try (RedissonLocker a = new RedissonLocker(client, false, "t2:");
             RedissonLocker b = new RedissonLocker(client, false, "t2:")) {
            // an RLock belongs to its thread: b runs on another one
            AtomicInteger failures = new AtomicInteger();
            Throwable[] thrown = new Throwable[1];
            try (Locked held = a.lockAll(set("b"))) {
                Thread other = Thread.ofPlatform().start(() -> {
                    try {
                        Optional<Locked> got = b.tryLockAll(set("c", "a", "b"), Duration.ofMillis(100));
                        if (got.isPresent()) {
                            failures.incrementAndGet();
                            got.get().close();
                        }
                        if (!keys("t2:*").equals(Set.of("t2:b"))) {
                            failures.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        thrown[0] = t;
                    }
                });
                other.join();
                assertEquals(1, held.count());
            }
            if (thrown[0] != null) {
                throw new AssertionError(thrown[0]);
            }
            assertEquals(0, failures.get(), "took a held set, or left a lock behind");
            assertEquals(Set.of(), keys("t2:*"));
        }
    }

    @Test
    void setNxExcludes() throws Exception {
        try (RedisSetNxLocker locker = new RedisSetNxLocker(client, false, "t3:", Duration.ofSeconds(10))) {
            int[] counter = new int[1];
            int threads = 4;
            int each = 150;
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                boolean flip = t % 2 == 0;
                ts.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < each; i++) {
                        // the same pair named in both orders: sorted, so no deadlock
                        try (Locked _ = locker.lockAll(flip ? set("x", "y") : set("y", "x"))) {
                            int v = counter[0];
                            Thread.onSpinWait();
                            counter[0] = v + 1;
                        }
                    }
                }));
            }
            for (Thread t : ts) {
                t.join(20_000);
            }
            assertEquals(threads * each, counter[0], "an update was lost under the lock");
            assertEquals(Set.of(), keys("t3:*"));
        }
    }
}
