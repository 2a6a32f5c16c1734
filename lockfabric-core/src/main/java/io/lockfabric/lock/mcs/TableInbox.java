package io.lockfabric.lock.mcs;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Table;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The messages of one lock table as seen by one client: a filter over its endpoint's
 * {@link Mailbox} for the table's channel ({@link #channelOf}), with a buffer of messages that
 * arrived before they were wanted.
 *
 * <p>A mailbox is shared by every lock client of its endpoint. Reading it, a client may take a
 * message meant for another table's client; such messages are parked in a per-mailbox map of
 * channel queues that every {@code TableInbox} of that mailbox drains first, so no message is lost
 * whichever client reads it. Within the table, messages are matched by {@code (type, lock)}: a
 * client that holds several locks may receive a {@code Successor} for one while it waits for a
 * {@code Handover} of another, and keeps the former until it releases that lock.
 *
 * <p>Used by the queue locks that hand over by SEND ({@code mcs}, {@code rmarw}). Not thread-safe
 * beyond what the endpoint is: one thread at a time.
 */
public final class TableInbox {
    /** Messages taken from a mailbox by the client of another channel, per mailbox and channel. */
    private static final Map<Mailbox, Map<Integer, ArrayDeque<Message>>> PARKED =
            Collections.synchronizedMap(new WeakHashMap<>());

    private final Mailbox mailbox;
    private final int channel;
    private final Map<Integer, ArrayDeque<Message>> parked;
    /** This table's messages that arrived while another (type, lock) was awaited. */
    private final List<Message> early = new ArrayList<>();

    public TableInbox(Mailbox mailbox, Table table) {
        this.mailbox = mailbox;
        this.channel = channelOf(table);
        this.parked = PARKED.computeIfAbsent(mailbox, m -> new HashMap<>());
    }

    /**
     * The message channel of a table: its memory node and region id, unique in the fabric (a
     * table's region id is unique on its memory node).
     */
    public static int channelOf(Table table) {
        int regionBits = Integer.SIZE - Integer.numberOfLeadingZeros(RemoteAddress.MAX_REGION);
        if (table.memoryNode() >= 1 << (Integer.SIZE - 1 - regionBits)) {
            throw new IllegalArgumentException("memory node " + table.memoryNode() + " too large for a message channel");
        }
        return (table.memoryNode() << regionBits) | table.service();
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
        Message m = takeEarly(type, lock);
        if (m != null) {
            return m;
        }
        drain();
        return takeEarly(type, lock);
    }

    /**
     * Waits for a message of {@code type} about {@code lock} (any of {@code types} if more than
     * one); other messages of this table are kept for later.
     */
    public Message await(long lock, int... types) {
        while (true) {
            drain();
            for (int type : types) {
                Message m = takeEarly(type, lock);
                if (m != null) {
                    return m;
                }
            }
            // No fault tolerance in these baselines: a dead predecessor or successor means forever.
            Message m = mailbox.await(Long.MAX_VALUE);
            if (m != null) {
                dispatch(m);
            }
        }
    }

    /** Moves this channel's parked messages and everything the mailbox holds into the buffers. */
    private void drain() {
        synchronized (parked) {
            ArrayDeque<Message> mine = parked.get(channel);
            while (mine != null && !mine.isEmpty()) {
                early.add(mine.poll());
            }
        }
        Message m;
        while ((m = mailbox.poll()) != null) {
            dispatch(m);
        }
    }

    private void dispatch(Message m) {
        if (m.channel() == channel) {
            early.add(m);
            return;
        }
        synchronized (parked) {
            parked.computeIfAbsent(m.channel(), c -> new ArrayDeque<>()).add(m);
        }
    }

    private Message takeEarly(int type, long lock) {
        for (Iterator<Message> it = early.iterator(); it.hasNext(); ) {
            Message m = it.next();
            if (m.type() == type && m.lock() == lock) {
                it.remove();
                return m;
            }
        }
        return null;
    }
}
