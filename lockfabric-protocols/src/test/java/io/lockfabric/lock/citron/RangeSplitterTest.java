package io.lockfabric.lock.citron;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Step 1 is optimal: its waste equals a brute force over every set of at most k nodes. */
class RangeSplitterTest {
    private static final long INFEASIBLE = Long.MAX_VALUE;

    /** Units a node locks for [l, r): a leaf only the requested bits, an internal node its range. */
    private static BitSet coverage(CitronLayout t, long x, long l, long r) {
        BitSet b = new BitSet();
        long s = t.rangeStart(x);
        long e = t.rangeEnd(x);
        if (t.isLeaf(x)) {
            b.set((int) Math.max(s, l), (int) Math.min(e, r));
        } else {
            b.set((int) s, (int) e);
        }
        return b;
    }

    /** Waste of the best cover by at most k nodes, by enumerating every node set. */
    private static long bruteForce(CitronLayout t, long l, long r, int k) {
        List<Long> candidates = new ArrayList<>();
        for (long x = 1; x <= t.nodes(); x++) {
            if (t.rangeStart(x) < r && l < t.rangeEnd(x)) {
                candidates.add(x);
            }
        }
        return search(t, l, r, k, candidates, 0, new BitSet());
    }

    private static long search(CitronLayout t, long l, long r, int left, List<Long> cands, int from, BitSet covered) {
        long best = INFEASIBLE;
        if (covered.nextClearBit((int) l) >= r) {
            best = covered.cardinality() - (r - l);
        }
        if (left == 0) {
            return best;
        }
        for (int i = from; i < cands.size(); i++) {
            BitSet next = (BitSet) covered.clone();
            next.or(coverage(t, cands.get(i), l, r));
            best = Math.min(best, search(t, l, r, left - 1, cands, i + 1, next));
        }
        return best;
    }

    private static void checkValid(CitronLayout t, long l, long r, int k, RangeSplitter.Split s) {
        assertTrue(s.nodes().length >= 1 && s.nodes().length <= k, "node count " + s);
        BitSet covered = new BitSet();
        long prevEnd = -1;
        for (long x : s.nodes()) {
            assertTrue(t.rangeStart(x) >= prevEnd, "ascending and disjoint: " + s);
            prevEnd = t.rangeEnd(x);
            covered.or(coverage(t, x, l, r));
        }
        assertTrue(covered.nextClearBit((int) l) >= r, "covers [" + l + ", " + r + "): " + s);
        assertEquals(covered.cardinality() - (r - l), s.waste(), "reported waste of " + s);
    }

    @Test
    void optimalAgainstBruteForceOnSmallTrees() {
        var t = new CitronLayout(1024); // 3 levels, 21 nodes
        var splitter = new RangeSplitter(t);
        var rnd = new SplittableRandom(7);
        for (int i = 0; i < 1500; i++) {
            long l = rnd.nextLong(t.units());
            long r = l + 1 + rnd.nextLong(t.units() - l);
            int k = 1 + rnd.nextInt(3);
            var s = splitter.split(l, r, k);
            checkValid(t, l, r, k, s);
            assertEquals(bruteForce(t, l, r, k), s.waste(), "[" + l + ", " + r + ") k=" + k + ": " + s);
        }
    }

    @Test
    void optimalAgainstBruteForceOnADeeperTreeWithK2() {
        var t = new CitronLayout(4096); // 4 levels, 85 nodes
        var splitter = new RangeSplitter(t);
        var rnd = new SplittableRandom(11);
        for (int i = 0; i < 300; i++) {
            long l = rnd.nextLong(t.units());
            long r = Math.min(t.units(), l + 1 + rnd.nextLong(1 + rnd.nextLong(t.units())));
            var s = splitter.split(l, r, 2);
            checkValid(t, l, r, 2, s);
            assertEquals(bruteForce(t, l, r, 2), s.waste(), "[" + l + ", " + r + "): " + s);
        }
    }

    @Test
    void smallRangesAreAlwaysLeavesWithKTwo() {
        var t = new CitronLayout(1L << 28);
        var splitter = new RangeSplitter(t);
        var rnd = new SplittableRandom(3);
        for (int i = 0; i < 10_000; i++) {
            long len = 1 + rnd.nextLong(64);
            long l = rnd.nextLong(t.units() - len);
            var s = splitter.split(l, l + len, 2);
            assertEquals(0, s.waste());
            for (long x : s.nodes()) {
                assertTrue(t.isLeaf(x));
            }
        }
    }

    @Test
    void paperExampleAcrossTheMiddleIsNotTheRoot() {
        var t = new CitronLayout(1L << 28);
        long half = t.units() / 2;
        var one = new RangeSplitter(t).split(half - 1, half + 1, 1);
        assertArrayEquals(new long[] {CitronLayout.ROOT}, one.nodes(), "k = 1: the lowest covering node");
        var two = new RangeSplitter(t).split(half - 1, half + 1, 2);
        assertEquals(0, two.waste());
        assertEquals(2, two.nodes().length);
    }

    @Test
    void badInputIsRejected() {
        var s = new RangeSplitter(new CitronLayout(256));
        assertThrows(IllegalArgumentException.class, () -> s.split(5, 5, 2));
        assertThrows(IllegalArgumentException.class, () -> s.split(0, 257, 2));
        assertThrows(IllegalArgumentException.class, () -> s.split(0, 10, 0));
    }
}
