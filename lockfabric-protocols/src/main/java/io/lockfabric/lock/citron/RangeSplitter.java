package io.lockfabric.lock.citron;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Step 1 of CITRON's acquisition (FAST'23 §3.5.1): cover [l, r) with at most {@code k} tree nodes
 * so that the units covered but not requested (the false-conflict area) are as few as possible;
 * among covers with the least waste, the one with the fewest nodes. A leaf covers only the bits it
 * is asked for, so it never wastes; an internal node wastes its span minus the requested part.
 *
 * <p>Local computation (a tree knapsack): only nodes that [l, r) covers partially can be split, at
 * most two per level, so the dynamic programme visits O(log N) nodes and combines at most four
 * children with a min-plus convolution over {@code 0..k} nodes: O(k² log N). Stateless and
 * thread-safe.
 */
public final class RangeSplitter {
    /** The chosen nodes, ascending by range (so by index within a level and by start overall). */
    public record Split(long[] nodes, long waste) {
        @Override
        public String toString() {
            return Arrays.toString(nodes) + " waste " + waste;
        }
    }

    private static final long INFEASIBLE = Long.MAX_VALUE;

    private final CitronLayout tree;

    public RangeSplitter(CitronLayout tree) {
        this.tree = tree;
    }

    /**
     * The optimal cover of [l, r) by at most {@code k} nodes.
     *
     * @throws IllegalArgumentException unless {@code 0 ≤ l < r ≤ N} and {@code k ≥ 1}
     */
    public Split split(long l, long r, int k) {
        if (l < 0 || r <= l || r > tree.units()) {
            throw new IllegalArgumentException("range [" + l + ", " + r + ") not a non-empty part of [0, "
                    + tree.units() + ")");
        }
        if (k < 1) {
            throw new IllegalArgumentException("k must be >= 1, got " + k);
        }
        Plan[] best = solve(CitronLayout.ROOT, 0, l, r, k);
        Plan p = best[k];
        long[] nodes = new long[p.nodes.size()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = p.nodes.get(i);
        }
        // Children are combined left to right, so the list is already ascending by start.
        return new Split(nodes, p.waste);
    }

    /** A cover of a subtree's part of the request: its waste and nodes (ascending). */
    private record Plan(long waste, List<Long> nodes) {
        static final Plan NONE = new Plan(INFEASIBLE, List.of());
        static final Plan EMPTY = new Plan(0, List.of());

        boolean feasible() {
            return waste != INFEASIBLE;
        }

        boolean betterThan(Plan o) {
            return waste < o.waste || (waste == o.waste && nodes.size() < o.nodes.size());
        }

        Plan then(Plan o) {
            List<Long> all = new ArrayList<>(nodes.size() + o.nodes.size());
            all.addAll(nodes);
            all.addAll(o.nodes);
            return new Plan(waste + o.waste, all);
        }
    }

    /**
     * {@code best[j]}: the best cover of [l, r) ∩ range(x) with at most {@code j} nodes of x's
     * subtree ({@link Plan#NONE} if there is none).
     */
    private Plan[] solve(long x, int d, long l, long r, int k) {
        long s = tree.rangeStart(x);
        long e = s + tree.span(d);
        long lo = Math.max(l, s);
        long hi = Math.min(r, e);
        Plan[] best = new Plan[k + 1];
        if (hi <= lo) {
            Arrays.fill(best, Plan.EMPTY);
            return best;
        }
        Plan self = new Plan(d == tree.leafLevel() ? 0 : (e - s) - (hi - lo), List.of(x));
        best[0] = Plan.NONE;
        for (int j = 1; j <= k; j++) {
            best[j] = self;
        }
        boolean whole = lo == s && hi == e;
        if (d == tree.leafLevel() || whole) {
            return best; // a leaf or a fully requested node: itself, with no waste, is optimal
        }
        Plan[] acc = new Plan[k + 1];
        Arrays.fill(acc, Plan.EMPTY);
        for (int i = 0; i < CitronLayout.FANOUT; i++) {
            Plan[] c = solve(CitronLayout.child(x, i), d + 1, l, r, k);
            Plan[] next = new Plan[k + 1];
            Arrays.fill(next, Plan.NONE);
            for (int a = 0; a <= k; a++) {
                if (!acc[a].feasible()) {
                    continue;
                }
                for (int b = 0; a + b <= k; b++) {
                    if (c[b].feasible()) {
                        Plan p = acc[a].then(c[b]);
                        if (p.betterThan(next[a + b])) {
                            next[a + b] = p;
                        }
                    }
                }
            }
            acc = next;
        }
        for (int j = 1; j <= k; j++) {
            Plan split = acc[j];
            if (split.betterThan(best[j])) {
                best[j] = split;
            }
            if (best[j - 1].feasible() && best[j - 1].betterThan(best[j])) {
                best[j] = best[j - 1]; // "at most j" nodes
            }
        }
        return best;
    }
}
