package io.lockfabric.local;

import io.lockfabric.fabric.realtime.MessageQueue;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Counters;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.VerbKind;


/**
 * A mailbox of the local fabric: a lock-free queue that any thread appends to and the owner
 * drains. A waiting owner that has gone as far as parking is unparked by the sender.
 */
final class LocalMailbox implements Mailbox {
    private final LocalFabric fabric;
    private final EndpointId id;
    private final Counters counters = new Counters();
    private final MessageQueue inbox = new MessageQueue();
    private volatile boolean open = true;

    LocalMailbox(LocalFabric fabric, EndpointId id) {
        this.fabric = fabric;
        this.id = id;
    }

    @Override
    public EndpointId id() {
        return id;
    }

    @Override
    public void send(EndpointId to, int channel, int type, long lock, long a, long b) {
        LocalMailbox target = fabric.mailbox(to);
        if (target == null || !target.open) {
            throw new PeerUnreachableException(to);
        }
        target.deliver(new Message(id, channel, type, lock, a, b));
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
    }

    @Override
    public void ping(EndpointId to) {
        LocalMailbox target = fabric.mailbox(to);
        if (target == null || !target.open) {
            throw new PeerUnreachableException(to);
        }
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
    }

    private void deliver(Message m) {
        inbox.deliver(m);
    }

    @Override
    public Message poll() {
        return inbox.poll();
    }

    @Override
    public Message await(long deadlineNanos) {
        return inbox.await(deadlineNanos);
    }

    CounterSnapshot counters() {
        return counters.snapshot();
    }

    void close() {
        open = false;
    }
}
