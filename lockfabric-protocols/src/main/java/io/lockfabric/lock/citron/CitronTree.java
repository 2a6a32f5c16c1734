package io.lockfabric.lock.citron;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One configuration of a (possibly scaled-up) CITRON lock tree (FAST'23 §3.9.1): its logical
 * geometry ({@link #layout()}, the index arithmetic of a fresh tree over the current N) and where
 * each node lives. Generation 0 is the table's own tree; each scale-up g ≥ 1 adds levels above the
 * previous tree, which becomes the leftmost subtree of the new one, and stores only the nodes it
 * adds, in level order, in a zeroed expansion table of its own ("offset by the number of old nodes
 * ahead in level order").
 *
 * <h2>Configuration word (table offset {@link CitronLayout#CONFIG_OFFSET})</h2>
 * <pre>
 *  63     60        ...        8 7      4 3      0
 * +--------+-----------------+--------+--------+
 * | H_15−1 |       ...       | H_1 − 1|   g    |
 * +--------+-----------------+--------+--------+
 * </pre>
 * {@code g}: scale-ups so far (at most {@link #MAX_GENERATIONS}); nibble i: levels of generation i
 * minus one. Generation 0's levels come from the {@code units} option. Zero: never scaled.
 * Immutable.
 */
final class CitronTree {
    static final int NIBBLE = 4;
    static final long NIBBLE_MASK = 0xF;
    /**
     * Scale-ups a tree can take: each marks the nodes it carries with its generation, and the
     * mark field ({@link CitronLayout#EXP_FIELD}) holds up to 7 (from N = 2^10, 7 steps of 4x reach
     * the paper's 2^28).
     */
    static final int MAX_GENERATIONS = CitronLayout.MAX_MARK;

    private final int[] levels;
    private final long[] bases;
    private final CitronLayout layout;

    /** {@code levels[g]}: levels of generation g; {@code bases[g]}: address of its first stored node. */
    CitronTree(int[] levels, long[] bases) {
        if (levels.length != bases.length || levels.length == 0 || levels.length > MAX_GENERATIONS + 1) {
            throw new IllegalArgumentException("bad citron configuration: " + Arrays.toString(levels));
        }
        for (int g = 1; g < levels.length; g++) {
            if (levels[g] <= levels[g - 1] || levels[g] > CitronLayout.MAX_LEVELS) {
                throw new IllegalArgumentException("citron generations must grow, up to " + CitronLayout.MAX_LEVELS
                        + " levels: " + Arrays.toString(levels));
            }
        }
        this.levels = levels.clone();
        this.bases = bases.clone();
        this.layout = new CitronLayout(unitsOf(levels[levels.length - 1]));
    }

    static long unitsOf(int levels) {
        return (long) CitronLayout.LEAF_UNITS << (2 * (levels - 1));
    }

    /** Levels of every generation encoded in {@code word} (generation 0 has {@code baseLevels}). */
    static int[] decode(long word, int baseLevels) {
        int g = (int) (word & NIBBLE_MASK);
        int[] out = new int[g + 1];
        out[0] = baseLevels;
        for (int i = 1; i <= g; i++) {
            out[i] = (int) ((word >>> (NIBBLE * i)) & NIBBLE_MASK) + 1;
        }
        return out;
    }

    static long encode(int[] levels) {
        long w = levels.length - 1;
        for (int i = 1; i < levels.length; i++) {
            w |= (long) (levels[i] - 1) << (NIBBLE * i);
        }
        return w;
    }

    long word() {
        return encode(levels);
    }

    CitronLayout layout() {
        return layout;
    }

    int generation() {
        return levels.length - 1;
    }

    int[] levels() {
        return levels.clone();
    }

    long[] bases() {
        return bases.clone();
    }

    /** The levels of the whole tree (its newest generation). */
    int height() {
        return levels[levels.length - 1];
    }

    /** This configuration as it was at generation {@code g} (its first g + 1 generations). */
    CitronTree upTo(int g) {
        if (g < 0 || g > generation()) {
            throw new IllegalArgumentException("generation " + g + " outside [0, " + generation() + "]");
        }
        return g == generation() ? this : new CitronTree(Arrays.copyOf(levels, g + 1), Arrays.copyOf(bases, g + 1));
    }

    /**
     * Index, in a tree of {@code toLevels} levels grown from one of {@code fromLevels} (which is its
     * leftmost subtree), of node {@code x} of the smaller tree: same position, {@code toLevels −
     * fromLevels} levels deeper.
     */
    static long lift(long x, int fromLevels, int toLevels) {
        int e = level(fromLevels, x);
        return CitronLayout.levelStart(e + toLevels - fromLevels) + (x - CitronLayout.levelStart(e));
    }

    /** Words generation {@code g} stores: the nodes of its tree that the previous one lacks. */
    static long storedNodes(int[] levels, int g) {
        long all = CitronLayout.levelStart(levels[g]) - 1;
        return g == 0 ? all : all - (CitronLayout.levelStart(levels[g - 1]) - 1);
    }

    /** Address of node {@code x} of the current tree. */
    long address(long x) {
        return address(levels.length - 1, x);
    }

    private long address(int g, long x) {
        int e = level(levels[g], x);
        long q = x - CitronLayout.levelStart(e);
        if (g == 0) {
            return bases[0] + (x - 1) * CitronLayout.WORD_BYTES;
        }
        int s = levels[g] - levels[g - 1];
        if (e >= s && q < CitronLayout.levelWidth(e - s)) {
            return address(g - 1, CitronLayout.levelStart(e - s) + q);
        }
        return bases[g] + (x - 1 - oldAhead(s, e, q)) * CitronLayout.WORD_BYTES;
    }

    /** Nodes of the previous generation that come before node (level e, position q) in level order. */
    private static long oldAhead(int s, int e, long q) {
        long n = 0;
        for (int d = s; d < e; d++) {
            n += CitronLayout.levelWidth(d - s);
        }
        if (e >= s && q >= CitronLayout.levelWidth(e - s)) {
            n += CitronLayout.levelWidth(e - s);
        }
        return n;
    }

    private static int level(int levelsOfTree, long x) {
        for (int d = 0; d < levelsOfTree; d++) {
            if (x < CitronLayout.levelStart(d + 1)) {
                return d;
            }
        }
        throw new IllegalArgumentException("node " + x + " outside a tree of " + levelsOfTree + " levels");
    }

    /**
     * The contiguous runs in memory of {@code count} consecutive nodes of one level starting at
     * {@code first}: {address, nodes} pairs (one run on an unscaled tree; a few after scale-ups,
     * §3.9.1 "Impact to Step 2(d)").
     */
    List<long[]> runs(long first, long count) {
        List<long[]> out = new ArrayList<>();
        runs(levels.length - 1, first, count, out);
        return out;
    }

    private void runs(int g, long first, long count, List<long[]> out) {
        if (g == 0) {
            out.add(new long[] {address(0, first), count});
            return;
        }
        int e = level(levels[g], first);
        long q0 = first - CitronLayout.levelStart(e);
        int s = levels[g] - levels[g - 1];
        long oldWidth = e >= s ? CitronLayout.levelWidth(e - s) : 0;
        long oldEnd = Math.min(q0 + count, oldWidth);
        if (q0 < oldEnd) {
            runs(g - 1, CitronLayout.levelStart(e - s) + q0, oldEnd - q0, out);
        }
        long newStart = Math.max(q0, oldWidth);
        if (newStart < q0 + count) {
            out.add(new long[] {address(g, CitronLayout.levelStart(e) + newStart), q0 + count - newStart});
        }
    }
}
