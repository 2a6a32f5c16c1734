package io.lockfabric.net.wire;

import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Checked reads and writes of the wire's field types, all big-endian: a read past the end of the
 * frame, a negative length or an invalid string is a {@link MalformedFrameException}, never an
 * index error or a huge allocation.
 */
final class Fields {
    /** Longest string (bytes of UTF-8) any frame carries: table and protocol names, host names. */
    static final int MAX_STRING_BYTES = 1024;
    /** A string is a u16 byte count, then that many bytes of UTF-8. */
    static final int STRING_LENGTH_BYTES = 2;
    /** A byte blob is a u32 byte count, then the bytes. */
    static final int BLOB_LENGTH_BYTES = 4;

    private Fields() {
    }

    static void need(ByteBuf in, int bytes, String what) {
        if (bytes < 0 || in.readableBytes() < bytes) {
            throw new MalformedFrameException("truncated frame: " + what + " needs " + bytes + " bytes, "
                    + in.readableBytes() + " left");
        }
    }

    static int u8(ByteBuf in, String what) {
        need(in, 1, what);
        return in.readUnsignedByte();
    }

    static int u16(ByteBuf in, String what) {
        need(in, 2, what);
        return in.readUnsignedShort();
    }

    static int i32(ByteBuf in, String what) {
        need(in, 4, what);
        return in.readInt();
    }

    static long i64(ByteBuf in, String what) {
        need(in, 8, what);
        return in.readLong();
    }

    /** A u32 length that must be at most {@code max}, then that many bytes. */
    static byte[] blob(ByteBuf in, int max, String what) {
        long len = i32(in, what + " length") & 0xFFFF_FFFFL;
        if (len > max) {
            throw new MalformedFrameException(what + " of " + len + " bytes exceeds " + max);
        }
        need(in, (int) len, what);
        byte[] b = new byte[(int) len];
        in.readBytes(b);
        return b;
    }

    static String string(ByteBuf in, String what) {
        int len = u16(in, what + " length");
        if (len > MAX_STRING_BYTES) {
            throw new MalformedFrameException(what + " of " + len + " bytes exceeds " + MAX_STRING_BYTES);
        }
        need(in, len, what);
        byte[] b = new byte[len];
        in.readBytes(b);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException e) {
            throw new MalformedFrameException(what + " is not valid UTF-8");
        }
    }

    static void writeString(ByteBuf out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_STRING_BYTES) {
            throw new IllegalArgumentException("string of " + b.length + " bytes exceeds " + MAX_STRING_BYTES + ": "
                    + s.substring(0, Math.min(40, s.length())) + "...");
        }
        out.writeShort(b.length);
        out.writeBytes(b);
    }

    static void writeBlob(ByteBuf out, byte[] b) {
        out.writeInt(b.length);
        out.writeBytes(b);
    }
}
