package io.lockfabric.net.wire;

import io.netty.buffer.ByteBuf;

/**
 * The directory of client endpoints: {@link FrameType#LOOKUP} asks where an endpoint's mailbox
 * listens, {@link FrameType#PEER_ADDRESS} answers (an unknown or dead endpoint gets an
 * {@link FrameType#ERROR} with {@link ErrorCode#PEER_UNKNOWN}).
 *
 * <pre>
 * LOOKUP body                         PEER_ADDRESS body
 * +-------------------------------+   +----------+-------------------+-------------+
 * | endpoint id (i64, packed)     |   | n (u16)  | host (n, UTF-8)   | port (u16)  |
 * +-------------------------------+   +----------+-------------------+-------------+
 * </pre>
 */
public final class DirectoryLayout {
    public static final int ENDPOINT_ID_BYTES = 8;

    private DirectoryLayout() {
    }

    static void encode(Frame.Lookup f, ByteBuf out) {
        out.writeLong(f.endpointId());
    }

    static Frame.Lookup decodeLookup(long requestId, ByteBuf in) {
        return new Frame.Lookup(requestId, Fields.i64(in, "endpoint id"));
    }

    static void encode(Frame.PeerAddress f, ByteBuf out) {
        Fields.writeString(out, f.host());
        out.writeShort(f.port());
    }

    static Frame.PeerAddress decodeAddress(long requestId, ByteBuf in) {
        return new Frame.PeerAddress(requestId, Fields.string(in, "peer host"), Fields.u16(in, "peer port"));
    }
}
