package io.lockfabric.lock.lld;

/**
 * The memory of {@code lld}: Kogan et al.'s range-lock list (EuroSys'20) as a table of fixed
 * 32-byte entries on the memory node, linked by index.
 *
 * <pre>
 *  entry 0 (head)                      entry i ≥ 1 (a range node, owned by one client's pool)
 * +---------------------------+        +---------------------------+
 * | word 0: head link         |        | word 0: link              |
 * | word 1: pool cursor (FAA) |        | word 1: start (64)        |
 * | word 2: unused            |        | word 2: end (64)          |
 * | word 3: unused            |        | word 3: owner ordinal     |
 * +---------------------------+        +---------------------------+
 * </pre>
 *
 * A client reserves {@code pool} consecutive entries at open time with one FAA on the pool
 * cursor (entries {@code 1 + cursor} onwards); no allocation happens on the hot path.
 *
 * <p><b>Link word</b> (one 64-bit word, updated by CAS and masked CAS only):
 * <pre>
 *   63    62   61            41 40            20 19             0
 * +-----+-----+----------------+----------------+----------------+
 * |MARK |FREE | own gen (21)   | succ gen (21)  | succ index (20)|
 * +-----+-----+----------------+----------------+----------------+
 * </pre>
 * <ul>
 * <li>{@code MARK}: the entry's range was released (logical deletion; Harris-style: a marked link
 * is never changed again by the list, so a CAS expecting an unmarked link fails on it).</li>
 * <li>{@code FREE}: set by the client whose CAS unlinked the entry: its owner may recycle it.</li>
 * <li>{@code own gen}: the entry's incarnation, bumped by its owner at each reuse. A CAS on a link
 * word expects the incarnation it read, so it fails on a recycled entry.</li>
 * <li>{@code succ gen}, {@code succ index}: the next entry and the incarnation it had when linked
 * (index 0 = end of list). A traverser that reaches an entry whose own gen differs from the
 * pointer's succ gen knows the entry was recycled under it and restarts from the head.</li>
 * </ul>
 * The head's own gen is always 0 and it is never marked. Generations wrap after 2^21 reuses of one
 * entry: a traverser stalled across that many reuses of one entry could be fooled (ABA).
 */
public final class LldLayout {
    public static final int ENTRY_BYTES = 32;
    public static final int WORD_BYTES = 8;
    /** The part of an entry a traverser READs: link, start, end. */
    public static final int NODE_READ_BYTES = 24;
    public static final int LINK_OFFSET = 0;
    public static final int START_OFFSET = 8;
    public static final int END_OFFSET = 16;
    public static final int OWNER_OFFSET = 24;
    public static final int HEAD_INDEX = 0;
    /** The pool cursor is word 1 of the head entry. */
    public static final int POOL_CURSOR_OFFSET = 8;
    public static final int NIL = 0;

    public static final int INDEX_BITS = 20;
    public static final int GEN_BITS = 21;
    public static final int SUCC_INDEX_SHIFT = 0;
    public static final int SUCC_GEN_SHIFT = INDEX_BITS;
    public static final int OWN_GEN_SHIFT = INDEX_BITS + GEN_BITS;
    public static final int FREE_SHIFT = 62;
    public static final int MARK_SHIFT = 63;

    public static final long INDEX_MASK = (1L << INDEX_BITS) - 1;
    public static final long GEN_MASK = (1L << GEN_BITS) - 1;
    public static final long MARK = 1L << MARK_SHIFT;
    public static final long FREE = 1L << FREE_SHIFT;
    /** The successor fields (gen and index) of a link word. */
    public static final long SUCC_MASK = (GEN_MASK << SUCC_GEN_SHIFT) | (INDEX_MASK << SUCC_INDEX_SHIFT);
    public static final long OWN_GEN_MASK = GEN_MASK << OWN_GEN_SHIFT;
    /** Largest entry index (entries 1 … MAX_INDEX hold ranges). */
    public static final long MAX_INDEX = INDEX_MASK;

    private LldLayout() {
    }

    public static long link(long ownGen, long succGen, long succIndex) {
        return ((ownGen & GEN_MASK) << OWN_GEN_SHIFT) | ((succGen & GEN_MASK) << SUCC_GEN_SHIFT)
                | ((succIndex & INDEX_MASK) << SUCC_INDEX_SHIFT);
    }

    public static boolean marked(long link) {
        return (link & MARK) != 0;
    }

    public static boolean free(long link) {
        return (link & FREE) != 0;
    }

    public static long ownGen(long link) {
        return (link >>> OWN_GEN_SHIFT) & GEN_MASK;
    }

    public static long succGen(long link) {
        return (link >>> SUCC_GEN_SHIFT) & GEN_MASK;
    }

    public static int succIndex(long link) {
        return (int) ((link >>> SUCC_INDEX_SHIFT) & INDEX_MASK);
    }

    /** {@code link} with its successor fields replaced by those of {@code from} (flags and own gen kept). */
    public static long withSuccOf(long link, long from) {
        return (link & ~SUCC_MASK) | (from & SUCC_MASK);
    }

    public static long nextGen(long gen) {
        return (gen + 1) & GEN_MASK;
    }

    /** Byte offset of entry {@code index} in the table. */
    public static long entryOffset(long index) {
        return index * ENTRY_BYTES;
    }

    /** Table bytes for {@code maxClients} pools of {@code pool} entries plus the head. */
    public static long tableBytes(long maxClients, long pool) {
        return entryOffset(entries(maxClients, pool));
    }

    /** Entries of a table: the head and {@code maxClients × pool} range entries. */
    public static long entries(long maxClients, long pool) {
        return 1 + Math.multiplyExact(maxClients, pool);
    }
}
