package io.lockfabric.lock.rpcrange;

import java.util.ArrayList;
import java.util.List;

/**
 * Disjoint half-open ranges [start, end), each with a count of readers and of writers, in a B+-tree
 * keyed by start: our structure in the spirit of the Linux Maple tree (a B-tree of non-overlapping
 * ranges; Howlett, "Introducing the Maple Tree", LWN 2022), which CITRON's MT baseline ports.
 *
 * <p>Leaves hold up to {@link #FANOUT} ranges in start order and are chained left to right;
 * internal nodes hold up to {@link #FANOUT} children and the least start of each child but the
 * first (16 slots, as a 64-bit Maple node has). A full node splits in two; a node left empty is
 * unlinked (free-at-empty rather than merge-at-half: the height stays logarithmic in the most ranges
 * ever held at once, and a lock manager's tree is small). Lookups and updates take O(log n) plus
 * the ranges they touch.
 *
 * <p>{@link #adjust} is the only update the lock manager needs: it adds a count to every point of
 * [s, t), splitting ranges at s and t, filling gaps with new ranges, and dropping ranges whose
 * counts fall to zero. Adjacent ranges with equal counts are not merged (not needed for
 * correctness; holders split at their own borders).
 *
 * <p>Not thread-safe (the Maple tree's writers, too, serialize on the tree's lock).
 */
public final class RangeBTree {
    /** Slots per node. */
    public static final int FANOUT = 16;

    /** One stored range and its counts. */
    public record Segment(long start, long end, int readers, int writers) {
    }

    private abstract static sealed class Node permits Leaf, Inner {
        int n;

        abstract long minKey();
    }

    private static final class Leaf extends Node {
        final long[] start = new long[FANOUT];
        final long[] end = new long[FANOUT];
        final int[] readers = new int[FANOUT];
        final int[] writers = new int[FANOUT];
        Leaf next;

        @Override
        long minKey() {
            return start[0];
        }
    }

    private static final class Inner extends Node {
        /** keys[i] = least start under children[i], i >= 1 (keys[0] unused). */
        final long[] keys = new long[FANOUT];
        final Node[] children = new Node[FANOUT];

        @Override
        long minKey() {
            return children[0].minKey();
        }
    }

    private Node root = new Leaf();
    private int size;
    private int height = 1;

    /** The number of stored ranges. */
    public int size() {
        return size;
    }

    /** Levels from the root to the leaves (1 for a lone leaf). */
    public int height() {
        return height;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Every stored range that overlaps [s, t), in start order. */
    public List<Segment> overlapping(long s, long t) {
        List<Segment> out = new ArrayList<>();
        Leaf leaf = seekFloor(s);
        int i = Math.max(0, seekIndex);
        for (; leaf != null; leaf = leaf.next, i = 0) {
            for (; i < leaf.n; i++) {
                if (leaf.start[i] >= t) {
                    return out;
                }
                if (leaf.end[i] > s) {
                    out.add(new Segment(leaf.start[i], leaf.end[i], leaf.readers[i], leaf.writers[i]));
                }
            }
        }
        return out;
    }

    /** Every stored range, in start order. */
    public List<Segment> all() {
        return overlapping(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /**
     * Whether a request for [s, t) conflicts with a stored range: any overlapping range with a
     * writer, or, for a writer ({@code exclusive}), any overlapping range at all.
     */
    public boolean conflicts(long s, long t, boolean exclusive) {
        Leaf leaf = seekFloor(s);
        int i = Math.max(0, seekIndex);
        for (; leaf != null; leaf = leaf.next, i = 0) {
            for (; i < leaf.n; i++) {
                if (leaf.start[i] >= t) {
                    return false;
                }
                if (leaf.end[i] > s && (exclusive || leaf.writers[i] > 0)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Adds {@code dReaders} readers and {@code dWriters} writers to every point of [s, t): ranges
     * are split at s and t, gaps inside [s, t) become new ranges (when the deltas are positive),
     * and ranges whose counts both reach zero are removed.
     *
     * @throws IllegalArgumentException if {@code t <= s}, or a count would fall below zero (which
     *                                  leaves the tree unchanged)
     */
    public void adjust(long s, long t, int dReaders, int dWriters) {
        if (t <= s) {
            throw new IllegalArgumentException("empty range [" + s + ", " + t + ")");
        }
        List<Segment> old = overlapping(s, t);
        boolean adding = dReaders >= 0 && dWriters >= 0;
        long covered = s;
        for (Segment g : old) {
            if (g.readers + dReaders < 0 || g.writers + dWriters < 0) {
                throw new IllegalArgumentException("counts of " + g + " would fall below zero");
            }
            if (!adding && g.start > covered) {
                throw new IllegalArgumentException("[" + covered + ", " + g.start + ") is not stored");
            }
            covered = g.end;
        }
        if (!adding && covered < t) {
            throw new IllegalArgumentException("[" + covered + ", " + t + ") is not stored");
        }
        for (Segment g : old) {
            remove(g.start);
        }
        long cursor = s;
        for (Segment g : old) {
            if (g.start < s) {
                put(g.start, s, g.readers, g.writers);
            } else if (g.start > cursor) {
                put(cursor, g.start, dReaders, dWriters);
            }
            long lo = Math.max(g.start, s);
            long hi = Math.min(g.end, t);
            put(lo, hi, g.readers + dReaders, g.writers + dWriters);
            if (g.end > t) {
                put(t, g.end, g.readers, g.writers);
            }
            cursor = hi;
        }
        if (cursor < t) {
            put(cursor, t, dReaders, dWriters);
        }
    }

    /** Stores a range unless both counts are zero. */
    private void put(long s, long t, int readers, int writers) {
        if (readers == 0 && writers == 0) {
            return;
        }
        Node split = insert(root, s, t, readers, writers);
        if (split != null) {
            Inner r = new Inner();
            r.children[0] = root;
            r.children[1] = split;
            r.keys[1] = split.minKey();
            r.n = 2;
            root = r;
            height++;
        }
        size++;
    }

    /** The index in {@link #seekFloor}'s leaf of the greatest start {@code <= key}, or -1 if none. */
    private int seekIndex;

    /**
     * The leaf holding the greatest start {@code <= key} (its index in {@link #seekIndex}), or, if
     * no start is {@code <= key}, the leftmost leaf (index -1). A separator may be below its
     * child's least start after removals, so the floor may lie in the leaf before the one the
     * descent reaches: the rightmost leaf of the nearest subtree left of the path.
     */
    private Leaf seekFloor(long key) {
        Node x = root;
        Node left = null;
        while (x instanceof Inner in) {
            int c = childFor(in, key);
            if (c > 0) {
                left = in.children[c - 1];
            }
            x = in.children[c];
        }
        Leaf leaf = (Leaf) x;
        int i = floorIn(leaf, key);
        if (i < 0 && left != null) {
            while (left instanceof Inner in) {
                left = in.children[in.n - 1];
            }
            leaf = (Leaf) left;
            i = leaf.n - 1;
        }
        seekIndex = i;
        return leaf;
    }

    private static int childFor(Inner in, long key) {
        int c = 0;
        while (c + 1 < in.n && in.keys[c + 1] <= key) {
            c++;
        }
        return c;
    }

    /** The index of the greatest start {@code <= key} in the leaf, or -1. */
    private static int floorIn(Leaf leaf, long key) {
        int i = -1;
        while (i + 1 < leaf.n && leaf.start[i + 1] <= key) {
            i++;
        }
        return i;
    }

    /** Inserts into the subtree; returns the new right sibling if the node split. */
    private static Node insert(Node x, long s, long t, int readers, int writers) {
        if (x instanceof Leaf leaf) {
            int at = floorIn(leaf, s) + 1;
            if (at > 0 && leaf.start[at - 1] == s) {
                throw new IllegalStateException("a range starting at " + s + " is already stored");
            }
            if (leaf.n < FANOUT) {
                leafInsert(leaf, at, s, t, readers, writers);
                return null;
            }
            Leaf right = new Leaf();
            int half = FANOUT / 2;
            System.arraycopy(leaf.start, half, right.start, 0, FANOUT - half);
            System.arraycopy(leaf.end, half, right.end, 0, FANOUT - half);
            System.arraycopy(leaf.readers, half, right.readers, 0, FANOUT - half);
            System.arraycopy(leaf.writers, half, right.writers, 0, FANOUT - half);
            right.n = FANOUT - half;
            leaf.n = half;
            right.next = leaf.next;
            leaf.next = right;
            if (at <= half) {
                leafInsert(leaf, at, s, t, readers, writers);
            } else {
                leafInsert(right, at - half, s, t, readers, writers);
            }
            return right;
        }
        Inner in = (Inner) x;
        int c = childFor(in, s);
        Node split = insert(in.children[c], s, t, readers, writers);
        if (split == null) {
            return null;
        }
        long key = split.minKey();
        int at = c + 1;
        if (in.n < FANOUT) {
            innerInsert(in, at, key, split);
            return null;
        }
        Inner right = new Inner();
        int half = FANOUT / 2;
        System.arraycopy(in.keys, half, right.keys, 0, FANOUT - half);
        System.arraycopy(in.children, half, right.children, 0, FANOUT - half);
        java.util.Arrays.fill(in.children, half, FANOUT, null);
        right.n = FANOUT - half;
        in.n = half;
        if (at <= half) {
            innerInsert(in, at, key, split);
        } else {
            innerInsert(right, at - half, key, split);
        }
        return right;
    }

    private static void leafInsert(Leaf leaf, int at, long s, long t, int readers, int writers) {
        int move = leaf.n - at;
        System.arraycopy(leaf.start, at, leaf.start, at + 1, move);
        System.arraycopy(leaf.end, at, leaf.end, at + 1, move);
        System.arraycopy(leaf.readers, at, leaf.readers, at + 1, move);
        System.arraycopy(leaf.writers, at, leaf.writers, at + 1, move);
        leaf.start[at] = s;
        leaf.end[at] = t;
        leaf.readers[at] = readers;
        leaf.writers[at] = writers;
        leaf.n++;
    }

    private static void innerInsert(Inner in, int at, long key, Node child) {
        int move = in.n - at;
        System.arraycopy(in.keys, at, in.keys, at + 1, move);
        System.arraycopy(in.children, at, in.children, at + 1, move);
        in.keys[at] = key;
        in.children[at] = child;
        in.n++;
    }

    /** Removes the range starting at {@code s} (it must be stored). */
    private void remove(long s) {
        if (!remove(root, s)) {
            throw new IllegalStateException("no range starts at " + s);
        }
        size--;
        while (root instanceof Inner in && in.n == 1) {
            root = in.children[0];
            height--;
        }
        if (root instanceof Inner in && in.n == 0) {
            root = new Leaf();
            height = 1;
        }
    }

    /**
     * Removes {@code s} from the subtree; a node left empty is unlinked by its parent (an empty
     * leaf from the leaf chain too).
     */
    private boolean remove(Node x, long s) {
        if (x instanceof Leaf leaf) {
            int i = floorIn(leaf, s);
            if (i < 0 || leaf.start[i] != s) {
                return false;
            }
            int move = leaf.n - i - 1;
            System.arraycopy(leaf.start, i + 1, leaf.start, i, move);
            System.arraycopy(leaf.end, i + 1, leaf.end, i, move);
            System.arraycopy(leaf.readers, i + 1, leaf.readers, i, move);
            System.arraycopy(leaf.writers, i + 1, leaf.writers, i, move);
            leaf.n--;
            return true;
        }
        Inner in = (Inner) x;
        int c = childFor(in, s);
        Node child = in.children[c];
        if (!remove(child, s)) {
            return false;
        }
        if (child.n == 0) {
            if (child instanceof Leaf emptied) {
                Leaf before = leafBefore(emptied);
                if (before != null) {
                    before.next = emptied.next;
                }
            }
            int move = in.n - c - 1;
            System.arraycopy(in.keys, c + 1, in.keys, c, move);
            System.arraycopy(in.children, c + 1, in.children, c, move);
            in.n--;
            in.children[in.n] = null;
        } else if (c > 0) {
            in.keys[c] = child.minKey();
        }
        return true;
    }

    /** The leaf chained just before {@code leaf} (null if it is the leftmost), found from the root. */
    private Leaf leafBefore(Leaf leaf) {
        // The predecessor leaf is the rightmost leaf left of it: walk the chain from the leftmost leaf.
        Node x = root;
        while (x instanceof Inner in) {
            x = in.children[0];
        }
        Leaf prev = null;
        for (Leaf l = (Leaf) x; l != null && l != leaf; l = l.next) {
            prev = l;
        }
        return prev;
    }
}
