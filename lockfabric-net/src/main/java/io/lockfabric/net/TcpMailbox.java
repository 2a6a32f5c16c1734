package io.lockfabric.net;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.realtime.RealTimeMailbox;
import io.lockfabric.net.wire.Frame;


/**
 * A mailbox of the tcp fabric. A message to an endpoint of another fabric (another process, or
 * another compute node in this JVM) is one PEER_MESSAGE frame on a connection straight to the
 * receiver's listener ({@link TcpFabric#peerChannel}, made on first use and cached), written
 * through its {@link Outbox} (messages of concurrent senders share a system call); the send does
 * not wait. A message to an open endpoint of the same fabric (the same compute node) is queued in
 * its mailbox directly ({@link TcpFabric#deliverHere}), as a NIC loops a send between two queue
 * pairs of one host back without the network: no frame, no system call, and still in order per
 * sender and receiver, since every message between the two takes that way. A peer known to be
 * gone (closed here, or its connection lost) fails the send at once with
 * {@link PeerUnreachableException}. A ping is a PEER_PING frame on the same connection, which the
 * receiver's listener drops; to an open endpoint of this fabric it is answered here. Messages
 * arriving at this endpoint's listener are queued by the I/O thread, which unparks an owner
 * waiting in {@link #await}.
 */
final class TcpMailbox extends RealTimeMailbox {
    private final TcpFabric fabric;
    private final ServerLink link;

    TcpMailbox(TcpFabric fabric, EndpointId id, ServerLink link) {
        super(id);
        this.fabric = fabric;
        this.link = link;
    }

    @Override
    public void send(EndpointId to, int channel, int type, long lock, long a, long b) {
        Message m = new Message(id(), channel, type, lock, a, b);
        if (!fabric.deliverHere(to, m)) {
            Outbox.of(fabric.peerChannel(to, link)).send(new Frame.PeerMessage(to.pack(), m));
        }
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
        fabric.recordSent(id(), to, type);
    }

    /** One PEER_PING frame on the same connection a send would use (the receiver's listener drops it), or nothing to an open endpoint of this fabric. */
    @Override
    public void ping(EndpointId to) {
        if (!fabric.isOpenHere(to)) {
            Outbox.of(fabric.peerChannel(to, link)).send(new Frame.PeerPing(to.pack(), id().pack()));
        }
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
    }
}
