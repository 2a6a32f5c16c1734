package io.lockfabric.net.wire;

/** Why a request failed, carried by an {@link FrameType#ERROR} frame. */
public enum ErrorCode {
    /** The frame could not be decoded (truncated, bad field, trailing bytes, unknown type). */
    MALFORMED(1),
    /** A verb addressed memory it may not touch; the failed verb changed nothing. */
    REMOTE_ACCESS(2),
    /** No such rpc service, or its handler failed the call. */
    RPC_FAILED(3),
    /** The directory does not know the endpoint, or it is dead. */
    PEER_UNKNOWN(4),
    /** Anything else the memory node refused (capacity, protocol it cannot serve, no HELLO yet). */
    REFUSED(5),
    /** The connection did not prove the shared secret (wrong or missing), or speaks another wire version. */
    AUTH_FAILED(6),
    /** A verb addressed a table the memory node has dropped; it changed nothing. */
    TABLE_DROPPED(16),
    /** A drop was refused: clients have the table open, and the drop was not forced. */
    TABLE_IN_USE(17);

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The error with that code, or null. */
    public static ErrorCode of(int code) {
        for (ErrorCode c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return null;
    }
}
