package io.lockfabric.net.wire;

/**
 * Every frame on a connection: a length prefix, then a header, then the body of its type. All
 * multi-byte fields of the protocol are big-endian (network order).
 *
 * <pre>
 *  0                 4        5                                 13
 * +-----------------+--------+---------------------------------+--------------------------+
 * | length (u32)    | type   | request id (i64)                | body (length - 9 bytes)  |
 * +-----------------+--------+---------------------------------+--------------------------+
 *                   |&lt;------------------------- length bytes ----------------------------&gt;|
 * </pre>
 *
 * {@code length} counts the type, the request id and the body: it is at least {@link #HEADER_BYTES}
 * and at most {@link #MAX_FRAME_BYTES}. A longer length is a protocol violation that closes the
 * connection (the receiver could not find the next frame boundary without reading it all).
 * A body that does not decode is answered with an {@link FrameType#ERROR} and the connection goes on.
 *
 * <p>The header names no endpoint: a connection to the memory node carries the endpoints opened on
 * it by HELLO ({@link HelloLayout}, which says how they share it), and the few frames that act for
 * one endpoint name it in their body. Request ids are the sender's, unique on the connection.
 * Senders coalesce writes: a TCP segment usually holds many frames, and a frame may span segments.
 */
public final class FrameHeaderLayout {
    public static final int LENGTH_OFFSET = 0;
    public static final int LENGTH_BYTES = 4;
    public static final int TYPE_OFFSET = LENGTH_OFFSET + LENGTH_BYTES;
    public static final int TYPE_BYTES = 1;
    public static final int REQUEST_ID_OFFSET = TYPE_OFFSET + TYPE_BYTES;
    public static final int REQUEST_ID_BYTES = 8;
    /** Bytes of the header after the length prefix: type and request id. */
    public static final int HEADER_BYTES = TYPE_BYTES + REQUEST_ID_BYTES;
    /** Largest value of {@code length}: 1 MiB. */
    public static final int MAX_FRAME_BYTES = 1 << 20;
    /** Largest body: what is left of a maximal frame after the header. */
    public static final int MAX_BODY_BYTES = MAX_FRAME_BYTES - HEADER_BYTES;

    private FrameHeaderLayout() {
    }
}
