package io.lockfabric.net.wire;

import io.netty.buffer.ByteBuf;

/**
 * The opening of every connection, to the memory node and to a client's mailbox listener: the
 * listener speaks first with a {@link FrameType#CHALLENGE}, the connector answers with an
 * {@link FrameType#AUTH}, the listener accepts with an {@link FrameType#AUTH_OK} (or refuses with an
 * {@link FrameType#ERROR} of code {@link ErrorCode#AUTH_FAILED} and closes). Only then do the
 * connection's other frames (HELLO, verbs, peer messages) follow.
 *
 * <pre>
 * CHALLENGE body                      AUTH body
 *  0           2        3       35     0           2             34      35          35+p
 * +-----------+--------+-------+      +-----------+-------------+-------+-----------+
 * |version u16| flags  | nonce |      |version u16| nonce (32)  | p (u8)| proof (p) |
 * +-----------+--------+-------+      +-----------+-------------+-------+-----------+
 *              bit 0: a secret is required          p = 0 (no secret) or 32 (HMAC-SHA256)
 *
 * AUTH_OK body
 *  0       1
 * +-------+-----------+
 * | p (u8)| proof (p) |
 * +-------+-----------+
 * </pre>
 *
 * Both sides refuse a peer whose {@code version} is not {@link #WIRE_VERSION}: frames of another
 * version would be misread.
 */
public final class HandshakeLayout {
    /**
     * The version of the wire protocol this build speaks; raised by any incompatible change of a
     * frame. 2: connections shared by endpoints (OPEN_TABLE and RPC name their endpoint; BYE).
     */
    public static final int WIRE_VERSION = 2;
    public static final int NONCE_BYTES = 32;
    /** HMAC-SHA256. */
    public static final int PROOF_BYTES = 32;
    public static final int FLAG_SECRET_REQUIRED = 1;

    private HandshakeLayout() {
    }

    static void encode(Frame.Challenge f, ByteBuf out) {
        checkLength(f.nonce(), NONCE_BYTES, "nonce");
        out.writeShort(f.version());
        out.writeByte(f.secretRequired() ? FLAG_SECRET_REQUIRED : 0);
        out.writeBytes(f.nonce());
    }

    static Frame.Challenge decodeChallenge(long requestId, ByteBuf in) {
        int version = Fields.u16(in, "version");
        int flags = Fields.u8(in, "flags");
        return new Frame.Challenge(requestId, version, (flags & FLAG_SECRET_REQUIRED) != 0, bytes(in, NONCE_BYTES,
                "nonce"));
    }

    static void encode(Frame.Auth f, ByteBuf out) {
        checkLength(f.nonce(), NONCE_BYTES, "nonce");
        out.writeShort(f.version());
        out.writeBytes(f.nonce());
        writeProof(f.proof(), out);
    }

    static Frame.Auth decodeAuth(long requestId, ByteBuf in) {
        int version = Fields.u16(in, "version");
        byte[] nonce = bytes(in, NONCE_BYTES, "nonce");
        return new Frame.Auth(requestId, version, nonce, readProof(in));
    }

    static void encode(Frame.AuthOk f, ByteBuf out) {
        writeProof(f.proof(), out);
    }

    static Frame.AuthOk decodeAuthOk(long requestId, ByteBuf in) {
        return new Frame.AuthOk(requestId, readProof(in));
    }

    private static void writeProof(byte[] proof, ByteBuf out) {
        if (proof.length != 0 && proof.length != PROOF_BYTES) {
            throw new IllegalArgumentException("a proof is 0 or " + PROOF_BYTES + " bytes, got " + proof.length);
        }
        out.writeByte(proof.length);
        out.writeBytes(proof);
    }

    private static byte[] readProof(ByteBuf in) {
        int p = Fields.u8(in, "proof length");
        if (p != 0 && p != PROOF_BYTES) {
            throw new MalformedFrameException("a proof is 0 or " + PROOF_BYTES + " bytes, got " + p);
        }
        return bytes(in, p, "proof");
    }

    private static byte[] bytes(ByteBuf in, int n, String what) {
        Fields.need(in, n, what);
        byte[] b = new byte[n];
        in.readBytes(b);
        return b;
    }

    private static void checkLength(byte[] b, int n, String what) {
        if (b.length != n) {
            throw new IllegalArgumentException("a " + what + " is " + n + " bytes, got " + b.length);
        }
    }
}
