package io.lockfabric.lock.drtm;

/**
 * The lock word of {@code drtm} (DrTM, SOSP'15 §4.2) and the table's epoch word.
 *
 * <pre>
 *  63                                                      9 8          1  0
 * +---------------------------------------------------------+------------+--+
 * |            read-lease end (55): ns of cluster time      | owner (8)  |W |
 * +---------------------------------------------------------+------------+--+
 *  W = write-locked. Free: 0. Write-locked: W = 1, owner = writer, lease 0.
 *  Read-leased: W = 0, owner = 0, lease end > 0 (expired leases stay until overwritten).
 * </pre>
 *
 * <b>Cluster time</b>: a client's {@link io.lockfabric.fabric.Clock} minus the table's epoch base
 * ({@link #EPOCH_BYTES} bytes after the last lock word), agreed on by CAS when the first client
 * opens the table: base = its clock − {@link #EPOCH_SLACK_NS} (so that a later client whose clock
 * reads a little less never sees a negative time), with bit 0 set so the word is never 0 (0 =
 * not yet set). 55 bits of nanoseconds last 417 days from the epoch.
 *
 * <p><b>Owner</b>: the writer's endpoint ordinal folded into 1..255 ({@link #ownerOf}); ordinals
 * above 255 share owner values. The field is informational (debugging, dumps): a write lock is
 * released by its holder with a plain WRITE of 0 and no decision reads the owner.
 */
public final class DrTmLayout {
    public static final int WORD_BYTES = 8;
    public static final int EPOCH_BYTES = 8;
    public static final long WRITE_LOCKED = 1L;
    public static final int OWNER_SHIFT = 1;
    public static final int OWNER_BITS = 8;
    public static final long OWNER_MAX = (1L << OWNER_BITS) - 1;
    public static final long OWNER_MASK = OWNER_MAX << OWNER_SHIFT;
    public static final int LEASE_SHIFT = OWNER_SHIFT + OWNER_BITS;
    public static final int LEASE_BITS = Long.SIZE - LEASE_SHIFT;
    public static final long LEASE_MAX = (1L << LEASE_BITS) - 1;
    /** How far the epoch base lies before the creating client's clock. */
    public static final long EPOCH_SLACK_NS = 1_000_000_000L;

    private DrTmLayout() {
    }

    public static boolean writeLocked(long word) {
        return (word & WRITE_LOCKED) != 0;
    }

    public static long owner(long word) {
        return (word & OWNER_MASK) >>> OWNER_SHIFT;
    }

    public static long leaseEnd(long word) {
        return word >>> LEASE_SHIFT;
    }

    /** The word of a write lock held by {@code owner} (see {@link #ownerOf}). */
    public static long locked(long owner) {
        if (owner < 1 || owner > OWNER_MAX) {
            throw new IllegalArgumentException("owner " + owner + " outside [1, " + OWNER_MAX + "]");
        }
        return (owner << OWNER_SHIFT) | WRITE_LOCKED;
    }

    /** The word of a read lease ending at {@code end} ns of cluster time. */
    public static long lease(long end) {
        if (end < 1 || end > LEASE_MAX) {
            throw new IllegalArgumentException("lease end " + end + " outside [1, 2^" + LEASE_BITS + ")");
        }
        return end << LEASE_SHIFT;
    }

    /** An endpoint ordinal (>= 1) folded into the 8-bit owner field: 1..255, 256 → 1, ... */
    public static long ownerOf(int ordinal) {
        if (ordinal < 1) {
            throw new IllegalArgumentException("ordinal must be >= 1, got " + ordinal);
        }
        return (ordinal - 1) % OWNER_MAX + 1;
    }

    /** The epoch word for a base clock reading: never 0. */
    public static long epochWord(long baseNanos) {
        return baseNanos | 1;
    }
}
