package io.lockfabric.net;

import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.FrameHeaderLayout;
import io.lockfabric.net.wire.HandshakeLayout;
import io.lockfabric.net.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;

/** The opening of a connection done by hand on a raw socket, for tests that then speak frames byte by byte. */
final class RawHandshake {
    private RawHandshake() {
    }

    /** Reads one frame (blocking). */
    static Frame readFrame(DataInputStream in) throws IOException {
        int length = in.readInt();
        byte[] body = new byte[length];
        in.readFully(body);
        return WireCodec.decode(Unpooled.wrappedBuffer(body));
    }

    static byte[] encode(Frame f) {
        ByteBuf b = Unpooled.buffer();
        WireCodec.encode(f, b);
        return ByteBufUtil.getBytes(b);
    }

    /**
     * Answers the listener's CHALLENGE on {@code socket} (with a proof of {@code secret}, if not null)
     * and returns its answer: AUTH_OK, or the ERROR that refuses it.
     */
    static Frame open(Socket socket, SharedSecret secret, String context) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        OutputStream out = socket.getOutputStream();
        Frame first = readFrame(in);
        if (!(first instanceof Frame.Challenge c)) {
            return first;
        }
        byte[] nonce = SharedSecret.nonce();
        byte[] proof = secret == null ? new byte[0] : secret.proof(c.nonce(), nonce, context + ListenerHandshake.CONNECTOR);
        out.write(encode(new Frame.Auth(0, HandshakeLayout.WIRE_VERSION, nonce, proof)));
        out.flush();
        return readFrame(in);
    }

    /** A length prefix for a frame of {@code length} bytes, and nothing else. */
    static byte[] prefix(int length) {
        return Unpooled.buffer(FrameHeaderLayout.LENGTH_BYTES).writeInt(length).array();
    }
}
