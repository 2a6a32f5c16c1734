package io.lockfabric.lock.dslr;

/**
 * DSLR's lock word (Yoon et al., SIGMOD'18): a bakery reader-writer lock of four 16-bit counters.
 *
 * <pre>
 *  63          48 47          32 31          16 15           0
 * +--------------+--------------+--------------+--------------+
 * |    nX (16)   |    nS (16)   |   maxX (16)  |   maxS (16)  |
 * +--------------+--------------+--------------+--------------+
 * </pre>
 *
 * {@code maxX}/{@code maxS} hand out exclusive/shared tickets (FAA +1); {@code nX}/{@code nS}
 * count exclusive/shared releases (now serving). Counters stay below 2^16: a counter reaching
 * {@code countMax} (at most {@link #COUNT_MAX}) starts an overflow reset, and later increments are
 * undone at once, so a counter never exceeds {@code countMax} + the number of clients.
 */
public final class DslrLayout {
    public static final int WORD_BYTES = 8;
    public static final int MAX_S_SHIFT = 0;
    public static final int MAX_X_SHIFT = 16;
    public static final int N_S_SHIFT = 32;
    public static final int N_X_SHIFT = 48;
    public static final long COUNTER_MASK = 0xFFFF;
    /** DSLR's COUNT_MAX: the ticket count at which the lock is reset. */
    public static final int COUNT_MAX = 32768;

    public static final long ONE_MAX_S = 1L << MAX_S_SHIFT;
    public static final long ONE_MAX_X = 1L << MAX_X_SHIFT;
    public static final long ONE_N_S = 1L << N_S_SHIFT;
    public static final long ONE_N_X = 1L << N_X_SHIFT;

    public static final long MAX_S_MASK = COUNTER_MASK << MAX_S_SHIFT;
    public static final long MAX_X_MASK = COUNTER_MASK << MAX_X_SHIFT;
    public static final long N_S_MASK = COUNTER_MASK << N_S_SHIFT;
    public static final long N_X_MASK = COUNTER_MASK << N_X_SHIFT;
    /** The two now-serving counters: what a lease reset watches and rewrites. */
    public static final long SERVING_MASK = N_X_MASK | N_S_MASK;

    private DslrLayout() {
    }

    public static int maxS(long w) {
        return (int) ((w >>> MAX_S_SHIFT) & COUNTER_MASK);
    }

    public static int maxX(long w) {
        return (int) ((w >>> MAX_X_SHIFT) & COUNTER_MASK);
    }

    public static int nS(long w) {
        return (int) ((w >>> N_S_SHIFT) & COUNTER_MASK);
    }

    public static int nX(long w) {
        return (int) ((w >>> N_X_SHIFT) & COUNTER_MASK);
    }

    /** {@code w} with nX replaced (the other three counters kept). */
    public static long withNX(long w, int nX) {
        return (w & ~N_X_MASK) | (((long) nX & COUNTER_MASK) << N_X_SHIFT);
    }

    /** {@code w} with nS replaced (the other three counters kept). */
    public static long withNS(long w, int nS) {
        return (w & ~N_S_MASK) | (((long) nS & COUNTER_MASK) << N_S_SHIFT);
    }

    public static long word(int nX, int nS, int maxX, int maxS) {
        return ((long) nX << N_X_SHIFT) | ((long) nS << N_S_SHIFT) | ((long) maxX << MAX_X_SHIFT)
                | ((long) maxS << MAX_S_SHIFT);
    }
}
