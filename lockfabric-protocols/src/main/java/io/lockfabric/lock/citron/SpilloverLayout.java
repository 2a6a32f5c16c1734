package io.lockfabric.lock.citron;

/**
 * The word of CITRON's spillover mutex for [N, ∞) (FAST'23 §3.3), in the table's header: a bakery
 * lock of DSLR's shape (the same four 16-bit counters, so the word reads as a DSLR word), of which
 * the mutex uses the exclusive pair only.
 *
 * <pre>
 *  63          48 47          32 31          16 15           0
 * +--------------+--------------+--------------+--------------+
 * |    nX (16)   |  (unused)    |   maxX (16)  |  (unused)    |
 * +--------------+--------------+--------------+--------------+
 * </pre>
 *
 * {@code maxX} hands out tickets (+1 each), {@code nX} counts releases (now serving). Both are
 * changed by masked FAAs with a boundary at the top of every 16-bit field
 * ({@link #BOUNDARY_MASK}), so each counter wraps on its own and tickets compare modulo 2^16.
 */
final class SpilloverLayout {
    static final int MAX_X_SHIFT = 16;
    static final int N_X_SHIFT = 48;
    static final long COUNTER_MASK = 0xFFFF;
    static final long ONE_MAX_X = 1L << MAX_X_SHIFT;
    static final long ONE_N_X = 1L << N_X_SHIFT;
    static final long N_X_MASK = COUNTER_MASK << N_X_SHIFT;
    /** Top bit of each of the four 16-bit counters: a carry never crosses into the next field. */
    static final long BOUNDARY_MASK = (1L << 15) | (1L << 31) | (1L << 47) | (1L << 63);

    private SpilloverLayout() {
    }

    /** The next ticket to hand out. */
    static int maxX(long w) {
        return (int) ((w >>> MAX_X_SHIFT) & COUNTER_MASK);
    }

    /** The ticket now served. */
    static int nX(long w) {
        return (int) ((w >>> N_X_SHIFT) & COUNTER_MASK);
    }
}
