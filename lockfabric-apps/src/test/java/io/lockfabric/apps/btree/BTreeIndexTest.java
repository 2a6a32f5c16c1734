package io.lockfabric.apps.btree;

import io.lockfabric.LockFabric;
import io.lockfabric.net.TcpMemoryNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The facade on the client API: threads share one index through the pool, on local and on tcp. */
@Tag("contract")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BTreeIndexTest {
    private static void exercise(LockFabric lf, String variant) throws InterruptedException {
        BTreeIndex index = BTreeIndex.open(lf, "orders-" + variant, BTreeOptions.DEFAULTS.withLock(variant).withFanout(8)
                .forKeys(10_000).withLockOptions(BTreeStressTest.longLease(variant)));
        index.put(42, 7);
        assertEquals(8, index.merge(42, 1, v -> v + 1));
        assertEquals(OptionalLong.of(8), index.search(42));
        assertEquals(OptionalLong.empty(), index.search(43));
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int me = t;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 100; i++) {
                    index.merge(1_000 + i, 1, v -> v + 1);   // every thread: the same 100 keys
                    index.put(10_000 + me * 100 + i, me);   // and 100 of its own
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        List<BTreeClient.Entry> shared = index.scan(1_000, 1_100);
        assertEquals(100, shared.size());
        assertTrue(shared.stream().allMatch(e -> e.value() == 4), "four increments per key: " + shared);
        assertEquals(400, index.scan(10_000, 20_000).size());
        BTreeCheck check = index.check();
        assertTrue(check.ok(), check.toString());
        assertEquals(501, check.keys().length);
    }

    @Test
    void threadsShareAnIndexOnTheLocalFabric() throws InterruptedException {
        try (LockFabric lf = LockFabric.open("local")) {
            exercise(lf, "sherman");
            exercise(lf, "declock");
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                    () -> BTreeIndex.open(lf, "x", BTreeOptions.DEFAULTS.withLock("sherman-x")));
            assertTrue(bad.getMessage().contains("unknown lock variant"), bad.getMessage());
            assertThrows(IllegalArgumentException.class, () -> BTreeIndex.open(lf, "bad name", BTreeOptions.DEFAULTS));
        }
    }

    @Test
    void threadsShareAnIndexOverTcp() throws InterruptedException {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
        try (LockFabric lf = LockFabric.builder(server.uri()).poolSize(4).open()) {
            exercise(lf, "sherman");
            exercise(lf, "sherman-nh");
        } finally {
            server.close();
        }
    }
}
