package io.lockfabric.lock.shiftlock;

/**
 * The client-to-client messages of ShiftLock, carried in a {@link io.lockfabric.fabric.Message}'s
 * {@code type}, {@code lock}, {@code a} and {@code b} on the table's channel ({@link #channel}).
 * The sender's address is the message's {@code from}.
 *
 * <pre>
 * Successor   (predecessor ← new tail)  a = RelCnt the sender's enqueue saw   b = sender's attempt
 * Handover    (holder → successor)      a = curRelCnt                         b = grant word
 * ModeChanged (holder → successor)      a = expectedRelCnt                    b = grant word
 * Reask       (predecessor ← waiter)    a = lock id                           b = sender's attempt
 *             lock = {@link #CONTROL}
 *
 * grant word:
 *  63                          32 31                              1   0
 * +------------------------------+--------------------------------+---+
 * |  successor's attempt (32)    |          consWrt (31)          | E |
 * +------------------------------+--------------------------------+---+
 * </pre>
 *
 * An <em>attempt</em> number is the successor's own count of its enqueues, echoed back so a
 * Handover meant for an attempt it abandoned (after a recovery) is never taken as a grant. The
 * RelCnt in a Successor lets the predecessor tell a Successor meant for its current enqueue from
 * one delayed from an earlier one (see {@link ShiftLockClient}). E is the epoch the receiver holds
 * the lock in (the artifact's Handover carries it too: an epoch flip may have happened since the
 * receiver enqueued).
 *
 * <p>A <em>Reask</em> is sent by a waiter that has seen no release of its lock for half a lease
 * (see {@link ShiftLockClient}): "did you hand me the lock?". It travels on the {@link #CONTROL}
 * key of the channel rather than the lock's, because its receiver has usually released that lock
 * and looks at the lock's own key only when it enqueues there again.
 */
public final class ShiftLockMessages {
    public static final int SUCCESSOR = 2;
    public static final int HANDOVER = 0;
    public static final int MODE_CHANGED = 1;
    public static final int REASK = 3;
    /** The message key (in place of a lock id) of Reask messages. */
    public static final long CONTROL = -1;

    public static final int ATTEMPT_SHIFT = 32;
    public static final int CONS_WRT_SHIFT = 1;
    public static final long EPOCH_MASK = 1;
    /** consWrt saturates here (with an infinite threshold it would otherwise overflow its field). */
    public static final long CONS_WRT_MAX = (1L << (ATTEMPT_SHIFT - CONS_WRT_SHIFT)) - 1;
    private static final long ATTEMPT_MASK = 0xFFFF_FFFFL;

    private ShiftLockMessages() {
    }


    public static long grantWord(int attempt, long consWrt, int epoch) {
        long c = Math.min(consWrt, CONS_WRT_MAX);
        return ((attempt & ATTEMPT_MASK) << ATTEMPT_SHIFT) | (c << CONS_WRT_SHIFT) | (epoch & EPOCH_MASK);
    }

    public static int attempt(long grantWord) {
        return (int) (grantWord >>> ATTEMPT_SHIFT);
    }

    public static long consWrt(long grantWord) {
        return (grantWord >>> CONS_WRT_SHIFT) & CONS_WRT_MAX;
    }

    public static int epoch(long grantWord) {
        return (int) (grantWord & EPOCH_MASK);
    }
}
