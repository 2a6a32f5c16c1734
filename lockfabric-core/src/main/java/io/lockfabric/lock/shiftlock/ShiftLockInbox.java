package io.lockfabric.lock.shiftlock;

import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.Message;

import java.lang.ref.WeakReference;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Predicate;

/**
 * One endpoint's ShiftLock messages, sorted by (channel, lock). A client waits for a particular
 * message (a Handover for its attempt on one lock, a Successor for the lock it releases); whatever
 * else arrives meanwhile (for other locks, other tables of the same endpoint, or early) is kept
 * here until its own waiter looks for it (the paper's "notifications buffered and processed later
 * when needed", §3.2). Shared by every ShiftLock client of one endpoint, hence found through
 * {@link #of}; used by the endpoint's thread only, like the mailbox.
 */
final class ShiftLockInbox {
    private static final Map<Mailbox, ShiftLockInbox> INBOXES = new WeakHashMap<>();

    /** The mailbox, weakly: the registry's value must not keep its own key alive. */
    private final WeakReference<Mailbox> mailbox;
    private final Map<Key, ArrayDeque<Message>> buffered = new HashMap<>();

    private record Key(int channel, long lock) {
    }

    private ShiftLockInbox(Mailbox mailbox) {
        this.mailbox = new WeakReference<>(mailbox);
    }

    static ShiftLockInbox of(Mailbox mailbox) {
        synchronized (INBOXES) {
            return INBOXES.computeIfAbsent(mailbox, ShiftLockInbox::new);
        }
    }

    /** Moves everything that has arrived into the buffers (no remote operation). */
    void drain() {
        Mailbox box = mailbox();
        for (Message m = box.poll(); m != null; m = box.poll()) {
            keep(m);
        }
    }

    /** Removes and returns the first buffered message of (channel, lock) that {@code wanted} accepts. */
    Message take(int channel, long lock, Predicate<Message> wanted) {
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
    Message await(int channel, long lock, Predicate<Message> wanted, long deadlineNanos) {
        drain();
        while (true) {
            Message m = take(channel, lock, wanted);
            if (m != null) {
                return m;
            }
            Message next = mailbox().await(deadlineNanos);
            if (next == null) {
                return null;
            }
            keep(next);
        }
    }

    /** Drops the buffered messages of (channel, lock) that {@code stale} accepts. */
    void discard(int channel, long lock, Predicate<Message> stale) {
        ArrayDeque<Message> q = buffered.get(new Key(channel, lock));
        if (q != null) {
            q.removeIf(stale);
            if (q.isEmpty()) {
                buffered.remove(new Key(channel, lock));
            }
        }
    }

    /** Messages buffered in all, for tests. */
    int size() {
        return buffered.values().stream().mapToInt(ArrayDeque::size).sum();
    }

    private Mailbox mailbox() {
        Mailbox box = mailbox.get();
        if (box == null) {
            throw new IllegalStateException("the mailbox of this inbox is gone");
        }
        return box;
    }

    private void keep(Message m) {
        buffered.computeIfAbsent(new Key(m.channel(), m.lock()), k -> new ArrayDeque<>()).add(m);
    }
}
