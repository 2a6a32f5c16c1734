package io.lockfabric.net.wire;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Message;
import io.netty.buffer.ByteBuf;

/**
 * {@link FrameType#PEER_MESSAGE}: one mailbox message, sent by a client endpoint straight to
 * another's listener (never through the memory node). Its request id is 0. Endpoint ids are the
 * 40-bit packed form of {@link EndpointId}.
 *
 * <pre>
 *  0              8              16            20           24           32          40          48
 * +--------------+--------------+-------------+------------+------------+-----------+-----------+
 * | to (i64)     | from (i64)   | channel i32 | type (i32) | lock (i64) | a (i64)   | b (i64)   |
 * +--------------+--------------+-------------+------------+------------+-----------+-----------+
 * </pre>
 *
 * {@link FrameType#PEER_PING}: a liveness probe, the same two addresses and nothing else (request id 0).
 *
 * <pre>
 *  0              8              16
 * +--------------+--------------+
 * | to (i64)     | from (i64)   |
 * +--------------+--------------+
 * </pre>
 */
public final class PeerMessageLayout {
    public static final int BODY_BYTES = 48;
    public static final int PING_BODY_BYTES = 16;

    private PeerMessageLayout() {
    }

    static void encode(Frame.PeerMessage f, ByteBuf out) {
        Message m = f.message();
        out.writeLong(f.to());
        out.writeLong(m.from().pack());
        out.writeInt(m.channel());
        out.writeInt(m.type());
        out.writeLong(m.lock());
        out.writeLong(m.a());
        out.writeLong(m.b());
    }

    static Frame.PeerMessage decode(ByteBuf in) {
        long to = Fields.i64(in, "to");
        EndpointId from = endpoint(Fields.i64(in, "from"), "from");
        endpoint(to, "to");
        Message m = new Message(from, Fields.i32(in, "channel"), Fields.i32(in, "type"), Fields.i64(in, "lock"),
                Fields.i64(in, "a"), Fields.i64(in, "b"));
        return new Frame.PeerMessage(to, m);
    }

    static void encode(Frame.PeerPing f, ByteBuf out) {
        out.writeLong(f.to());
        out.writeLong(f.from());
    }

    static Frame.PeerPing decodePing(ByteBuf in) {
        long to = Fields.i64(in, "to");
        long from = Fields.i64(in, "from");
        endpoint(to, "to");
        endpoint(from, "from");
        return new Frame.PeerPing(to, from);
    }

    private static EndpointId endpoint(long packed, String what) {
        try {
            EndpointId id = EndpointId.unpack(packed);
            if (id == null) {
                throw new MalformedFrameException(what + " is nobody (0)");
            }
            return id;
        } catch (IllegalArgumentException e) {
            throw new MalformedFrameException(what + ": " + e.getMessage());
        }
    }
}
