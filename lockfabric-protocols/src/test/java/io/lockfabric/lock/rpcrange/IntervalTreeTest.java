package io.lockfabric.lock.rpcrange;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The interval tree against a brute-force list, under random inserts, removes and queries. */
class IntervalTreeTest {
    private static boolean overlaps(IntervalTree.Interval i, long s, long t) {
        return i.start() < t && s < i.end();
    }

    @Test
    void randomOperationsMatchABruteForceList() {
        for (long seed = 1; seed <= 20; seed++) {
            var rnd = new SplittableRandom(seed);
            var tree = new IntervalTree();
            List<IntervalTree.Interval> list = new ArrayList<>();
            long space = seed % 2 == 0 ? 100 : 10_000; // small space: many equal starts and overlaps
            long nextId = 0;
            for (int op = 0; op < 3_000; op++) {
                int kind = rnd.nextInt(10);
                if (kind < 4 || list.isEmpty()) {
                    long s = rnd.nextLong(space);
                    long e = s + 1 + rnd.nextLong(space / 10);
                    long id = nextId++;
                    tree.insert(s, e, id);
                    list.add(new IntervalTree.Interval(s, e, id));
                } else if (kind < 7) {
                    var victim = list.remove(rnd.nextInt(list.size()));
                    assertTrue(tree.remove(victim.start(), victim.id()));
                    assertFalse(tree.remove(victim.start(), victim.id()), "a second remove finds nothing");
                } else {
                    long s = rnd.nextLong(space);
                    long t = s + 1 + rnd.nextLong(space / 5);
                    List<IntervalTree.Interval> expected = list.stream().filter(i -> overlaps(i, s, t))
                            .sorted(Comparator.comparingLong(IntervalTree.Interval::start)
                                    .thenComparingLong(IntervalTree.Interval::id))
                            .toList();
                    assertEquals(expected, tree.overlapping(s, t), "seed " + seed + " op " + op);
                    var any = tree.anyOverlap(s, t);
                    if (expected.isEmpty()) {
                        assertNull(any);
                    } else {
                        assertNotNull(any);
                        assertTrue(expected.contains(any), any + " is one of " + expected);
                    }
                }
                assertEquals(list.size(), tree.size());
            }
            var all = new ArrayList<>(list);
            all.sort(Comparator.comparingLong(IntervalTree.Interval::start).thenComparingLong(IntervalTree.Interval::id));
            assertEquals(all, tree.all());
        }
    }

    @Test
    void boundariesAreHalfOpen() {
        var tree = new IntervalTree();
        tree.insert(10, 20, 1);
        assertNull(tree.anyOverlap(0, 10));
        assertNull(tree.anyOverlap(20, 30));
        assertNotNull(tree.anyOverlap(19, 20));
        assertNotNull(tree.anyOverlap(0, 11));
        assertNotNull(tree.anyOverlap(12, 13));
    }

    @Test
    void badInputIsRefused() {
        var tree = new IntervalTree();
        assertThrows(IllegalArgumentException.class, () -> tree.insert(5, 5, 1));
        tree.insert(5, 6, 1);
        assertThrows(IllegalArgumentException.class, () -> tree.insert(5, 9, 1), "duplicate key");
        assertEquals(1, tree.size());
        assertFalse(tree.remove(5, 2));
    }

    @Test
    void manyInsertsStayShallowEnoughForRecursion() {
        var tree = new IntervalTree();
        for (int i = 0; i < 200_000; i++) {
            tree.insert(i, i + 1, i); // sorted inserts: a plain BST would degenerate
        }
        assertEquals(1, tree.overlapping(1000, 1001).size());
        for (int i = 0; i < 200_000; i += 2) {
            assertTrue(tree.remove(i, i));
        }
        assertNull(tree.anyOverlap(1000, 1001));
        assertEquals(100_000, tree.size());
    }
}
