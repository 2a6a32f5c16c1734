package io.lockfabric.bench.range;

import io.lockfabric.lock.citron.CitronLayout;
import io.lockfabric.lock.citron.RangeSplitter;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * CITRON's false-conflict rate (FAST'23 §4.6, Figure 11): two concurrent exclusive requests of
 * size L, left borders independent and uniform over [0, N − L], falsely conflict if their ranges
 * are disjoint but the nodes Step 1 ({@link RangeSplitter}, at most k nodes each) chose conflict:
 * one request's node is the other's node or an ancestor of it. Two leaves conflict only when they
 * are the same leaf with overlapping bits (masked CAS), which disjoint ranges never have. The rate
 * is the probability that a request suffers a false conflict with the other one (the share of
 * requests, as the paper counts). Pure computation, no fabric.
 *
 * <p>Method. Let E(a) be request a's waste: the units covered by its internal nodes but not
 * requested. Nodes of a segment tree are nested or disjoint, so for disjoint ranges a and b
 * conflict iff b's range meets E(a) or a's range meets E(b) (a unit of b in an internal node x of
 * a lies in a node of b that is x, inside x or above x). With A1(a) = {b : R_b ∩ E(a) ≠ ∅,
 * disjoint} and A2(a) likewise the other way, the number of falsely conflicting ordered pairs is
 * 2·Σ|A1(a)| − Σ|A1(a) ∩ A2(a)| by symmetry. A1(a) is empty unless a's lowest covering node x*(a) is
 * internal, i.e. unless a straddles a child boundary of x*(a): those a are grouped in strata by the
 * level of x*(a). |A1(a)| is interval arithmetic; A1(a) ∩ A2(a) is counted over the only b whose
 * waste can reach a (b straddling a child boundary of an internal node that meets a's range).
 * Splits depend only on (level of x*, offset in it), so they are cached. A stratum no larger than
 * the budget is enumerated, which makes the result exact (checked against brute force over all
 * pairs on small trees); a larger one is sampled without bias: every offset class of the stratum at
 * {@code budget / classes} random nodes if there are at most {@code budget} classes, else
 * {@code budget} uniform draws of (offset class, node). Not thread-safe (the split cache).
 */
public final class FalseConflicts {
    /** The rate and how it was obtained. */
    public record Rate(long units, long size, int k, double rate, boolean exact, long evaluated) {
    }

    private final CitronLayout tree;
    private final RangeSplitter splitter;
    private final long size;
    private final int k;
    /** M: the number of left borders, N − L + 1. */
    private final long borders;
    private final Map<Long, long[]> wasteCache = new HashMap<>();

    /**
     * @throws IllegalArgumentException unless N is a citron tree size, 1 ≤ L ≤ N and 1 ≤ k ≤ 64
     */
    public FalseConflicts(long units, long size, int k) {
        this.tree = new CitronLayout(units);
        if (tree.levels() < 2) {
            throw new IllegalArgumentException("false conflicts need a tree with internal nodes (N >= 256), got " + units);
        }
        if (size < 1 || size > units) {
            throw new IllegalArgumentException("range size L must be in [1, N], got " + size);
        }
        if (k < 1 || k > 64) {
            throw new IllegalArgumentException("k must be in [1, 64], got " + k);
        }
        this.splitter = new RangeSplitter(tree);
        this.size = size;
        this.k = k;
        this.borders = units - size + 1;
    }

    /** By definition, from the nodes Step 1 picks: do requests at left borders a and b falsely conflict? */
    public boolean falseConflict(long a, long b) {
        return falseConflict(a, splitter.split(a, a + size, k).nodes(), b, splitter.split(b, b + size, k).nodes());
    }

    private boolean falseConflict(long a, long[] x, long b, long[] y) {
        if (a < b + size && b < a + size) {
            return false; // they overlap: a true conflict
        }
        for (long p : x) {
            for (long q : y) {
                if (p == q && tree.isLeaf(p)) {
                    continue; // one leaf, disjoint bits: masked CAS lets both in
                }
                if (tree.covers(p, q) || tree.covers(q, p)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** By brute force over all M² ordered pairs: for small trees and tests only. */
    public long bruteForcePairs() {
        long[][] splits = new long[Math.toIntExact(borders)][];
        for (int a = 0; a < splits.length; a++) {
            splits[a] = splitter.split(a, a + size, k).nodes();
        }
        long count = 0;
        for (int a = 0; a < splits.length; a++) {
            for (int b = 0; b < splits.length; b++) {
                if (falseConflict(a, splits[a], b, splits[b])) {
                    count++;
                }
            }
        }
        return count;
    }

    /** The rate, exact if every stratum has at most {@code budget} left borders, else estimated. */
    public Rate rate(int budget, long seed) {
        if (budget < 1) {
            throw new IllegalArgumentException("budget must be >= 1, got " + budget);
        }
        SplittableRandom random = new SplittableRandom(seed);
        double pairs = 0;
        boolean exact = true;
        long evaluated = 0;
        for (int d = 0; d < tree.leafLevel(); d++) {
            long[] offsets = straddlingOffsets(d);
            if (offsets.length == 0) {
                continue;
            }
            long nodes = CitronLayout.levelWidth(d);
            long stratum = nodes * offsets.length;
            double sum = 0;
            long n = 0;
            if (stratum <= budget) {
                for (long node = 0; node < nodes; node++) {
                    for (long o : offsets) {
                        sum += contribution(node * tree.span(d) + o);
                        n++;
                    }
                }
            } else if (offsets.length <= budget) {
                exact = false;
                long reps = Math.max(1, budget / offsets.length);
                for (long o : offsets) {
                    for (long r = 0; r < reps; r++) {
                        sum += contribution(random.nextLong(nodes) * tree.span(d) + o);
                        n++;
                    }
                }
            } else {
                exact = false;
                for (int i = 0; i < budget; i++) {
                    long o = offsets[random.nextInt(offsets.length)];
                    sum += contribution(random.nextLong(nodes) * tree.span(d) + o);
                    n++;
                }
            }
            evaluated += n;
            pairs += sum / n * stratum;
        }
        double rate = pairs / ((double) borders * borders);
        return new Rate(tree.units(), size, k, rate, exact, evaluated);
    }

    /** The exact number of falsely conflicting ordered pairs (every stratum enumerated). */
    public long exactPairs() {
        long pairs = 0;
        for (int d = 0; d < tree.leafLevel(); d++) {
            long[] offsets = straddlingOffsets(d);
            for (long node = 0; node < CitronLayout.levelWidth(d); node++) {
                for (long o : offsets) {
                    pairs += contribution(node * tree.span(d) + o);
                }
            }
        }
        return pairs;
    }

    /** 2·|A1(a)| − |A1(a) ∩ A2(a)|. */
    private long contribution(long a) {
        long[] waste = waste(a);
        long[] hit = hitBorders(waste, a);
        long a1 = measure(hit);
        if (a1 == 0) {
            return 0;
        }
        long both = 0;
        long[] reach = intersect(candidateWindows(a), hit);
        for (int i = 0; i < reach.length; i += 2) {
            for (long b = reach[i]; b < reach[i + 1]; b++) {
                if (meets(waste(b), a, a + size)) {
                    both++;
                }
            }
        }
        return 2 * a1 - both;
    }

    /**
     * Offsets o in a level-d node such that [o, o + L) lies in the node and straddles one of its
     * child boundaries (so the node is the range's lowest covering node), ascending.
     */
    private long[] straddlingOffsets(int d) {
        long span = tree.span(d);
        long quarter = span / CitronLayout.FANOUT;
        if (size > span || size < 2) {
            return new long[0];
        }
        TreeSet<Long> offsets = new TreeSet<>();
        for (int i = 1; i < CitronLayout.FANOUT; i++) {
            long boundary = i * quarter;
            for (long o = Math.max(0, boundary - size + 1); o < boundary && o + size <= span; o++) {
                offsets.add(o);
            }
        }
        return offsets.stream().mapToLong(Long::longValue).toArray();
    }

    /** The level of the lowest node covering [a, a + L). */
    private int lowestLevel(long a) {
        int d = tree.leafLevel();
        while (d > 0 && a / tree.span(d) != (a + size - 1) / tree.span(d)) {
            d--;
        }
        return d;
    }

    /** E(a) as sorted disjoint intervals {s0, e0, s1, e1, ...}; cached by (level of x*, offset). */
    private long[] waste(long a) {
        int d = lowestLevel(a);
        if (d == tree.leafLevel()) {
            return new long[0];
        }
        long base = a / tree.span(d) * tree.span(d);
        long key = ((long) d << 48) | (a - base);
        long[] rel = wasteCache.get(key);
        if (rel == null) {
            rel = relativeWaste(a, base);
            wasteCache.put(key, rel);
        }
        long[] out = new long[rel.length];
        for (int i = 0; i < rel.length; i++) {
            out[i] = rel[i] + base;
        }
        return out;
    }

    private long[] relativeWaste(long a, long base) {
        long[] nodes = splitter.split(a, a + size, k).nodes();
        long[] out = new long[4 * nodes.length];
        int n = 0;
        for (long x : nodes) {
            if (tree.isLeaf(x)) {
                continue;
            }
            long s = tree.rangeStart(x);
            long e = tree.rangeEnd(x);
            if (s < a) {
                out[n++] = s - base;
                out[n++] = Math.min(e, a) - base;
            }
            if (e > a + size) {
                out[n++] = Math.max(s, a + size) - base;
                out[n++] = e - base;
            }
        }
        long[] w = Arrays.copyOf(out, n);
        sortIntervals(w);
        return w;
    }

    /** Left borders b in [0, M) whose range meets one of the intervals and not [a, a + L): sorted, merged. */
    private long[] hitBorders(long[] intervals, long a) {
        long[] raw = new long[intervals.length];
        for (int i = 0; i < intervals.length; i += 2) {
            raw[i] = Math.max(0, intervals[i] - size + 1);
            raw[i + 1] = Math.min(borders, intervals[i + 1]);
        }
        sortIntervals(raw);
        long[] merged = merge(raw);
        // remove the borders whose range overlaps [a, a + L): (a − L, a + L)
        return subtract(merged, Math.max(0, a - size + 1), Math.min(borders, a + size));
    }

    /**
     * Every left border b whose lowest covering node may be internal and meet [a, a + L): b
     * straddles a child boundary of an internal node that meets [a, a + L). Sorted merged
     * intervals within [0, M).
     */
    private long[] candidateWindows(long a) {
        long[] raw = new long[64];
        int n = 0;
        for (int d = 0; d < tree.leafLevel(); d++) {
            long span = tree.span(d);
            long quarter = span / CitronLayout.FANOUT;
            for (long node = a / span; node <= (a + size - 1) / span; node++) {
                for (int i = 1; i < CitronLayout.FANOUT; i++) {
                    long c = node * span + i * quarter;
                    if (n + 2 > raw.length) {
                        raw = Arrays.copyOf(raw, 2 * raw.length);
                    }
                    raw[n++] = Math.max(0, c - size + 1);
                    raw[n++] = Math.min(borders, c);
                }
            }
        }
        long[] w = Arrays.copyOf(raw, n);
        sortIntervals(w);
        return merge(w);
    }

    /** The intersection of two sorted lists of disjoint intervals. */
    private static long[] intersect(long[] x, long[] y) {
        long[] out = new long[x.length + y.length];
        int n = 0;
        int i = 0;
        int j = 0;
        while (i < x.length && j < y.length) {
            long s = Math.max(x[i], y[j]);
            long e = Math.min(x[i + 1], y[j + 1]);
            if (s < e) {
                out[n++] = s;
                out[n++] = e;
            }
            if (x[i + 1] < y[j + 1]) {
                i += 2;
            } else {
                j += 2;
            }
        }
        return Arrays.copyOf(out, n);
    }

    private static boolean meets(long[] intervals, long l, long r) {
        for (int i = 0; i < intervals.length; i += 2) {
            if (intervals[i] < r && l < intervals[i + 1]) {
                return true;
            }
        }
        return false;
    }

    private static boolean contains(long[] intervals, long x) {
        for (int i = 0; i < intervals.length; i += 2) {
            if (intervals[i] <= x && x < intervals[i + 1]) {
                return true;
            }
        }
        return false;
    }

    private static long measure(long[] intervals) {
        long m = 0;
        for (int i = 0; i < intervals.length; i += 2) {
            m += intervals[i + 1] - intervals[i];
        }
        return m;
    }

    /** Sorts {s, e} pairs by start (few pairs: insertion sort). */
    private static void sortIntervals(long[] v) {
        for (int i = 2; i < v.length; i += 2) {
            long s = v[i];
            long e = v[i + 1];
            int j = i - 2;
            while (j >= 0 && v[j] > s) {
                v[j + 2] = v[j];
                v[j + 3] = v[j + 1];
                j -= 2;
            }
            v[j + 2] = s;
            v[j + 3] = e;
        }
    }

    /** Merges sorted intervals, dropping empty ones. */
    private static long[] merge(long[] sorted) {
        long[] out = new long[sorted.length];
        int n = 0;
        for (int i = 0; i < sorted.length; i += 2) {
            long s = sorted[i];
            long e = sorted[i + 1];
            if (e <= s) {
                continue;
            }
            if (n > 0 && s <= out[n - 1]) {
                out[n - 1] = Math.max(out[n - 1], e);
            } else {
                out[n++] = s;
                out[n++] = e;
            }
        }
        return Arrays.copyOf(out, n);
    }

    private static long[] subtract(long[] merged, long s, long e) {
        if (e <= s) {
            return merged;
        }
        long[] out = new long[merged.length + 2];
        int n = 0;
        for (int i = 0; i < merged.length; i += 2) {
            long a = merged[i];
            long b = merged[i + 1];
            if (b <= s || e <= a) {
                out[n++] = a;
                out[n++] = b;
                continue;
            }
            if (a < s) {
                out[n++] = a;
                out[n++] = s;
            }
            if (e < b) {
                out[n++] = e;
                out[n++] = b;
            }
        }
        return Arrays.copyOf(out, n);
    }
}
