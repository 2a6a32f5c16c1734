package io.lockfabric.lock.declock;

/**
 * The client-to-client messages of CQL, all on the table's {@link io.lockfabric.lock.Inbox} channel.
 *
 * <pre>
 * type     key (lock field)   a                          b
 * GRANT    lock               fencing token of the grant  earliest remote waiter's timestamp (0: none)
 * SIGNAL   CONTROL            lock being reset            reset count (RSTCNT) being reset
 * ACK      lock               reset count acknowledged    0
 * DONE     lock               the lock's new reset count  0
 * LOCAL    lock               0                           0      (intra-CN: look at your local wait state)
 * </pre>
 *
 * A GRANT's token names the attempt it is for (reset count and queue index), so a grant from
 * before a reset, or for an earlier attempt, never matches the attempt waiting now: stale grants
 * are dropped. SIGNALs go to the control key because every registered client must answer them,
 * whatever lock it is waiting for or none.
 */
final class CqlMessages {
    static final int GRANT = 1;
    static final int SIGNAL = 2;
    static final int ACK = 3;
    static final int DONE = 4;
    static final int LOCAL = 5;
    /** The Inbox key of reset signals (lock ids are never negative). */
    static final long CONTROL = -1;

    private CqlMessages() {
    }
}
