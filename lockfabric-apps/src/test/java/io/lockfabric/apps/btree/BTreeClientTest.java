package io.lockfabric.apps.btree;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.local.LocalFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Split and scan cases of one client on the local fabric, with the structure check after each. */
class BTreeClientTest {
    private static final BTreeOptions SMALL = BTreeOptions.DEFAULTS.withFanout(4).withCapacity(4_096).withLocks(64);
    private LocalFabric fabric;
    private Endpoint endpoint;
    private int trees;

    @BeforeEach
    void open() {
        fabric = LocalFabric.builder().build();
        endpoint = fabric.newEndpoint();
    }

    @AfterEach
    void close() {
        endpoint.close();
        fabric.close();
    }

    private BTreeClient tree(BTreeOptions options) {
        return BTreeClient.open(endpoint, "t" + (++trees), options);
    }

    private static void assertHolds(BTreeClient c, TreeMap<Long, Long> expected) {
        BTreeCheck check = c.check();
        assertTrue(check.ok(), check.toString());
        List<Long> keys = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        for (int i = 0; i < check.keys().length; i++) {
            keys.add(check.keys()[i]);
            values.add(check.values()[i]);
        }
        assertEquals(new ArrayList<>(expected.keySet()), keys);
        assertEquals(new ArrayList<>(expected.values()), values);
        for (var e : expected.entrySet()) {
            assertEquals(OptionalLong.of(e.getValue()), c.search(e.getKey()), "search " + e.getKey());
        }
    }

    @Test
    void anEmptyTreeIsOneEmptyLeaf() {
        try (BTreeClient c = tree(SMALL)) {
            BTreeCheck check = c.check();
            assertTrue(check.ok(), check.toString());
            assertEquals(1, check.levels());
            assertEquals(0, check.keys().length);
            assertEquals(OptionalLong.empty(), c.search(5));
            assertFalse(c.update(5, 1), "update of an absent key inserts nothing");
            assertEquals(List.of(), c.scan(Long.MIN_VALUE + 1, Long.MAX_VALUE));
        }
    }

    @Test
    void ascendingInsertsSplitLeavesAndTheRootUpwardToFourLevels() {
        try (BTreeClient c = tree(SMALL)) {
            TreeMap<Long, Long> expected = new TreeMap<>();
            for (long k = 0; k < 200; k++) {
                c.put(k, k * 10);
                expected.put(k, k * 10);
            }
            assertHolds(c, expected);
            BTreeCheck check = c.check();
            assertTrue(check.levels() >= 4, "200 keys at fan-out 4 need at least 4 levels: " + check);
            assertTrue(c.rootSplits() >= 3, "the root split " + c.rootSplits() + " times");
        }
    }

    @Test
    void descendingAndRandomInsertsSplitOnTheLeftAndInTheMiddle() {
        try (BTreeClient down = tree(SMALL); BTreeClient random = tree(SMALL)) {
            TreeMap<Long, Long> expected = new TreeMap<>();
            for (long k = 300; k > 0; k--) {
                down.put(k, -k);
                expected.put(k, -k);
            }
            assertHolds(down, expected);
            TreeMap<Long, Long> shuffled = new TreeMap<>();
            SplittableRandom r = new SplittableRandom(7);
            for (int i = 0; i < 500; i++) {
                long k = r.nextLong(-1_000_000, 1_000_000);
                random.put(k, i);
                shuffled.put(k, (long) i);
            }
            assertHolds(random, shuffled);
            assertTrue(random.splits() > 100, "splits: " + random.splits());
        }
    }

    @Test
    void updatesAndMergesChangeValuesInPlaceWithoutSplitting() {
        try (BTreeClient c = tree(SMALL)) {
            for (long k = 0; k < 50; k++) {
                c.put(k, 0);
            }
            long splits = c.splits();
            for (int round = 0; round < 3; round++) {
                for (long k = 0; k < 50; k++) {
                    assertEquals(round + 1, c.merge(k, 99, v -> v + 1));
                }
            }
            assertTrue(c.update(7, 700));
            assertEquals(splits, c.splits(), "no new key, no split");
            TreeMap<Long, Long> expected = new TreeMap<>();
            for (long k = 0; k < 50; k++) {
                expected.put(k, k == 7 ? 700L : 3L);
            }
            assertHolds(c, expected);
            assertEquals(99, c.merge(1_000, 99, v -> v + 1), "an absent key is inserted with the given value");
        }
    }

    @Test
    void scansFollowSiblingsAcrossLeavesAndHonourTheirBounds() {
        try (BTreeClient c = tree(SMALL)) {
            for (long k = 0; k < 1_000; k += 2) {
                c.put(k, k + 1);
            }
            List<BTreeClient.Entry> all = c.scan(Long.MIN_VALUE + 1, Long.MAX_VALUE);
            assertEquals(500, all.size());
            List<BTreeClient.Entry> mid = c.scan(101, 121);
            assertEquals(List.of(102L, 104L, 106L, 108L, 110L, 112L, 114L, 116L, 118L, 120L),
                    mid.stream().map(BTreeClient.Entry::key).toList(), "[101, 121): from inclusive, to exclusive");
            assertEquals(103, mid.getFirst().value());
            assertEquals(List.of(new BTreeClient.Entry(998, 999)), c.scan(997, 5_000), "the last leaf");
            assertEquals(List.of(), c.scan(-50, 0), "below every key");
            assertEquals(List.of(), c.scan(50, 50), "an empty range");
            assertEquals(List.of(new BTreeClient.Entry(0, 1)), c.scan(Long.MIN_VALUE + 1, 1), "the first leaf");
        }
    }

    @Test
    void aBulkLoadBuildsAFullTreeThatSplitsFurtherOnInserts() {
        try (BTreeClient c = tree(BTreeOptions.DEFAULTS.withFanout(8).withCapacity(8_192).withLocks(128))) {
            long[] keys = new long[2_000];
            long[] values = new long[keys.length];
            TreeMap<Long, Long> expected = new TreeMap<>();
            for (int i = 0; i < keys.length; i++) {
                keys[i] = 3L * i;
                values[i] = i;
                expected.put(keys[i], values[i]);
            }
            c.load(keys, values);
            assertTrue(c.loaded());
            assertHolds(c, expected);
            assertTrue(c.check().levels() >= 4, c.check().toString());
            for (long k = 1; k < 3_000; k += 3) {
                c.put(k, -k);
                expected.put(k, -k);
            }
            assertHolds(c, expected);
            assertThrows(IllegalStateException.class, () -> c.load(new long[]{1}, new long[]{1}), "only an empty tree loads");
        }
    }

    @Test
    void aFullTreeAndBadInputAreClearErrors() {
        try (BTreeClient c = tree(SMALL.withCapacity(8))) {
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> {
                for (long k = 0; k < 1_000; k++) {
                    c.put(k, k);
                }
            });
            assertTrue(full.getMessage().contains("is full"), full.getMessage());
            assertThrows(IllegalArgumentException.class, () -> c.put(Long.MAX_VALUE, 1));
        }
        BTreeClient first = BTreeClient.open(endpoint, "shared", SMALL.withCapacity(34)); // 35 x 136 bytes
        first.close();
        assertThrows(TableMismatchException.class, () -> BTreeClient.open(endpoint, "shared", SMALL));
        IllegalArgumentException fanout = assertThrows(IllegalArgumentException.class, // 17 x 280 bytes: same table
                () -> BTreeClient.open(endpoint, "shared", SMALL.withFanout(13).withCapacity(16)));
        assertTrue(fanout.getMessage().contains("fan-out"), fanout.getMessage());
        IllegalArgumentException variant = assertThrows(IllegalArgumentException.class,
                () -> BTreeClient.open(endpoint, "other", SMALL.withLock("nope")));
        assertTrue(variant.getMessage().contains("unknown lock variant 'nope'"), variant.getMessage());
    }

    @Test
    void aTornNodeIsNotTaken() {
        BTreeLayout layout = new BTreeLayout(4);
        BTreeLayout.Node n = layout.newNode();
        n.index = 3;
        n.insertAt(0, 10, 20);
        byte[] bytes = layout.encode(n, 5);
        BTreeLayout.Node back = layout.newNode();
        assertTrue(layout.decode(bytes, 3, back));
        assertEquals(10, back.key(0));
        assertEquals(5, back.version());
        byte[] torn = bytes.clone();
        torn[torn.length - 8] = 6; // the rear version of a newer write
        assertFalse(layout.decode(torn, 3, back));
        byte[] changed = bytes.clone();
        changed[72] ^= 1; // a value of a newer write, versions of the older one
        assertFalse(layout.decode(changed, 3, back));
        assertFalse(layout.decode(new byte[layout.nodeBytes()], 3, back), "a node never written");
    }
}
