package io.lockfabric.lock.citron;

/**
 * CITRON's table on the memory node (FAST'23 §3.3–3.4): a header (maximizer, spillover mutex,
 * fencing counter) followed by the lock tree, a quaternary segment tree over [0, N) stored as a flat array in level
 * order. Instances carry the tree geometry for one N; the word formats are static.
 *
 * <h2>Table</h2>
 * <pre>
 * offset 0                  8                  16                24             32                    32 + 8 × nodes
 * +-------------------------+------------------+-----------------+--------------+--------+-----+--------+
 * | maximizer (OR of r ≥ N) | spillover (DSLR) | fencing counter | configuration| node 1 | ... | node n |
 * +-------------------------+------------------+-----------------+--------------+--------+-----+--------+
 * </pre>
 * The fencing counter is a plain 64-bit FAA counter (see {@code FencingCounter});
 * the configuration word records scale-ups ({@link CitronTree}). This layout is generation 0: a
 * scale-up keeps it in place and adds levels above it in expansion tables.
 * Node {@code x} (root 1) lives at {@code 32 + 8 (x − 1)}; {@code CHILD(x, i) = 4x − 2 + i},
 * {@code PARENT(x) = ⌊(x + 2) / 4⌋}. Level {@code d} (root 0) starts at index
 * {@code (4^d − 1) / 3 + 1} and has {@code 4^d} nodes, each covering {@code N / 4^d} units; the
 * leaf level is {@code H − 1} for {@code H} levels, leaves cover {@value #LEAF_UNITS} units, so
 * {@code N = 64 · 4^(H−1)}. N = 2^28: 12 levels, 5 592 405 nodes, 44 739 272 bytes (≈ 42.7 MiB):
 * 8 bytes a node and nothing per lock held.
 *
 * <h2>Leaf node: a bitmap, one bit per unit</h2>
 * <pre>
 *  63                                                               0
 * +-----------------------------------------------------------------+
 * | unit base+63 ...                                     unit base+0 |
 * +-----------------------------------------------------------------+
 * </pre>
 * Lock bits {@code m}: MCAS(cmp 0, cmpMask m, swap m, swapMask m); unlock: MCAS(m, m, 0, m).
 *
 * <h2>Internal node: two flags and two bakery counter pairs, each its own MFAA field</h2>
 * <pre>
 *  63    61   60  59         45 44         30 29         15 14          0
 * +--------+----+-------------+-------------+-------------+-------------+
 * |Exp (3) |Occ |  TCnt (15)  |  TMax (15)  |  DCnt (15)  |  DMax (15)  |
 * +--------+----+-------------+-------------+-------------+-------------+
 * </pre>
 * {@code TMax}/{@code TCnt}: tickets for a lock at this node, now serving. {@code DMax}/{@code
 * DCnt}: notifications from requests at descendants, and their releases. {@code Occ}: occupied
 * (a holder of this node blocks new requests below it). {@code Exp}: the paper's expanded flag,
 * widened to a 3-bit mark: the generation (1 to {@value #MAX_MARK}) of the last scale-up that
 * carried this node's counters into its new ancestors, 0 if none ({@code TreeScaler}).
 * A request of generation g whose update of a node returns a mark above g knows the scale-up to
 * g + 1 read the node before it (its update was not carried); a root with any mark is no longer a
 * root. Only scale-ups and scale-downs write it (masked CAS, compare mask 0), never an MFAA.
 * Counters compare modulo 2^15 (at most 32 767 concurrent clients). Every update is an MFAA
 * with {@link #BOUNDARY_MASK}, so fields wrap on their own; a 1-bit flag is cleared by adding 1.
 */
public final class CitronLayout {
    public static final int WORD_BYTES = 8;
    /** Offset of the maximizer word in the table. */
    public static final long MAXIMIZER_OFFSET = 0;
    /** Offset of the spillover mutex word (a {@link io.lockfabric.lock.dslr.DslrLayout} word). */
    public static final long SPILLOVER_OFFSET = 8;
    /** Offset of the fencing counter: one FAA per node acquisition returns a grant's token. */
    public static final long FENCE_OFFSET = 16;
    /** Offset of the configuration word (scale-ups so far and their heights; 0: none). */
    public static final long CONFIG_OFFSET = 24;
    /** Offset of node 1 (the root). */
    public static final long TREE_OFFSET = 32;
    public static final int ROOT = 1;
    public static final int FANOUT = 4;
    public static final int LEAF_UNITS = 64;
    /** The paper's N. */
    public static final long DEFAULT_UNITS = 1L << 28;
    /** Largest supported N: 64 · 4^15 (16 levels; its 1.43 G nodes fit a table below 2^48 bytes). */
    public static final int MAX_LEVELS = 16;

    public static final int COUNTER_BITS = 15;
    public static final long COUNTER_MASK = (1L << COUNTER_BITS) - 1;
    public static final int DMAX_SHIFT = 0;
    public static final int DCNT_SHIFT = 15;
    public static final int TMAX_SHIFT = 30;
    public static final int TCNT_SHIFT = 45;
    public static final int OCC_SHIFT = 60;
    public static final int EXP_SHIFT = 61;

    public static final long ONE_DMAX = 1L << DMAX_SHIFT;
    public static final long ONE_DCNT = 1L << DCNT_SHIFT;
    public static final long ONE_TMAX = 1L << TMAX_SHIFT;
    public static final long ONE_TCNT = 1L << TCNT_SHIFT;
    public static final long OCC_BIT = 1L << OCC_SHIFT;
    public static final long EXP_BIT = 1L << EXP_SHIFT;
    public static final int EXP_BITS = 3;
    /** The Exp mark field (bits 61–63). */
    public static final long EXP_FIELD = ((1L << EXP_BITS) - 1) << EXP_SHIFT;
    /** Largest mark: a tree scales up to at most this many generations. */
    public static final int MAX_MARK = (1 << EXP_BITS) - 1;
    public static final long TCNT_FIELD = COUNTER_MASK << TCNT_SHIFT;
    public static final long DCNT_FIELD = COUNTER_MASK << DCNT_SHIFT;
    public static final long DMAX_FIELD = COUNTER_MASK << DMAX_SHIFT;
    /** What a ticket waiter watches for progress: TCnt and Occ (lease recovery, §3.10 line 11). */
    public static final long TURN_FIELDS = TCNT_FIELD | OCC_BIT;
    /** What a descendant check watches for progress: DCnt and DMax (§3.10 line 36). */
    public static final long NOTIFY_FIELDS = DCNT_FIELD | DMAX_FIELD;
    /** Most significant bit of every field (counters, flags, and the reserved bits 62–63). */
    public static final long BOUNDARY_MASK = (1L << (DMAX_SHIFT + COUNTER_BITS - 1))
            | (1L << (DCNT_SHIFT + COUNTER_BITS - 1)) | (1L << (TMAX_SHIFT + COUNTER_BITS - 1))
            | (1L << (TCNT_SHIFT + COUNTER_BITS - 1)) | OCC_BIT | EXP_BIT | (1L << 63);
    /** Add to an occupied node to vacate it: Occ 1 → 0 (the 1-bit field wraps) and TCnt + 1. */
    public static final long VACATE = OCC_BIT + ONE_TCNT;
    /** A full leaf: all 64 units. */
    public static final long ALL_UNITS = -1L;

    private final long units;
    private final int levels;
    private final long nodes;

    /**
     * Geometry of a tree over [0, units).
     *
     * @throws IllegalArgumentException unless {@code units = 64 · 4^j} with {@code 0 ≤ j < }
     *                                  {@link #MAX_LEVELS}
     */
    public CitronLayout(long units) {
        int lv = 1;
        long u = LEAF_UNITS;
        while (u < units && lv < MAX_LEVELS) {
            u *= FANOUT;
            lv++;
        }
        if (u != units) {
            throw new IllegalArgumentException("citron tree size N must be 64 x 4^j (64, 256, 1024, ..., 2^28, ..."
                    + " up to 64 x 4^" + (MAX_LEVELS - 1) + "), got " + units);
        }
        this.units = units;
        this.levels = lv;
        this.nodes = levelStart(lv) - 1;
    }

    /** N: the tree covers [0, N). */
    public long units() {
        return units;
    }

    /** H: number of levels; the root is level 0, leaves level H − 1. */
    public int levels() {
        return levels;
    }

    public int leafLevel() {
        return levels - 1;
    }

    public long nodes() {
        return nodes;
    }

    /** Bytes of the whole table (header and tree). */
    public long tableBytes() {
        return TREE_OFFSET + nodes * WORD_BYTES;
    }

    /** Offset of node {@code x} in the table. */
    public long offset(long x) {
        if (x < ROOT || x > nodes) {
            throw new IllegalArgumentException("node " + x + " outside [1, " + nodes + "]");
        }
        return TREE_OFFSET + (x - 1) * WORD_BYTES;
    }

    /** Index of the first node of level {@code d}: {@code (4^d − 1) / 3 + 1}. */
    public static long levelStart(int d) {
        return ((1L << (2 * d)) - 1) / 3 + 1;
    }

    /** Number of nodes at level {@code d}. */
    public static long levelWidth(int d) {
        return 1L << (2 * d);
    }

    public static long child(long x, int i) {
        return FANOUT * x - 2 + i;
    }

    public static long parent(long x) {
        return (x + 2) / FANOUT;
    }

    /** The level of node {@code x}. */
    public int level(long x) {
        for (int d = 0; d < levels; d++) {
            if (x < levelStart(d + 1)) {
                return d;
            }
        }
        throw new IllegalArgumentException("node " + x + " outside [1, " + nodes + "]");
    }

    public boolean isLeaf(long x) {
        return x >= levelStart(leafLevel());
    }

    /** Units covered by one node of level {@code d}. */
    public long span(int d) {
        return units >>> (2 * d);
    }

    /** First unit covered by node {@code x}. */
    public long rangeStart(long x) {
        int d = level(x);
        return (x - levelStart(d)) * span(d);
    }

    public long rangeEnd(long x) {
        return rangeStart(x) + span(level(x));
    }

    /** The node of level {@code d} covering {@code unit}. */
    public long nodeAt(int d, long unit) {
        return levelStart(d) + unit / span(d);
    }

    /** The first descendant of {@code x} at {@code depth} levels below it (the block is contiguous). */
    public static long firstDescendant(long x, int depth) {
        long y = x;
        for (int i = 0; i < depth; i++) {
            y = child(y, 0);
        }
        return y;
    }

    /** Whether {@code a} is {@code b} or an ancestor of {@code b}. */
    public boolean covers(long a, long b) {
        return rangeStart(a) <= rangeStart(b) && rangeEnd(b) <= rangeEnd(a);
    }

    /** Bits of leaf {@code x} for the units of [l, r) it covers (0 if none). */
    public long leafMask(long x, long l, long r) {
        long base = rangeStart(x);
        long from = Math.max(l, base) - base;
        long to = Math.min(r, base + LEAF_UNITS) - base;
        if (to <= from) {
            return 0;
        }
        long upper = to == LEAF_UNITS ? ALL_UNITS : (1L << to) - 1;
        return upper & (ALL_UNITS << from);
    }

    // ------------------------------------------------------------------ internal node words

    public static int tcnt(long w) {
        return (int) ((w >>> TCNT_SHIFT) & COUNTER_MASK);
    }

    public static int tmax(long w) {
        return (int) ((w >>> TMAX_SHIFT) & COUNTER_MASK);
    }

    public static int dcnt(long w) {
        return (int) ((w >>> DCNT_SHIFT) & COUNTER_MASK);
    }

    public static int dmax(long w) {
        return (int) ((w >>> DMAX_SHIFT) & COUNTER_MASK);
    }

    public static boolean occupied(long w) {
        return (w & OCC_BIT) != 0;
    }

    /** Whether the node carries any scale-up mark (for a root: the tree it heads was scaled). */
    public static boolean expanded(long w) {
        return (w & EXP_FIELD) != 0;
    }

    /** The Exp mark: generation of the last scale-up that carried this node (0: none). */
    public static int expMark(long w) {
        return (int) ((w & EXP_FIELD) >>> EXP_SHIFT);
    }

    /** The Exp field set to {@code mark}. */
    public static long markOf(int mark) {
        if (mark < 0 || mark > MAX_MARK) {
            throw new IllegalArgumentException("citron Exp mark must be in [0, " + MAX_MARK + "], got " + mark);
        }
        return (long) mark << EXP_SHIFT;
    }

    /** Height of node {@code x}: 0 for a leaf, {@code H − 1} for the root. */
    public int height(long x) {
        return leafLevel() - level(x);
    }

    /** The TCnt field set to {@code ticket}, Occ clear (swap value of a ticket recovery). */
    public static long turnOf(int ticket) {
        return ((long) ticket & COUNTER_MASK) << TCNT_SHIFT;
    }

    /** No notified request at a descendant is still unreleased. */
    public static boolean descendantsDone(long w) {
        return dcnt(w) == dmax(w);
    }

    public static long word(boolean exp, boolean occ, int tcnt, int tmax, int dcnt, int dmax) {
        return (exp ? EXP_BIT : 0) | (occ ? OCC_BIT : 0) | ((tcnt & COUNTER_MASK) << TCNT_SHIFT)
                | ((tmax & COUNTER_MASK) << TMAX_SHIFT) | ((dcnt & COUNTER_MASK) << DCNT_SHIFT)
                | ((dmax & COUNTER_MASK) << DMAX_SHIFT);
    }

    @Override
    public String toString() {
        return "citron tree N=" + units + " (" + levels + " levels, " + nodes + " nodes, " + tableBytes() + " bytes)";
    }
}
