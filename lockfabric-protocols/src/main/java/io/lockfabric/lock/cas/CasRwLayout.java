package io.lockfabric.lock.cas;

/**
 * The lock word of {@code cas-rw} (DecLock's CASLock; the client-centric design of
 * {@code rdma-dlm-designs-report.txt}): an exclusive owner and a shared count in one word.
 *
 * <pre>
 *  63                 40 39                 16 15                0
 * +---------------------+---------------------+------------------+
 * |     owner (24)      |     epoch (24)      |   shared (16)    |
 * +---------------------+---------------------+------------------+
 * </pre>
 *
 * The owner is the exclusive holder's endpoint ordinal (0 = none); the shared count is the number
 * of readers holding or waiting (at most {@link #MAX_SHARED}); the epoch counts exclusive
 * releases and is the fencing token (it wraps after 2^24 exclusive grants). The three fields are
 * MFAA fields: {@link #BOUNDARIES} marks their top bits so an update of one never carries into
 * another.
 */
public final class CasRwLayout {
    public static final int WORD_BYTES = 8;
    public static final int SHARED_BITS = 16;
    public static final int EPOCH_SHIFT = 16;
    public static final int EPOCH_BITS = 24;
    public static final int OWNER_SHIFT = 40;
    public static final int OWNER_BITS = 24;
    public static final long SHARED_MASK = (1L << SHARED_BITS) - 1;
    public static final long EPOCH_MASK = ((1L << EPOCH_BITS) - 1) << EPOCH_SHIFT;
    public static final long OWNER_MASK = ((1L << OWNER_BITS) - 1) << OWNER_SHIFT;
    public static final long MAX_SHARED = SHARED_MASK - 1;
    /** MFAA boundary mask: the top bit of shared (15), epoch (39) and owner (63). */
    public static final long BOUNDARIES = (1L << 15) | (1L << 39) | (1L << 63);
    /** FAA delta of one reader. */
    public static final long ONE_READER = 1;

    private CasRwLayout() {
    }

    public static long owner(long word) {
        return (word & OWNER_MASK) >>> OWNER_SHIFT;
    }

    public static long epoch(long word) {
        return (word & EPOCH_MASK) >>> EPOCH_SHIFT;
    }

    public static long shared(long word) {
        return word & SHARED_MASK;
    }

    public static long ownerField(int ordinal) {
        if (ordinal <= 0 || ordinal >= (1 << OWNER_BITS)) {
            throw new IllegalArgumentException("owner ordinal " + ordinal + " does not fit in " + OWNER_BITS + " bits");
        }
        return (long) ordinal << OWNER_SHIFT;
    }

    /** The MFAA add that clears owner {@code ownerField} and advances the epoch by one. */
    public static long exclusiveReleaseAdd(long ownerField) {
        return ((-ownerField) & OWNER_MASK) | (1L << EPOCH_SHIFT);
    }
}
