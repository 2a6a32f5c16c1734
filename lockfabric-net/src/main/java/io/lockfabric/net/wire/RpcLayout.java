package io.lockfabric.net.wire;

import io.netty.buffer.ByteBuf;

/**
 * {@link FrameType#RPC}: a request for a table's service on the memory node; answered, possibly
 * much later and out of order with other replies, by a {@link FrameType#RESULTS} frame whose whole
 * body is the response, or by an {@link FrameType#ERROR} with {@link ErrorCode#RPC_FAILED}.
 *
 * <pre>
 * RPC body
 *  0                       8               12               16
 * +-----------------------+---------------+----------------+------------------------------+
 * | endpoint (i64, packed)| service (i32) | n (u32)        | request (n bytes)            |
 * +-----------------------+---------------+----------------+------------------------------+
 *   endpoint: the caller, an endpoint opened (HELLO) on this connection; the service sees it
 *
 * RESULTS body (any reply carrying bytes)
 * +---------------------------------------------------------------+
 * | payload (length - 9 bytes): verb results or the rpc response  |
 * +---------------------------------------------------------------+
 * </pre>
 */
public final class RpcLayout {
    public static final int ENDPOINT_BYTES = 8;
    public static final int SERVICE_BYTES = 4;
    /** Longest rpc request or response. */
    public static final int MAX_PAYLOAD_BYTES = FrameHeaderLayout.MAX_BODY_BYTES - 64;

    private RpcLayout() {
    }

    static void encode(Frame.RpcRequest f, ByteBuf out) {
        if (f.payload().length > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("rpc request of " + f.payload().length + " bytes exceeds " + MAX_PAYLOAD_BYTES);
        }
        out.writeLong(f.endpoint());
        out.writeInt(f.service());
        Fields.writeBlob(out, f.payload());
    }

    static Frame.RpcRequest decode(long requestId, ByteBuf in) {
        long endpoint = Fields.i64(in, "endpoint");
        int service = Fields.i32(in, "rpc service");
        return new Frame.RpcRequest(requestId, endpoint, service, Fields.blob(in, MAX_PAYLOAD_BYTES, "rpc request"));
    }

    static void encode(Frame.Results f, ByteBuf out) {
        out.writeBytes(f.payload());
    }

    static Frame.Results decodeResults(long requestId, ByteBuf in) {
        byte[] b = new byte[in.readableBytes()];
        in.readBytes(b);
        return new Frame.Results(requestId, b);
    }
}
