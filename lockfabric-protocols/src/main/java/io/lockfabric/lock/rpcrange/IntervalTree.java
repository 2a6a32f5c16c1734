package io.lockfabric.lock.rpcrange;

import java.util.ArrayList;
import java.util.List;

/**
 * A set of half-open intervals [start, end), each with a unique {@code long} id, as a treap keyed
 * by (start, id) whose nodes carry the largest end in their subtree (the classic augmented interval
 * tree, CLRS §14.3). Insert, remove and "does anything overlap [s, t)" take O(log n) expected
 * time; listing the k overlapping intervals O(k log n). Priorities are a hash of the id, so the
 * shape is a deterministic function of the contents and the order of operations.
 *
 * <p>Not thread-safe.
 */
public final class IntervalTree {
    private Node root;
    private int size;

    private static final class Node {
        final long start;
        final long end;
        final long id;
        final long priority;
        Node left;
        Node right;
        long maxEnd;

        Node(long start, long end, long id) {
            this.start = start;
            this.end = end;
            this.id = id;
            this.priority = mix(id);
            this.maxEnd = end;
        }
    }

    /** One stored interval. */
    public record Interval(long start, long end, long id) {
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /**
     * Adds [start, end) under {@code id}.
     *
     * @throws IllegalArgumentException if {@code end <= start} or an interval with that start and id is stored
     */
    public void insert(long start, long end, long id) {
        if (end <= start) {
            throw new IllegalArgumentException("empty interval [" + start + ", " + end + ")");
        }
        if (find(start, id) != null) {
            throw new IllegalArgumentException("interval (" + start + ", id " + id + ") already stored");
        }
        Node n = new Node(start, end, id);
        Node[] parts = split(root, start, id);
        root = merge(merge(parts[0], n), parts[1]);
        size++;
    }

    /** Removes the interval with that start and id; false if there is none. */
    public boolean remove(long start, long id) {
        if (find(start, id) == null) {
            return false;
        }
        root = remove(root, start, id);
        size--;
        return true;
    }

    /** Some stored interval that overlaps [s, t), or null. */
    public Interval anyOverlap(long s, long t) {
        Node n = root;
        while (n != null) {
            if (n.start < t && s < n.end) {
                return new Interval(n.start, n.end, n.id);
            }
            // If the left subtree has an end past s, an overlap exists there if anywhere on the left;
            // if it has none, nothing on the right (starts >= n.start) can help unless n.start < t.
            if (n.left != null && n.left.maxEnd > s) {
                n = n.left;
            } else {
                n = n.right;
            }
        }
        return null;
    }

    /** Every stored interval that overlaps [s, t), in (start, id) order. */
    public List<Interval> overlapping(long s, long t) {
        List<Interval> out = new ArrayList<>();
        collect(root, s, t, out);
        return out;
    }

    /** Every stored interval, in (start, id) order. */
    public List<Interval> all() {
        return overlapping(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    private static void collect(Node n, long s, long t, List<Interval> out) {
        if (n == null || n.maxEnd <= s) {
            return;
        }
        collect(n.left, s, t, out);
        if (n.start < t && s < n.end) {
            out.add(new Interval(n.start, n.end, n.id));
        }
        if (n.start < t) {
            collect(n.right, s, t, out);
        }
    }

    private Node find(long start, long id) {
        Node n = root;
        while (n != null) {
            int c = compare(start, id, n);
            if (c == 0) {
                return n;
            }
            n = c < 0 ? n.left : n.right;
        }
        return null;
    }

    private static int compare(long start, long id, Node n) {
        int c = Long.compare(start, n.start);
        return c != 0 ? c : Long.compare(id, n.id);
    }

    /** {@code [keys < (start, id), keys >= (start, id)]}. */
    private static Node[] split(Node n, long start, long id) {
        if (n == null) {
            return new Node[2];
        }
        if (compare(start, id, n) > 0) {
            Node[] r = split(n.right, start, id);
            n.right = r[0];
            update(n);
            return new Node[] {n, r[1]};
        }
        Node[] l = split(n.left, start, id);
        n.left = l[1];
        update(n);
        return new Node[] {l[0], n};
    }

    /** Joins two treaps whose keys are all ordered (every key of {@code a} below every key of {@code b}). */
    private static Node merge(Node a, Node b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        if (a.priority > b.priority) {
            a.right = merge(a.right, b);
            update(a);
            return a;
        }
        b.left = merge(a, b.left);
        update(b);
        return b;
    }

    private static Node remove(Node n, long start, long id) {
        int c = compare(start, id, n);
        if (c == 0) {
            return merge(n.left, n.right);
        }
        if (c < 0) {
            n.left = remove(n.left, start, id);
        } else {
            n.right = remove(n.right, start, id);
        }
        update(n);
        return n;
    }

    private static void update(Node n) {
        long m = n.end;
        if (n.left != null && n.left.maxEnd > m) {
            m = n.left.maxEnd;
        }
        if (n.right != null && n.right.maxEnd > m) {
            m = n.right.maxEnd;
        }
        n.maxEnd = m;
    }

    /** SplitMix64's finalizer: a well-spread priority from an id. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
