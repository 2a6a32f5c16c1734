package io.lockfabric.net;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.realtime.RealTimeMailbox;
import io.lockfabric.net.wire.Frame;
import io.netty.channel.Channel;


/**
 * A mailbox of the tcp fabric. Sending writes one PEER_MESSAGE frame on a connection straight to
 * the receiver's listener ({@link TcpFabric#peerChannel}, made on first use and cached) through its
 * {@link Outbox} (messages of concurrent senders share a system call) and does not wait; a peer known to be gone fails the send at once with {@link PeerUnreachableException}. A
 * ping is a PEER_PING frame on the same connection, which the receiver's listener drops.
 * Messages arriving at this endpoint's listener are queued by the I/O thread, which unparks an
 * owner waiting in {@link #await}.
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
        Channel peer = fabric.peerChannel(to, link);
        Message m = new Message(id(), channel, type, lock, a, b);
        Outbox.of(peer).send(new Frame.PeerMessage(to.pack(), m));
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
        fabric.recordSent(id(), to, type);
    }

    /** One PEER_PING frame on the same connection a send would use; the receiver's listener drops it. */
    @Override
    public void ping(EndpointId to) {
        Channel peer = fabric.peerChannel(to, link);
        Outbox.of(peer).send(new Frame.PeerPing(to.pack(), id().pack()));
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
    }
}
