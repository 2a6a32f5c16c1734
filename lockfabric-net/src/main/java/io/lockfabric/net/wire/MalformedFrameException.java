package io.lockfabric.net.wire;

import java.io.Serial;

/**
 * A frame that does not decode. If its header was readable, {@link #requestId()} and
 * {@link #frameType()} say which request to answer with an error; otherwise the receiver closes
 * the connection.
 */
public final class MalformedFrameException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final long requestId;
    private final transient FrameType frameType;

    public MalformedFrameException(String message) {
        this(message, 0, null);
    }

    public MalformedFrameException(String message, long requestId, FrameType frameType) {
        super(message);
        this.requestId = requestId;
        this.frameType = frameType;
    }

    public long requestId() {
        return requestId;
    }

    /** The frame's type, or null if the header itself was bad (or the type unknown). */
    public FrameType frameType() {
        return frameType;
    }
}
