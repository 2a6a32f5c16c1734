package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.RpcCall;
import io.lockfabric.lock.Mode;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The wire frames of {@code rpc-range}: requests to the range lock table's service on the memory
 * node ({@link RpcRangeServer}) and its responses. Words are little-endian.
 *
 * <p><b>Request</b> (24 bytes ACQUIRE, 40 bytes RELEASE):
 * <pre>
 *  byte 0      1      2                 8              16             24             32             40
 * +------+------+-----------------+--------------+--------------+--------------+--------------+
 * |  op  | mode | reserved (6)=0  |  start (64)  |   end (64)   | grant id (64)| token (64)   |
 * +------+------+-----------------+--------------+--------------+--------------+--------------+
 *                                                                 \___ RELEASE only _________/
 * </pre>
 * {@code op}: {@link #OP_ACQUIRE} (the reply is deferred until the range is granted) or
 * {@link #OP_RELEASE} (the grant's range, mode, server grant id and fencing token).
 *
 * <p><b>Response</b> (24 bytes):
 * <pre>
 *  byte 0        1      2                 8                16               24
 * +--------+------+-----------------+----------------+----------------+
 * | status | mode | reserved (6)=0  |   token (64)   | grant id (64)  |
 * +--------+------+-----------------+----------------+----------------+
 * </pre>
 * {@code status}: {@link #STATUS_GRANTED} or {@link #STATUS_RELEASED}. Malformed requests are
 * failed by the server with a reason (no response frame). Decoding checks lengths, reserved bytes,
 * ops, modes and statuses and throws {@link IllegalArgumentException} naming what is wrong.
 */
public final class RpcRangeFrame {
    public static final int OP_OFFSET = 0;
    public static final int MODE_OFFSET = 1;
    public static final int RESERVED_OFFSET = 2;
    public static final int RESERVED_BYTES = 6;
    public static final int START_OFFSET = 8;
    public static final int END_OFFSET = 16;
    public static final int GRANT_ID_OFFSET = 24;
    public static final int TOKEN_OFFSET = 32;
    public static final int ACQUIRE_BYTES = 24;
    public static final int RELEASE_BYTES = 40;

    public static final int STATUS_OFFSET = 0;
    public static final int RESPONSE_TOKEN_OFFSET = 8;
    public static final int RESPONSE_GRANT_ID_OFFSET = 16;
    public static final int RESPONSE_BYTES = 24;

    public static final byte OP_ACQUIRE = 1;
    public static final byte OP_RELEASE = 2;
    public static final byte MODE_SHARED = 1;
    public static final byte MODE_EXCLUSIVE = 2;
    public static final byte STATUS_GRANTED = 1;
    public static final byte STATUS_RELEASED = 2;

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private RpcRangeFrame() {
    }

    /** A decoded request; {@code grantId} and {@code token} are 0 for ACQUIRE. */
    public record Request(byte op, Mode mode, long start, long end, long grantId, long token) {
    }

    public record Response(byte status, Mode mode, long token, long grantId) {
    }

    public static byte[] acquire(long start, long end, Mode mode) {
        byte[] f = new byte[ACQUIRE_BYTES];
        header(f, OP_ACQUIRE, mode, start, end);
        return f;
    }

    public static byte[] release(long start, long end, Mode mode, long grantId, long token) {
        byte[] f = new byte[RELEASE_BYTES];
        header(f, OP_RELEASE, mode, start, end);
        LONG_LE.set(f, GRANT_ID_OFFSET, grantId);
        LONG_LE.set(f, TOKEN_OFFSET, token);
        return f;
    }

    private static void header(byte[] f, byte op, Mode mode, long start, long end) {
        f[OP_OFFSET] = op;
        f[MODE_OFFSET] = modeByte(mode);
        LONG_LE.set(f, START_OFFSET, start);
        LONG_LE.set(f, END_OFFSET, end);
    }

    public static byte[] response(byte status, Mode mode, long token, long grantId) {
        byte[] f = new byte[RESPONSE_BYTES];
        f[STATUS_OFFSET] = status;
        f[MODE_OFFSET] = modeByte(mode);
        LONG_LE.set(f, RESPONSE_TOKEN_OFFSET, token);
        LONG_LE.set(f, RESPONSE_GRANT_ID_OFFSET, grantId);
        return f;
    }

    /**
     * The request of {@code call}, decoded and checked (a well-formed frame, {@code 0 <= start < end}),
     * or null once {@code call} has been failed with the reason, naming {@code server}: what every
     * server-CPU range service does first.
     */
    public static Request validRequest(RpcCall call, String server) {
        Request r;
        try {
            r = decodeRequest(call.request());
        } catch (IllegalArgumentException e) {
            call.fail(server + ": bad request from " + call.caller() + ": " + e.getMessage());
            return null;
        }
        if (r.start() < 0 || r.end() <= r.start()) {
            call.fail(server + ": bad range [" + r.start() + ", " + r.end() + ") from " + call.caller());
            return null;
        }
        return r;
    }

    /** @throws IllegalArgumentException if the frame is malformed */
    public static Request decodeRequest(byte[] f) {
        if (f.length < ACQUIRE_BYTES) {
            throw new IllegalArgumentException("truncated request: " + f.length + " bytes, at least " + ACQUIRE_BYTES
                    + " needed");
        }
        byte op = f[OP_OFFSET];
        int expected = switch (op) {
            case OP_ACQUIRE -> ACQUIRE_BYTES;
            case OP_RELEASE -> RELEASE_BYTES;
            default -> throw new IllegalArgumentException("unknown op " + op);
        };
        if (f.length != expected) {
            throw new IllegalArgumentException((f.length < expected ? "truncated" : "overlong") + " request: "
                    + expected + " bytes expected, got " + f.length);
        }
        checkReserved(f, "request");
        Mode mode = mode(f[MODE_OFFSET]);
        long start = (long) LONG_LE.get(f, START_OFFSET);
        long end = (long) LONG_LE.get(f, END_OFFSET);
        boolean release = op == OP_RELEASE;
        return new Request(op, mode, start, end, release ? (long) LONG_LE.get(f, GRANT_ID_OFFSET) : 0,
                release ? (long) LONG_LE.get(f, TOKEN_OFFSET) : 0);
    }

    /** @throws IllegalArgumentException if the frame is malformed */
    public static Response decodeResponse(byte[] f) {
        if (f.length != RESPONSE_BYTES) {
            throw new IllegalArgumentException("response of " + f.length + " bytes, expected " + RESPONSE_BYTES);
        }
        checkReserved(f, "response");
        byte status = f[STATUS_OFFSET];
        if (status != STATUS_GRANTED && status != STATUS_RELEASED) {
            throw new IllegalArgumentException("unknown response status " + status);
        }
        return new Response(status, mode(f[MODE_OFFSET]), (long) LONG_LE.get(f, RESPONSE_TOKEN_OFFSET),
                (long) LONG_LE.get(f, RESPONSE_GRANT_ID_OFFSET));
    }

    static byte modeByte(Mode mode) {
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

    private static void checkReserved(byte[] f, String what) {
        for (int i = RESERVED_OFFSET; i < RESERVED_OFFSET + RESERVED_BYTES; i++) {
            if (f[i] != 0) {
                throw new IllegalArgumentException(what + " has reserved byte " + i + " set");
            }
        }
    }
}
