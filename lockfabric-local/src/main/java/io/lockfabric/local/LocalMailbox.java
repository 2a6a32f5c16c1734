package io.lockfabric.local;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.realtime.RealTimeMailbox;

/**
 * A mailbox of the local fabric: a send appends to the receiver's lock-free queue on the sender's
 * thread (and unparks the receiver if it waits); the owner drains its own.
 */
final class LocalMailbox extends RealTimeMailbox {
    private final LocalFabric fabric;
    private volatile boolean open = true;

    LocalMailbox(LocalFabric fabric, EndpointId id) {
        super(id);
        this.fabric = fabric;
    }

    @Override
    public void send(EndpointId to, int channel, int type, long lock, long a, long b) {
        liveTarget(to).deliver(new Message(id(), channel, type, lock, a, b));
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
    }

    @Override
    public void ping(EndpointId to) {
        liveTarget(to);
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
    }

    private LocalMailbox liveTarget(EndpointId to) {
        LocalMailbox target = fabric.mailbox(to);
        if (target == null || !target.open) {
            throw new PeerUnreachableException(to);
        }
        return target;
    }

    void close() {
        open = false;
    }
}
