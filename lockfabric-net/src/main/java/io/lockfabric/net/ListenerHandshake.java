package io.lockfabric.net;

import io.lockfabric.net.wire.ErrorCode;
import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.HandshakeLayout;
import io.lockfabric.net.wire.MalformedFrameException;
import io.lockfabric.net.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * The listening side of a connection's opening ({@link HandshakeLayout}): sends the CHALLENGE as
 * soon as the connection is up, checks the AUTH that answers it (wire version; the proof of the
 * shared secret, if this listener has one), answers AUTH_OK with its own proof and leaves the
 * pipeline; the frames after it go to the next handler. Anything else, a wrong proof, or no AUTH
 * within the guard's frame deadline gets an ERROR ({@link ErrorCode#AUTH_FAILED}) and the connection
 * closes; a failed TLS handshake closes it too. Each refusal is logged through the guard, once per
 * cause per interval. Holds nothing but two nonces: a refused connection costs the listener nothing
 * beyond itself. One per connection; runs on its event loop.
 */
final class ListenerHandshake extends ChannelInboundHandlerAdapter {
    /** Appended to a listener's context for the connector's proof and for the listener's own. */
    static final String CONNECTOR = " / connector";
    static final String LISTENER = " / listener";

    private final SharedSecret secret;
    private final String context;
    private final ConnectionGuard guard;
    private final byte[] nonce = SharedSecret.nonce();
    private ScheduledFuture<?> deadline;
    private boolean finished;

    /**
     * @param secret  the secret connectors must prove, or null to let any in
     * @param context what the connection is for ("lockfabric memory node", "lockfabric mailbox"):
     *                a proof made for one is no good for the other
     */
    ListenerHandshake(SharedSecret secret, String context, ConnectionGuard guard) {
        this.secret = secret;
        this.context = context;
        this.guard = guard;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        TcpMemoryNode.reply(ctx, new Frame.Challenge(0, HandshakeLayout.WIRE_VERSION, secret != null, nonce));
        long ns = guard.limits().frameDeadlineNs();
        deadline = ctx.executor().schedule(() -> {
            if (!finished && ctx.channel().isActive()) {
                refuse(ctx, "handshake-deadline", "no AUTH within " + TimeUnit.NANOSECONDS.toMillis(ns) + " ms ("
                        + guard.option("frame-deadline") + ")");
            }
        }, ns, TimeUnit.NANOSECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (finished) {
            ctx.fireChannelRead(msg);
            return;
        }
        Frame f;
        try {
            f = WireCodec.decode((ByteBuf) msg);
        } catch (MalformedFrameException e) {
            refuse(ctx, "handshake", "a malformed first frame (" + e.getMessage() + ")");
            return;
        } finally {
            ReferenceCountUtil.release(msg);
        }
        if (!(f instanceof Frame.Auth auth)) {
            refuse(ctx, "handshake", "a " + f.type() + " frame before authenticating (answer the CHALLENGE with AUTH)");
            return;
        }
        if (auth.version() != HandshakeLayout.WIRE_VERSION) {
            refuse(ctx, "wire-version", "a client of wire version " + auth.version() + "; this one speaks version "
                    + HandshakeLayout.WIRE_VERSION + " (run client and server of one release)");
            return;
        }
        byte[] proof = new byte[0];
        if (secret != null) {
            if (auth.proof().length == 0) {
                refuse(ctx, "secret", "a client without the shared secret (this server requires one)");
                return;
            }
            if (!secret.verify(auth.proof(), nonce, auth.nonce(), context + CONNECTOR)) {
                refuse(ctx, "secret", "a client with a wrong shared secret");
                return;
            }
            proof = secret.proof(auth.nonce(), nonce, context + LISTENER);
        }
        finished = true;
        cancelDeadline();
        TcpMemoryNode.reply(ctx, new Frame.AuthOk(auth.requestId(), proof));
        ctx.pipeline().remove(this);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess()) {
            guard.refusals().refuse("tls", ctx.channel().remoteAddress() + ": TLS handshake failed: "
                    + TlsConfig.oneLine(e.cause()) + "; closing the connection");
            cancelDeadline();
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelDeadline();
        ctx.fireChannelInactive();
    }

    private void refuse(ChannelHandlerContext ctx, String cause, String what) {
        finished = true;
        cancelDeadline();
        guard.refusals().refuse(cause, ctx.channel().remoteAddress() + ": " + what + "; closing the connection");
        ByteBuf out = ctx.alloc().ioBuffer();
        WireCodec.encode(new Frame.ErrorReply(0, ErrorCode.AUTH_FAILED, what), out);
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
