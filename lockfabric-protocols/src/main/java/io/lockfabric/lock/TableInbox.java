package io.lockfabric.lock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.Table;

/**
 * The messages of one lock table as seen by one client: a view of its endpoint's {@link Inbox} on
 * the table's channel, matching messages by {@code (type, lock)}. A client that holds several locks
 * may receive a {@code Successor} for one while it waits for a {@code Handover} of another; the
 * inbox keeps the former until it releases that lock.
 *
 * <p>Used by the queue locks that hand over by SEND ({@code mcs}, {@code rmarw}); in the lock SPI so
 * that neither protocol package imports the other. Not thread-safe
 * beyond what the endpoint is: one thread at a time.
 */
public final class TableInbox {
    private final Mailbox mailbox;
    private final Inbox inbox;
    private final int channel;

    public TableInbox(Endpoint endpoint, Table table) {
        this.mailbox = endpoint.mailbox();
        this.inbox = Inbox.of(endpoint);
        this.channel = Inbox.channelOf(table);
    }

    public int channel() {
        return channel;
    }

    /** Sends a message of this table's channel. */
    public void send(EndpointId to, int type, long lock, long a, long b) {
        mailbox.send(to, channel, type, lock, a, b);
    }

    /** A message of {@code type} about {@code lock} that has already arrived, or null. */
    public Message take(int type, long lock) {
        inbox.drain();
        return inbox.take(channel, lock, m -> m.type() == type);
    }

    /**
     * Waits for a message of {@code type} about {@code lock} (any of {@code types} if more than
     * one); other messages are kept for later. No fault tolerance in these baselines: a dead
     * predecessor or successor means waiting forever.
     */
    public Message await(long lock, int... types) {
        return inbox.await(channel, lock, m -> isOneOf(m.type(), types), Long.MAX_VALUE);
    }

    private static boolean isOneOf(int type, int[] types) {
        for (int t : types) {
            if (t == type) {
                return true;
            }
        }
        return false;
    }
}
