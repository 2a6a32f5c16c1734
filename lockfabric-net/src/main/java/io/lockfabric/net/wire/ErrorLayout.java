package io.lockfabric.net.wire;

import io.netty.buffer.ByteBuf;

/**
 * {@link FrameType#ERROR}: a request failed. The message is for people; the code is for code.
 *
 * <pre>
 *  0            1            3
 * +------------+------------+--------------------------------+
 * | code (u8)  | n (u16)    | message (n bytes of UTF-8)     |
 * +------------+------------+--------------------------------+
 * </pre>
 */
public final class ErrorLayout {
    private ErrorLayout() {
    }

    static void encode(Frame.ErrorReply f, ByteBuf out) {
        out.writeByte(f.code().code());
        String m = f.message() == null ? "" : f.message();
        // a message is a diagnostic: cut it rather than fail the reply
        while (m.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > Fields.MAX_STRING_BYTES) {
            m = m.substring(0, m.length() / 2);
        }
        Fields.writeString(out, m);
    }

    static Frame.ErrorReply decode(long requestId, ByteBuf in) {
        int c = Fields.u8(in, "error code");
        ErrorCode code = ErrorCode.of(c);
        if (code == null) {
            throw new MalformedFrameException("unknown error code " + c);
        }
        return new Frame.ErrorReply(requestId, code, Fields.string(in, "error message"));
    }
}
