package io.lockfabric.fabric.realtime;

import io.lockfabric.fabric.CountingMailbox;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Message;

/**
 * The receiving side and the counting that the real-time fabrics' mailboxes share: messages land
 * in a {@link MessageQueue} from any thread (a sender in this JVM, an I/O thread), the owner
 * drains it, and an owner waiting in {@link #await} on the JVM's clock is woken by the next
 * delivery. A fabric adds how a send reaches the receiver's {@link #deliver}.
 */
public abstract class RealTimeMailbox extends CountingMailbox {
    private final MessageQueue inbox = new MessageQueue();

    protected RealTimeMailbox(EndpointId id) {
        super(id);
    }

    /** Queues {@code m} for the owner and wakes it if it waits. Any thread. */
    public final void deliver(Message m) {
        inbox.deliver(m);
    }

    @Override
    public final Message poll() {
        return inbox.poll();
    }

    /**
     * Waits until {@code deadlineNanos} on {@link RealTimeClock} (the JVM's monotonic clock).
     *
     * @throws io.lockfabric.fabric.WaitInterruptedException if the owner is interrupted while it waits
     */
    @Override
    public final Message await(long deadlineNanos) {
        return inbox.await(deadlineNanos);
    }
}
