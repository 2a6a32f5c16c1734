package io.lockfabric.net;

import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.MalformedFrameException;
import io.lockfabric.net.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

import java.net.InetSocketAddress;

/**
 * A {@link ServerLink} on a Netty channel (the TLS connections): requests leave through the
 * channel's {@link Outbox}, replies are read by the channel's I/O thread, which wakes their waiters.
 */
final class NettyServerLink extends ServerLink {
    private final Handler handler = new Handler();
    private volatile Channel channel;
    private volatile Outbox outbox;

    NettyServerLink(String server) {
        super(server);
    }

    /** The handler to put last in the channel's pipeline. */
    Handler handler() {
        return handler;
    }

    void attach(Channel channel) {
        this.outbox = Outbox.of(channel);
        this.channel = channel;
    }

    @Override
    InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    void closeByOwner() {
        closing = true;
        Channel ch = channel;
        if (ch != null) {
            ch.close().syncUninterruptibly();
        }
    }

    @Override
    void sever() {
        channel.close().syncUninterruptibly();
    }

    @Override
    void transmit(Frame request, Waiter w) {
        outbox.send(request);
    }

    /** Reads the replies on the I/O thread. */
    final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
            Frame f;
            try {
                f = WireCodec.decode(in);
            } catch (MalformedFrameException e) {
                // the server spoke garbage: nothing on this connection can be trusted any more
                fail("malformed reply: " + e.getMessage());
                ctx.close();
                return;
            }
            deliver(f);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            fail("connection closed");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(cause.toString());
            ctx.close();
        }
    }
}
