package io.lockfabric.lock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Table;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One endpoint's lock messages, sorted by (channel, lock): the one place where every lock client
 * of an endpoint reads its {@link Mailbox}. A client waits for a particular message (a grant for
 * its attempt on one lock, a successor's notice for the lock it releases); whatever else arrives
 * meanwhile (for other locks, for other tables or protocols of the same endpoint, or early) is kept
 * here until its own waiter looks for it (ShiftLock's "notifications buffered and processed later
 * when needed", §3.2). No message is lost whichever client reads the mailbox, because they all
 * read it through this inbox.
 *
 * <p>A protocol's messages use its table's channel ({@link #channelOf}), so tables and protocols
 * sharing an endpoint never see each other's messages. Found through {@link #of}; used by the
 * endpoint's thread only, like the mailbox.
 *
 * <p>The inbox is the endpoint's own state, kept in its {@link Endpoint#attachments()}: it lives
 * and dies with the endpoint. It stays in the lock SPI rather than the fabric's because sorting by
 * (channel, lock) and keeping what nobody waits for yet is a policy of the lock clients (a fabric
 * delivers messages; it has no notion of who waits for which); the fabric needs only the generic
 * per-endpoint seam.
 */
public final class Inbox {
    private static final int REGION_BITS = Integer.SIZE - Integer.numberOfLeadingZeros(RemoteAddress.MAX_REGION);
    private static final Runnable NOTHING = () -> {
    };

    private final Mailbox mailbox;
    private final Map<Key, ArrayDeque<Message>> buffered = new HashMap<>();

    private record Key(int channel, long lock) {
    }

    private Inbox(Mailbox mailbox) {
        this.mailbox = mailbox;
    }

    /** The inbox of {@code endpoint}'s mailbox, shared by every lock client of the endpoint. */
    public static Inbox of(Endpoint endpoint) {
        return endpoint.attachments().computeIfAbsent(Inbox.class, () -> new Inbox(endpoint.mailbox()));
    }

    /**
     * The message channel of a table: its memory node and region id, unique in the fabric (a
     * table's region id is unique on its memory node).
     *
     * @throws IllegalArgumentException if the memory node does not fit beside the region bits
     */
    public static int channelOf(Table table) {
        if (table.memoryNode() >= 1 << (Integer.SIZE - 1 - REGION_BITS)) {
            throw new IllegalArgumentException("memory node " + table.memoryNode() + " too large for a message channel");
        }
        return (table.memoryNode() << REGION_BITS) | table.service();
    }

    /** Moves everything that has arrived into the buffers (no remote operation). */
    public void drain() {
        Mailbox box = mailbox;
        for (Message m = box.poll(); m != null; m = box.poll()) {
            keep(m);
        }
    }

    /** Removes and returns the first buffered message of (channel, lock) that {@code wanted} accepts. */
    public Message take(int channel, long lock, Predicate<Message> wanted) {
        if (buffered.isEmpty()) {
            return null; // the usual case: no key is made to look up nothing
        }
        ArrayDeque<Message> q = buffered.get(new Key(channel, lock));
        if (q == null) {
            return null;
        }
        for (Iterator<Message> it = q.iterator(); it.hasNext(); ) {
            Message m = it.next();
            if (wanted.test(m)) {
                it.remove();
                if (q.isEmpty()) {
                    buffered.remove(new Key(channel, lock));
                }
                return m;
            }
        }
        return null;
    }

    /**
     * The first message of (channel, lock) that {@code wanted} accepts, waiting for it until
     * {@code deadlineNanos} on the endpoint's clock; null if none came by then.
     */
    public Message await(int channel, long lock, Predicate<Message> wanted, long deadlineNanos) {
        return await(channel, lock, wanted, deadlineNanos, NOTHING);
    }

    /**
     * As {@link #await(int, long, Predicate, long)}, but runs {@code meanwhile} once the mailbox
     * has been drained and then after every other message that arrives during the wait (kept
     * here), so a waiter can serve another key of its own (a control key) without waiting out
     * its deadline first.
     */
    public Message await(int channel, long lock, Predicate<Message> wanted, long deadlineNanos, Runnable meanwhile) {
        drain();
        meanwhile.run();
        while (true) {
            Message m = take(channel, lock, wanted);
            if (m != null) {
                return m;
            }
            Message next = mailbox.await(deadlineNanos);
            if (next == null) {
                return null;
            }
            keep(next);
            meanwhile.run();
        }
    }

    /** Drops the buffered messages of (channel, lock) that {@code stale} accepts. */
    public void discard(int channel, long lock, Predicate<Message> stale) {
        if (buffered.isEmpty()) {
            return;
        }
        ArrayDeque<Message> q = buffered.get(new Key(channel, lock));
        if (q != null) {
            q.removeIf(stale);
            if (q.isEmpty()) {
                buffered.remove(new Key(channel, lock));
            }
        }
    }

    /** Messages buffered in all (for tests and diagnostics). */
    public int size() {
        return buffered.values().stream().mapToInt(ArrayDeque::size).sum();
    }

    private void keep(Message m) {
        buffered.computeIfAbsent(new Key(m.channel(), m.lock()), k -> new ArrayDeque<>()).add(m);
    }
}
