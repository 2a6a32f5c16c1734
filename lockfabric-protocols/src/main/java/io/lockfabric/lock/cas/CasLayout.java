package io.lockfabric.lock.cas;

/**
 * The lock word of {@code cas} / {@code cas-nb}: one 64-bit word per lock, free iff its owner is 0.
 *
 * <pre>
 *  63                                          24 23                    0
 * +----------------------------------------------+-----------------------+
 * |                 epoch (40)                   |      owner (24)       |
 * +----------------------------------------------+-----------------------+
 * </pre>
 *
 * The owner is the holder's endpoint ordinal (never 0). The epoch counts releases: a holder
 * releases by swapping its {@link #held held word} for {@code (epoch + 1) << 24}, so the epoch seen
 * by the acquiring masked CAS is the grant's fencing token (it wraps after 2^40 grants).
 */
public final class CasLayout {
    public static final int WORD_BYTES = 8;
    public static final int OWNER_BITS = 24;
    public static final long OWNER_MASK = (1L << OWNER_BITS) - 1;
    public static final int EPOCH_SHIFT = OWNER_BITS;

    private CasLayout() {
    }

    public static long owner(long word) {
        return word & OWNER_MASK;
    }

    public static long epoch(long word) {
        return word >>> EPOCH_SHIFT;
    }

    /** The word while {@code owner} holds the grant at {@code epoch}. */
    public static long held(long epoch, long owner) {
        return (epoch << EPOCH_SHIFT) | owner;
    }

    /** The free word that follows a grant at {@code epoch}. */
    public static long releasedAfter(long epoch) {
        return (epoch + 1) << EPOCH_SHIFT;
    }

    public static long ownerField(int ordinal) {
        if (ordinal <= 0 || ordinal > OWNER_MASK) {
            throw new IllegalArgumentException("owner ordinal " + ordinal + " does not fit in " + OWNER_BITS + " bits");
        }
        return ordinal;
    }
}
