package io.lockfabric.net;

import io.lockfabric.fabric.Message;
import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.FrameHeaderLayout;
import io.lockfabric.net.wire.MalformedFrameException;
import io.lockfabric.net.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * The listening side of one endpoint's mailbox: accepts connections from other endpoints and
 * delivers the PEER_MESSAGE frames addressed to its endpoint; PEER_PING frames addressed to it are
 * read and dropped. A frame that does not decode, or is not a message or ping for this endpoint, closes that peer's connection (peers are never answered).
 * {@link #close()} closes the listener and every accepted connection, so senders see the endpoint
 * gone. Thread-safe.
 */
final class PeerListener {
    private static final Logger LOG = System.getLogger(PeerListener.class.getName());

    private final ChannelGroup accepted = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private volatile Channel channel;
    private volatile TcpMailbox mailbox;

    void bound(Channel listening) {
        this.channel = listening;
    }

    Channel channel() {
        return channel;
    }

    /** From now on, messages go to {@code box} (set once the memory node has named the endpoint). */
    void deliverTo(TcpMailbox box) {
        this.mailbox = box;
    }

    /** The handler of one accepted connection. */
    ChannelHandler newConnectionHandler(Channel child) {
        accepted.add(child);
        return new Inbound();
    }

    void close() {
        Channel c = channel;
        if (c != null) {
            c.close().syncUninterruptibly();
        }
        accepted.close().awaitUninterruptibly();
    }

    private final class Inbound extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
            TcpMailbox box = mailbox;
            String problem;
            if (in.readableBytes() < FrameHeaderLayout.HEADER_BYTES) {
                problem = "frame without a header";
            } else {
                try {
                    Frame f = WireCodec.decode(in);
                    if (f instanceof Frame.PeerMessage pm && box != null && pm.to() == box.id().pack()) {
                        Message m = pm.message();
                        box.deliver(m);
                        return;
                    }
                    if (f instanceof Frame.PeerPing ping && box != null && ping.to() == box.id().pack()) {
                        return; // a liveness probe: that it arrived on an open connection is all it says
                    }
                    problem = f.type() + " frame" + (f instanceof Frame.PeerMessage pm ? " for " + pm.to()
                            : f instanceof Frame.PeerPing ping ? " for " + ping.to() : "")
                            + " is not a message for " + (box == null ? "this endpoint" : box.id());
                } catch (MalformedFrameException e) {
                    problem = e.getMessage();
                }
            }
            LOG.log(Level.WARNING, "mailbox listener {0}: {1}; closing the connection from {2}", channel.localAddress(),
                    problem, ctx.channel().remoteAddress());
            ctx.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
