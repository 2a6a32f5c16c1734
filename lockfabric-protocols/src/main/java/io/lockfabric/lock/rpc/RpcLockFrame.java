package io.lockfabric.lock.rpc;

import io.lockfabric.lock.Mode;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The wire frames of the {@code rpc} lock protocol: requests from a client to the table's service
 * on the memory node, and the service's responses. Words are little-endian, like the verbs'.
 *
 * <p><b>Request</b> (16 bytes for ACQUIRE / TRY_ACQUIRE, 24 bytes for RELEASE):
 * <pre>
 *  byte 0      1      2                     8                    16                    24
 * +------+------+---------------------+--------------------+--------------------+
 * |  op  | mode |   reserved (6) = 0  |    lock id (64)    | token (64) RELEASE |
 * +------+------+---------------------+--------------------+--------------------+
 * </pre>
 * {@code op}: {@link #OP_ACQUIRE} (queue until granted; the reply is deferred until then),
 * {@link #OP_TRY_ACQUIRE} (granted at once or answered {@link #STATUS_BUSY}: the retry-on-fail
 * baseline), {@link #OP_RELEASE} (gives back a grant; {@code token} is the grant's fencing token,
 * which the server checks). {@code mode}: {@link #MODE_SHARED} or {@link #MODE_EXCLUSIVE}. The
 * caller is not in the frame: the fabric tells the server who called ({@code RpcCall.caller()}).
 *
 * <p><b>Response</b> (16 bytes):
 * <pre>
 *  byte 0        1      2                     8                    16
 * +--------+------+---------------------+--------------------+
 * | status | mode |   reserved (6) = 0  |     token (64)     |
 * +--------+------+---------------------+--------------------+
 * </pre>
 * {@code status}: {@link #STATUS_GRANTED} (mode and fencing token of the grant),
 * {@link #STATUS_BUSY} (a TRY_ACQUIRE that was not grantable; token 0), {@link #STATUS_RELEASED}
 * (mode and token of the released grant). Bad requests get no response frame: the server fails the
 * rpc with a reason, which the client sees as an {@code RpcException}.
 *
 * <p>Stateless and thread-safe; decoding checks lengths and reserved bytes and throws
 * {@link IllegalArgumentException} naming what is wrong.
 */
public final class RpcLockFrame {
    public static final int OP_OFFSET = 0;
    public static final int MODE_OFFSET = 1;
    /** Bytes 2..7 of a request and of a response: must be zero (room for a future version). */
    public static final int RESERVED_OFFSET = 2;
    public static final int RESERVED_BYTES = 6;
    public static final int LOCK_ID_OFFSET = 8;
    public static final int TOKEN_OFFSET = 16;
    public static final int ACQUIRE_BYTES = 16;
    public static final int RELEASE_BYTES = 24;

    public static final int STATUS_OFFSET = 0;
    public static final int RESPONSE_TOKEN_OFFSET = 8;
    public static final int RESPONSE_BYTES = 16;

    public static final byte OP_ACQUIRE = 1;
    public static final byte OP_TRY_ACQUIRE = 2;
    public static final byte OP_RELEASE = 3;

    public static final byte MODE_SHARED = 1;
    public static final byte MODE_EXCLUSIVE = 2;

    public static final byte STATUS_GRANTED = 1;
    public static final byte STATUS_BUSY = 2;
    public static final byte STATUS_RELEASED = 3;

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private RpcLockFrame() {
    }

    /** A decoded request. {@code token} is 0 for acquisitions. */
    public record Request(byte op, Mode mode, long lockId, long token) {
    }

    /** A decoded response. */
    public record Response(byte status, Mode mode, long token) {
    }

    public static byte[] acquire(long lockId, Mode mode, boolean tryOnly) {
        byte[] f = new byte[ACQUIRE_BYTES];
        f[OP_OFFSET] = tryOnly ? OP_TRY_ACQUIRE : OP_ACQUIRE;
        f[MODE_OFFSET] = modeByte(mode);
        LONG_LE.set(f, LOCK_ID_OFFSET, lockId);
        return f;
    }

    public static byte[] release(long lockId, Mode mode, long token) {
        byte[] f = new byte[RELEASE_BYTES];
        f[OP_OFFSET] = OP_RELEASE;
        f[MODE_OFFSET] = modeByte(mode);
        LONG_LE.set(f, LOCK_ID_OFFSET, lockId);
        LONG_LE.set(f, TOKEN_OFFSET, token);
        return f;
    }

    public static byte[] response(byte status, Mode mode, long token) {
        byte[] f = new byte[RESPONSE_BYTES];
        f[STATUS_OFFSET] = status;
        f[MODE_OFFSET] = mode == null ? 0 : modeByte(mode);
        LONG_LE.set(f, RESPONSE_TOKEN_OFFSET, token);
        return f;
    }

    /**
     * Decodes a request.
     *
     * @throws IllegalArgumentException if the op or mode is unknown, a reserved byte is set, or the
     *                                  length is not that of the op (truncated or overlong)
     */
    public static Request decodeRequest(byte[] f) {
        if (f.length < LOCK_ID_OFFSET) {
            throw new IllegalArgumentException("truncated request: " + f.length + " bytes, a header needs "
                    + LOCK_ID_OFFSET);
        }
        byte op = f[OP_OFFSET];
        int expected = switch (op) {
            case OP_ACQUIRE, OP_TRY_ACQUIRE -> ACQUIRE_BYTES;
            case OP_RELEASE -> RELEASE_BYTES;
            default -> throw new IllegalArgumentException("unknown op " + op);
        };
        if (f.length != expected) {
            throw new IllegalArgumentException((f.length < expected ? "truncated" : "overlong") + " request: op "
                    + opName(op) + " needs " + expected + " bytes, got " + f.length);
        }
        checkReserved(f, "request");
        Mode mode = mode(f[MODE_OFFSET]);
        long lockId = (long) LONG_LE.get(f, LOCK_ID_OFFSET);
        long token = op == OP_RELEASE ? (long) LONG_LE.get(f, TOKEN_OFFSET) : 0;
        return new Request(op, mode, lockId, token);
    }

    /**
     * Decodes a response.
     *
     * @throws IllegalArgumentException if it is not a well-formed response frame
     */
    public static Response decodeResponse(byte[] f) {
        if (f.length != RESPONSE_BYTES) {
            throw new IllegalArgumentException("response of " + f.length + " bytes, expected " + RESPONSE_BYTES);
        }
        checkReserved(f, "response");
        byte status = f[STATUS_OFFSET];
        if (status != STATUS_GRANTED && status != STATUS_BUSY && status != STATUS_RELEASED) {
            throw new IllegalArgumentException("unknown response status " + status);
        }
        Mode mode = status == STATUS_BUSY ? null : mode(f[MODE_OFFSET]);
        return new Response(status, mode, (long) LONG_LE.get(f, RESPONSE_TOKEN_OFFSET));
    }

    public static byte modeByte(Mode mode) {
        return switch (mode) {
            case SHARED -> MODE_SHARED;
            case EXCLUSIVE -> MODE_EXCLUSIVE;
        };
    }

    static Mode mode(byte b) {
        return switch (b) {
            case MODE_SHARED -> Mode.SHARED;
            case MODE_EXCLUSIVE -> Mode.EXCLUSIVE;
            default -> throw new IllegalArgumentException("unknown mode " + b);
        };
    }

    static String opName(byte op) {
        return switch (op) {
            case OP_ACQUIRE -> "ACQUIRE";
            case OP_TRY_ACQUIRE -> "TRY_ACQUIRE";
            case OP_RELEASE -> "RELEASE";
            default -> "op " + op;
        };
    }

    private static void checkReserved(byte[] f, String what) {
        for (int i = RESERVED_OFFSET; i < RESERVED_OFFSET + RESERVED_BYTES; i++) {
            if (f[i] != 0) {
                throw new IllegalArgumentException(what + " has reserved byte " + i + " set");
            }
        }
    }
}
