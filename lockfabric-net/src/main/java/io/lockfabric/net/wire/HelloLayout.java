package io.lockfabric.net.wire;

import io.netty.buffer.ByteBuf;

/**
 * {@link FrameType#HELLO} (client → memory node: opens one endpoint on the connection) and its reply
 * {@link FrameType#WELCOME}; {@link FrameType#BYE} closes one. A client process draws one random
 * nonce; the memory node gives all endpoints of one nonce the same node id, and every endpoint its
 * own queue number and ordinal.
 *
 * <p>A connection is shared by endpoints of one client process (a few connections per process, each
 * endpoint on one of them for its whole life). Frames that act for an endpoint name it by its packed
 * id: OPEN_TABLE, RPC and BYE; the memory node refuses an endpoint not opened on that connection.
 * Verbs name none: the memory node executes them alike for every endpoint, and executes a
 * connection's frames in arrival order, so each endpoint's verbs execute in the order it posted them,
 * as on an RC queue pair. When the connection closes, all its endpoints are dead in the directory and
 * their tables closed.
 *
 * <pre>
 * HELLO body
 *  0                        8            10                      10+n      12+n
 * +------------------------+------------+-----------------------+---------+
 * | process nonce (i64)    | n (u16)    | listen host (n, UTF-8)| port u16|
 * +------------------------+------------+-----------------------+---------+
 *
 * WELCOME body
 *  0                             8              12                 16
 * +-----------------------------+--------------+------------------+
 * | endpoint id (i64, packed)   | ordinal (i32)| memory nodes(i32)|
 * +-----------------------------+--------------+------------------+
 *
 * BYE body (answered by an empty RESULTS)
 *  0                             8
 * +-----------------------------+
 * | endpoint id (i64, packed)   |
 * +-----------------------------+
 * </pre>
 */
public final class HelloLayout {
    public static final int NONCE_BYTES = 8;
    public static final int PORT_BYTES = 2;
    public static final int MAX_PORT = 0xFFFF;
    public static final int WELCOME_BYTES = 8 + 4 + 4;

    private HelloLayout() {
    }

    static void encode(Frame.Hello f, ByteBuf out) {
        if (f.listenPort() < 0 || f.listenPort() > MAX_PORT) {
            throw new IllegalArgumentException("port " + f.listenPort() + " out of range");
        }
        out.writeLong(f.processNonce());
        Fields.writeString(out, f.listenHost());
        out.writeShort(f.listenPort());
    }

    static Frame.Hello decode(long requestId, ByteBuf in) {
        long nonce = Fields.i64(in, "process nonce");
        String host = Fields.string(in, "listen host");
        int port = Fields.u16(in, "listen port");
        return new Frame.Hello(requestId, nonce, host, port);
    }

    static void encode(Frame.Welcome f, ByteBuf out) {
        out.writeLong(f.endpointId());
        out.writeInt(f.ordinal());
        out.writeInt(f.memoryNodes());
    }

    static void encode(Frame.Bye f, ByteBuf out) {
        out.writeLong(f.endpoint());
    }

    static Frame.Bye decodeBye(long requestId, ByteBuf in) {
        return new Frame.Bye(requestId, Fields.i64(in, "endpoint id"));
    }

    static Frame.Welcome decodeWelcome(long requestId, ByteBuf in) {
        return new Frame.Welcome(requestId, Fields.i64(in, "endpoint id"), Fields.i32(in, "ordinal"),
                Fields.i32(in, "memory nodes"));
    }
}
