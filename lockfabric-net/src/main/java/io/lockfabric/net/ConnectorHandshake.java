package io.lockfabric.net;

import io.lockfabric.fabric.AuthenticationException;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.net.wire.ErrorCode;
import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.HandshakeLayout;
import io.lockfabric.net.wire.MalformedFrameException;
import io.lockfabric.net.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;

import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The connecting side of a connection's opening ({@link HandshakeLayout}): waits for the listener's
 * CHALLENGE, answers AUTH (with the proof of the shared secret, if this side has one), checks the
 * listener's proof in its AUTH_OK, and leaves the pipeline. {@link #await} blocks the connecting
 * thread until then and throws what went wrong:
 * {@link AuthenticationException} for a wrong or missing secret (either side), a listener that
 * cannot prove the secret, another wire version or a failed TLS handshake (certificate not trusted,
 * no client certificate, a TLS client at a plain server); a {@link FabricException} for a listener
 * that refuses for another reason (its connection limits) or never speaks (a plain client at a TLS
 * server). One per connection.
 */
final class ConnectorHandshake extends ChannelInboundHandlerAdapter {
    private final SharedSecret secret;
    private final String context;
    private final String peer;
    private final boolean tls;
    private final byte[] nonce = SharedSecret.nonce();
    private Promise<Void> done;
    private byte[] listenerNonce;

    /**
     * @param secret  the secret to prove, or null for none
     * @param context the listener's context ({@link ListenerHandshake})
     * @param peer    what is connected to, for messages ("the memory node at 10.0.0.5:7420")
     * @param tls     whether the connection runs TLS (for the message when the listener never speaks)
     */
    ConnectorHandshake(SharedSecret secret, String context, String peer, boolean tls) {
        this.secret = secret;
        this.context = context;
        this.peer = peer;
        this.tls = tls;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        done = ctx.executor().newPromise();
    }

    /** Whether the opening is over (succeeded or failed). */
    boolean finished() {
        return done.isDone();
    }

    /**
     * Waits until the opening of {@code channel} succeeded; on failure or after {@code timeoutMs}
     * closes it and throws.
     */
    static void await(Channel channel, ConnectorHandshake h, long timeoutMs) {
        if (!h.done.awaitUninterruptibly(timeoutMs, TimeUnit.MILLISECONDS)) {
            channel.close();
            throw new FabricException(h.peer + " did not open the connection within " + timeoutMs + " ms"
                    + (h.tls ? "" : " (if it is a TLS server, connect with TLS: tls-trust=PEM)"));
        }
        if (!h.done.isSuccess()) {
            channel.close();
            Throwable c = h.done.cause();
            throw c instanceof FabricException fe ? fe : new FabricException(h.peer + ": " + c, c);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (done.isDone()) {
            ctx.fireChannelRead(msg);
            return;
        }
        Frame f;
        try {
            f = WireCodec.decode((ByteBuf) msg);
        } catch (MalformedFrameException e) {
            fail(ctx, new FabricException(peer + " opened the connection with a malformed frame: " + e.getMessage()
                    + " (is it a lockfabric server" + (tls ? "" : ", and not a TLS one") + "?)"));
            return;
        } finally {
            ReferenceCountUtil.release(msg);
        }
        if (f instanceof Frame.ErrorReply e) {
            fail(ctx, e.code() == ErrorCode.AUTH_FAILED
                    ? new AuthenticationException(peer + " refused this client: " + e.message()
                            + (e.message().contains("secret") ? hint() : ""))
                    : new FabricException(peer + " refused the connection: " + e.message()));
            return;
        }
        if (listenerNonce == null && f instanceof Frame.Challenge c) {
            if (c.version() != HandshakeLayout.WIRE_VERSION) {
                fail(ctx, new AuthenticationException(peer + " speaks wire version " + c.version() + ", this client "
                        + HandshakeLayout.WIRE_VERSION + " (run client and server of one release)"));
                return;
            }
            if (c.secretRequired() && secret == null) {
                fail(ctx, new AuthenticationException(peer + " requires a shared secret and this client has none"
                        + hint()));
                return;
            }
            if (!c.secretRequired() && secret != null) {
                fail(ctx, new AuthenticationException(peer + " does not ask for the shared secret this client has ("
                        + secret.origin() + "), so it cannot prove it knows it: refusing it (a server started "
                        + "without --secret-file, or not the server meant?)"));
                return;
            }
            listenerNonce = c.nonce();
            byte[] proof = secret == null ? new byte[0]
                    : secret.proof(listenerNonce, nonce, context + ListenerHandshake.CONNECTOR);
            TcpMemoryNode.reply(ctx, new Frame.Auth(0, HandshakeLayout.WIRE_VERSION, nonce, proof));
            return;
        }
        if (listenerNonce != null && f instanceof Frame.AuthOk ok) {
            if (secret != null && !secret.verify(ok.proof(), nonce, listenerNonce, context + ListenerHandshake.LISTENER)) {
                fail(ctx, new AuthenticationException(peer + " accepted this client but could not prove it knows the "
                        + "shared secret: refusing it"));
                return;
            }
            ctx.pipeline().remove(this);
            done.trySuccess(null);
            return;
        }
        fail(ctx, new FabricException(peer + " sent " + f.type() + " while opening the connection"));
    }

    private String hint() {
        return " (give the server's secret: secret-file=PATH in the address, or LOCKFABRIC_SECRET_FILE / "
                + "LOCKFABRIC_SECRET in the environment)";
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess()) {
            fail(ctx, new AuthenticationException("TLS with " + peer + " failed: " + TlsConfig.oneLine(e.cause())
                    + " (check tls-trust against the server's certificate, and tls-cert/tls-key if it asks for "
                    + "client certificates)", e.cause()));
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (done.isDone()) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        boolean ssl = cause instanceof SSLException || cause.getCause() instanceof SSLException;
        fail(ctx, ssl ? new AuthenticationException("TLS with " + peer + " failed: " + TlsConfig.oneLine(cause), cause)
                : new FabricException(peer + ": " + TlsConfig.oneLine(cause), cause));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!done.isDone()) {
            fail(ctx, new FabricException(peer + " closed the connection while opening it"
                    + (tls ? " (is it a TLS server? does it take this client's certificate?)" : "")));
        }
        ctx.fireChannelInactive();
    }

    private void fail(ChannelHandlerContext ctx, FabricException e) {
        if (done.tryFailure(e)) {
            ctx.close();
        }
    }
}
