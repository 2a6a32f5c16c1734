package io.lockfabric.lock.rpcrange;

import io.lockfabric.lock.rpcrange.RangeBTree.Segment;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The B-tree of disjoint counted ranges against a per-point reference model. */
class RangeBTreeTest {
    @Test
    void splitsAtBordersCountsReadersAndDropsZeroes() {
        var t = new RangeBTree();
        t.adjust(0, 10, 1, 0);
        t.adjust(5, 15, 1, 0);
        assertEquals(List.of(new Segment(0, 5, 1, 0), new Segment(5, 10, 2, 0), new Segment(10, 15, 1, 0)), t.all());
        assertFalse(t.conflicts(3, 12, false), "readers overlap readers");
        assertTrue(t.conflicts(14, 20, true), "a writer conflicts with any overlap");
        assertFalse(t.conflicts(15, 20, true), "half-open");
        t.adjust(0, 10, -1, 0);
        assertEquals(List.of(new Segment(5, 10, 1, 0), new Segment(10, 15, 1, 0)), t.all());
        t.adjust(20, 30, 0, 1);
        assertTrue(t.conflicts(25, 26, false), "a reader conflicts with a writer");
        assertThrows(IllegalArgumentException.class, () -> t.adjust(0, 5, -1, 0), "nothing stored there");
        assertThrows(IllegalArgumentException.class, () -> t.adjust(5, 5, 1, 0));
        t.adjust(5, 15, -1, 0);
        t.adjust(20, 30, 0, -1);
        assertTrue(t.isEmpty());
    }

    /** Random adjustments of many small ranges: splits and empties nodes on every level. */
    @Test
    void randomAdjustmentsMatchAPointModel() {
        var rnd = new Random(7);
        int span = 3_000;
        int[] readers = new int[span];
        int[] writers = new int[span];
        var t = new RangeBTree();
        List<long[]> live = new ArrayList<>();
        int maxHeight = 0;
        for (int step = 0; step < 8_000; step++) {
            boolean add = live.isEmpty() || (live.size() < 500 && rnd.nextInt(10) < 6);
            if (add) {
                long s = rnd.nextInt(span - 1);
                long e = Math.min(span, s + 1 + rnd.nextInt(rnd.nextBoolean() ? 3 : 40));
                boolean x = rnd.nextInt(4) == 0;
                t.adjust(s, e, x ? 0 : 1, x ? 1 : 0);
                for (long p = s; p < e; p++) {
                    if (x) {
                        writers[(int) p]++;
                    } else {
                        readers[(int) p]++;
                    }
                }
                live.add(new long[] {s, e, x ? 1 : 0});
            } else {
                long[] r = live.remove(rnd.nextInt(live.size()));
                boolean x = r[2] == 1;
                t.adjust(r[0], r[1], x ? 0 : -1, x ? -1 : 0);
                for (long p = r[0]; p < r[1]; p++) {
                    if (x) {
                        writers[(int) p]--;
                    } else {
                        readers[(int) p]--;
                    }
                }
            }
            maxHeight = Math.max(maxHeight, t.height());
            if (step % 199 == 0 || live.isEmpty()) {
                check(t, readers, writers, rnd);
            }
        }
        assertTrue(maxHeight >= 3, "the test reached three levels: " + maxHeight);
        for (long[] r : live) {
            boolean x = r[2] == 1;
            t.adjust(r[0], r[1], x ? 0 : -1, x ? -1 : 0);
        }
        assertTrue(t.isEmpty());
        assertEquals(1, t.height());
    }

    private static void check(RangeBTree t, int[] readers, int[] writers, Random rnd) {
        int[] r = new int[readers.length];
        int[] w = new int[writers.length];
        long prevEnd = Long.MIN_VALUE;
        for (Segment g : t.all()) {
            assertTrue(g.start() >= prevEnd, "disjoint and sorted: " + g);
            assertTrue(g.readers() > 0 || g.writers() > 0, "no empty segment: " + g);
            prevEnd = g.end();
            for (long p = g.start(); p < g.end(); p++) {
                r[(int) p] += g.readers();
                w[(int) p] += g.writers();
            }
        }
        assertEquals(java.util.Arrays.toString(readers), java.util.Arrays.toString(r));
        assertEquals(java.util.Arrays.toString(writers), java.util.Arrays.toString(w));
        for (int q = 0; q < 50; q++) {
            int s = rnd.nextInt(readers.length - 1);
            int e = Math.min(readers.length, s + 1 + rnd.nextInt(60));
            boolean anyW = false;
            boolean any = false;
            for (int p = s; p < e; p++) {
                anyW |= writers[p] > 0;
                any |= writers[p] > 0 || readers[p] > 0;
            }
            assertEquals(anyW, t.conflicts(s, e, false), "shared [" + s + ", " + e + ")");
            assertEquals(any, t.conflicts(s, e, true), "exclusive [" + s + ", " + e + ")");
        }
    }
}
