package io.lockfabric.lock.lld;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lld list's sequential semantics: which requests it grants and what the list in memory looks like. */
class LldListTest {
    private static final LldProtocol LLD = new LldProtocol();

    private record Setup(LocalFabric fabric, List<LldClient> clients, Endpoint inspector, Table table) implements AutoCloseable {
        List<long[]> list() {
            return LldClient.snapshot(inspector.queuePair(table.memoryNode()), table);
        }

        @Override
        public void close() {
            fabric.close();
        }
    }

    private static Setup setup(int clients, String... options) {
        LocalFabric fabric = LocalFabric.builder().build();
        LockOptions opts = LockOptions.parse(List.of(options));
        List<LldClient> cs = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            cs.add((LldClient) LLD.open(fabric.newEndpoint(), "l", opts));
        }
        Endpoint inspector = fabric.newEndpoint();
        return new Setup(fabric, cs, inspector, inspector.openTable(LLD.tableSpec("l", opts)));
    }

    /** {start, end, marked} of each entry, head first. */
    private static List<List<Long>> ranges(List<long[]> list) {
        return list.stream().map(e -> List.of(e[1], e[2], e[3])).toList();
    }

    @Test
    void grantsDisjointRangesKeepsThemSortedAndUnlinksReleasedOnes() {
        try (Setup s = setup(2)) {
            LldClient a = s.clients().get(0);
            LldClient b = s.clients().get(1);
            RangeGrant a1 = a.acquire(10, 20, Mode.EXCLUSIVE);
            assertNull(b.tryAcquire(15, 25), "overlaps [10, 20)");
            assertNull(b.tryAcquire(19, 20), "overlaps its last unit");
            RangeGrant b1 = b.tryAcquire(0, 10);
            RangeGrant b2 = b.tryAcquire(20, 30);
            assertNotNull(b1);
            assertNotNull(b2);
            assertEquals(List.of(List.of(0L, 10L, 0L), List.of(10L, 20L, 0L), List.of(20L, 30L, 0L)), ranges(s.list()));
            a.release(a1);
            assertEquals(List.of(0L, 10L, 0L), ranges(s.list()).get(0));
            assertEquals(List.of(10L, 20L, 1L), ranges(s.list()).get(1), "release only marks");
            RangeGrant a2 = a.tryAcquire(12, 18);
            assertNotNull(a2, "a released range no longer conflicts");
            assertEquals(List.of(List.of(0L, 10L, 0L), List.of(12L, 18L, 0L), List.of(20L, 30L, 0L)), ranges(s.list()),
                    "the walk unlinked the marked entry");
            assertEquals(Mode.EXCLUSIVE, b.acquire(40, 50, Mode.SHARED).mode(), "exclusive only");
            assertThrows(IllegalArgumentException.class, () -> a.release(a1), "second release");
            assertThrows(IllegalArgumentException.class, () -> a.release(b1), "someone else's grant");
            assertThrows(IllegalArgumentException.class, () -> a.acquire(5, 5, Mode.EXCLUSIVE));
            assertThrows(IllegalArgumentException.class, () -> a.acquire(-1, 5, Mode.EXCLUSIVE));
        }
    }

    @Test
    void randomSequentialOperationsMatchAModel() {
        int clients = 3;
        int pool = 3;
        try (Setup s = setup(clients, "pool=" + pool, "max-clients=8")) {
            var rnd = new SplittableRandom(7);
            List<List<RangeGrant>> held = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                held.add(new ArrayList<>());
            }
            for (int op = 0; op < 2_000; op++) {
                int c = rnd.nextInt(clients);
                LldClient client = s.clients().get(c);
                List<RangeGrant> mine = held.get(c);
                if (!mine.isEmpty() && (mine.size() == pool || rnd.nextBoolean())) {
                    client.release(mine.remove(rnd.nextInt(mine.size())));
                } else {
                    long start = rnd.nextLong(1_000);
                    long end = start + 1 + rnd.nextLong(60);
                    boolean free = held.stream().flatMap(List::stream)
                            .noneMatch(g -> g.start() < end && start < g.end());
                    RangeGrant g = client.tryAcquire(start, end);
                    assertEquals(free, g != null, "op " + op + ": [" + start + ", " + end + ")");
                    if (g != null) {
                        assertEquals(start, g.start());
                        assertEquals(end, g.end());
                        mine.add(g);
                    }
                }
                List<long[]> list = s.list();
                List<List<Long>> live = list.stream().filter(e -> e[3] == 0).map(e -> List.of(e[1], e[2])).toList();
                List<List<Long>> expected = held.stream().flatMap(List::stream)
                        .sorted(Comparator.comparingLong(RangeGrant::start)).map(g -> List.of(g.start(), g.end())).toList();
                assertEquals(expected, live, "op " + op + ": unmarked entries are exactly the held ranges");
                for (int i = 1; i < list.size(); i++) {
                    assertTrue(list.get(i - 1)[1] < list.get(i)[1], "sorted by start");
                }
                assertTrue(list.size() <= clients * pool, "at most one entry per pool slot is linked");
            }
        }
    }

    @Test
    void aClientRecyclesItsPoolForever() {
        try (Setup s = setup(1, "pool=1")) {
            LldClient a = s.clients().getFirst();
            for (int i = 0; i < 1_000; i++) {
                a.release(a.acquire(i, i + 3, Mode.EXCLUSIVE));
            }
            assertEquals(1, s.list().size());
            RangeGrant g = a.acquire(0, 1, Mode.EXCLUSIVE);
            assertThrows(LockUnavailableException.class, () -> a.acquire(5, 6, Mode.EXCLUSIVE), "pool of one, one held");
            a.release(g);
        }
    }

    @Test
    void entriesUnlinkedByOthersComeBackThroughTheFreeBit() {
        try (Setup s = setup(2, "pool=2")) {
            LldClient a = s.clients().get(0);
            LldClient b = s.clients().get(1);
            a.release(a.acquire(10, 20, Mode.EXCLUSIVE));
            a.release(a.acquire(30, 40, Mode.EXCLUSIVE));
            b.release(b.acquire(50, 60, Mode.EXCLUSIVE)); // b's walk unlinks both of a's entries
            assertEquals(1, s.list().size());
            for (int i = 0; i < 10; i++) {
                a.release(a.acquire(100 + i, 101 + i, Mode.EXCLUSIVE));
            }
            assertTrue(s.list().size() <= 3);
        }
    }

    /**
     * ABA: a walker has decided to insert [20, 30) after entry P = [0, 10); before its CAS lands, P
     * is released, unlinked by another client and reused by its owner for [15, 35), again just in
     * front of the same successor. P's link word differs from what the walker read only in its own
     * gen; the walker's CAS must fail, and its retry must see the conflict.
     */
    @Test
    void aStaleInsertionAfterARecycledEntryFails() {
        try (Setup s = setup(4, "pool=1")) {
            LldClient owner = s.clients().get(0);
            LldClient walker = s.clients().get(1);
            LldClient other = s.clients().get(2);
            LldClient right = s.clients().get(3);
            RangeGrant p = owner.acquire(0, 10, Mode.EXCLUSIVE);
            right.acquire(50, 60, Mode.EXCLUSIVE);
            RangeGrant[] recycled = new RangeGrant[1];
            walker.onceBeforeLinkCas(() -> {
                owner.release(p);
                assertNotNull(other.tryAcquire(100, 110), "its walk unlinks P and hands it back (FREE)");
                recycled[0] = owner.acquire(15, 35, Mode.EXCLUSIVE);
            });
            assertNull(walker.tryAcquire(20, 30), "the recycled entry now overlaps the request");
            assertEquals(List.of(15L, 35L), List.of(recycled[0].start(), recycled[0].end()));
            assertEquals(List.of(List.of(15L, 35L, 0L), List.of(50L, 60L, 0L), List.of(100L, 110L, 0L)),
                    ranges(s.list()));
            assertTrue(walker.stats().retries() >= 1, "the stale CAS failed and the walk restarted");
        }
    }

    @Test
    void aFullTableAndBadOptionsAreRefused() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            LockOptions two = LockOptions.parse(List.of("max-clients=2"));
            LLD.open(fabric.newEndpoint(), "t", two);
            LLD.open(fabric.newEndpoint(), "t", two);
            assertThrows(LockUnavailableException.class, () -> LLD.open(fabric.newEndpoint(), "t", two));
            assertThrows(IllegalArgumentException.class,
                    () -> LLD.open(fabric.newEndpoint(), "u", LockOptions.parse(List.of("pool=0"))));
            assertThrows(IllegalArgumentException.class,
                    () -> LLD.open(fabric.newEndpoint(), "v", LockOptions.parse(List.of("max-clients=1000000"))));
            assertThrows(IllegalArgumentException.class,
                    () -> LLD.open(fabric.newEndpoint(), "w", LockOptions.parse(List.of("units=5"))));
        }
    }
}
