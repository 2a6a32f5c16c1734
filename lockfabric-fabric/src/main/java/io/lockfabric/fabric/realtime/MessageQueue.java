package io.lockfabric.fabric.realtime;

import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.WaitInterruptedException;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The receiving side of a real-time mailbox: a lock-free queue that any thread (a sender, an I/O
 * thread) appends to and one owner thread drains. An owner waiting in {@link #await} that has gone
 * as far as parking is unparked by the next delivery, and gives up with
 * {@link WaitInterruptedException} if its thread is interrupted. Used by the
 * local and tcp fabrics.
 */
public final class MessageQueue {
    private final ConcurrentLinkedQueue<Message> queue = new ConcurrentLinkedQueue<>();
    private volatile Thread waiter;

    /** Appends {@code m} and wakes the owner if it waits. Any thread. */
    public void deliver(Message m) {
        queue.add(m);
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** The oldest message, or null. Owner only. */
    public Message poll() {
        return queue.poll();
    }

    /**
     * The oldest message, waiting for one until {@code deadlineNanos} ({@link System#nanoTime}); null
     * if none came. Owner only.
     *
     * @throws WaitInterruptedException if the owner is interrupted while it waits
     */
    public Message await(long deadlineNanos) {
        Message m = queue.poll();
        if (m != null) {
            return m;
        }
        IdleStrategy idle = RealTimeClock.INSTANCE.idleStrategy();
        waiter = Thread.currentThread();
        try {
            while ((m = queue.poll()) == null && System.nanoTime() < deadlineNanos) {
                WaitInterruptedException.throwIfInterrupted("a message");
                idle.idle();
            }
            return m;
        } finally {
            waiter = null;
        }
    }
}
