package io.lockfabric.lock.mcs;

import io.lockfabric.fabric.EndpointId;

/**
 * The lock word of {@code mcs} and its two messages.
 *
 * <pre>
 *  63                    40 39                                              0
 * +------------------------+-------------------------------------------------+
 * |  release count (24)    |       tail: packed EndpointId (40), 0 = null    |
 * +------------------------+-------------------------------------------------+
 * </pre>
 *
 * <b>Tail encoding.</b> The tail is the last waiter's {@link EndpointId} in its packed 40-bit form
 * (16-bit node, 24-bit queue number; never 0, so 0 is "no tail"). A successor that swaps itself in
 * unpacks its predecessor's mailbox address straight from the old word: no directory, no lookup
 * verb. {@link io.lockfabric.fabric.Endpoint#ordinal()} (24 bits) would be narrower but the SPI
 * offers no ordinal → address lookup, and a directory in remote memory would cost a READ on the
 * contended path; the 24 bits left over hold the release count instead.
 *
 * <p><b>Release count.</b> The fencing token of the next holder that finds the queue empty. A
 * holder with token {@code t} that empties the queue (CAS tail me → 0) writes {@code t + 1} in the
 * same CAS; one that hands over sends {@code t + 1} in the {@code Handover} message. The field
 * changes only in that CAS, whose compare needs the tail to be the releaser, so it stays what a
 * waiter's fetch-and-store returned until that waiter itself releases. It wraps after 2^24 grants
 * that empty the queue.
 *
 * <p><b>Messages</b> (channel: the table's, {@link io.lockfabric.lock.Inbox#channelOf}); {@code lock} is the lock
 * id:
 * <ul>
 * <li>{@link #SUCCESSOR}: from the new tail to its predecessor, "I am behind you"; no payload
 * (the sender is the successor).</li>
 * <li>{@link #HANDOVER}: from the holder to its successor, "the lock is yours"; {@code a} = the
 * successor's fencing token.</li>
 * </ul>
 */
public final class McsLayout {
    public static final int WORD_BYTES = 8;
    public static final int TAIL_BITS = EndpointId.PACKED_BITS;
    public static final long TAIL_MASK = EndpointId.PACKED_MASK;
    public static final int COUNT_SHIFT = TAIL_BITS;
    public static final int COUNT_BITS = Long.SIZE - TAIL_BITS;
    public static final long COUNT_MASK = (1L << COUNT_BITS) - 1;

    public static final int SUCCESSOR = 1;
    public static final int HANDOVER = 2;

    private McsLayout() {
    }

    /** The packed tail, 0 if the queue is empty. */
    public static long tail(long word) {
        return word & TAIL_MASK;
    }

    /** The tail's endpoint, or null if the queue is empty. */
    public static EndpointId tailEndpoint(long word) {
        return EndpointId.unpack(tail(word));
    }

    public static long count(long word) {
        return word >>> COUNT_SHIFT;
    }

    public static long word(long count, long tail) {
        if ((tail & ~TAIL_MASK) != 0) {
            throw new IllegalArgumentException("not a packed tail: 0x" + Long.toHexString(tail));
        }
        return ((count & COUNT_MASK) << COUNT_SHIFT) | tail;
    }
}
