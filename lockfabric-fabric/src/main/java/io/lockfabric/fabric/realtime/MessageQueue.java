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
    /** Yields of a platform-thread owner before it parks ({@link #awaitPlatform}); owner only. */
    private int yieldBudget = MAX_YIELDS;
    static final int PLATFORM_SPINS = BackoffIdleStrategy.DEFAULT_MAX_SPINS;
    static final int MAX_YIELDS = BackoffIdleStrategy.DEFAULT_MAX_YIELDS;

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
        Thread me = Thread.currentThread();
        waiter = me;
        try {
            return me.isVirtual() ? awaitVirtual(deadlineNanos) : awaitPlatform(deadlineNanos);
        } finally {
            waiter = null;
        }
    }

    /** The yields a platform-thread owner makes before it parks, now (tests). */
    int yieldBudget() {
        return yieldBudget;
    }

    private Message awaitVirtual(long deadlineNanos) {
        IdleStrategy idle = RealTimeClock.INSTANCE.idleStrategy();
        Message m;
        while ((m = queue.poll()) == null && System.nanoTime() < deadlineNanos) {
            WaitInterruptedException.throwIfInterrupted("a message");
            idle.idle();
        }
        return m;
    }

    /**
     * A platform thread spins, then yields up to {@link #yieldBudget} times, then parks until the
     * deadline (a delivery unparks it). The budget adapts: a message that came while the owner
     * still spun or yielded restores it; one that came only after it parked halves it. Where
     * messages come within microseconds (a sender in this JVM) a yield lets the sender run; where
     * they come late (a queue of waiters on a busy machine) yielding waiters stayed runnable beside
     * the one a handover had just woken, and delayed it.
     */
    private Message awaitPlatform(long deadlineNanos) {
        int spins = PLATFORM_SPINS;
        int yields = yieldBudget;
        boolean parked = false;
        Message m;
        while ((m = queue.poll()) == null) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            WaitInterruptedException.throwIfInterrupted("a message");
            if (spins > 0) {
                spins--;
                Thread.onSpinWait();
            } else if (yields > 0) {
                yields--;
                Thread.yield();
            } else {
                parked = true;
                LockSupport.parkNanos(left);
            }
        }
        yieldBudget = parked ? yieldBudget >> 1 : MAX_YIELDS;
        return m;
    }
}
