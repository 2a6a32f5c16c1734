package io.lockfabric.net.wire;

import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.TableSpec;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * Table agreement: {@link FrameType#OPEN_TABLE} asks for a table by shape; the memory node answers
 * {@link FrameType#TABLE_OPENED} (created now or found with the same shape) or
 * {@link FrameType#TABLE_MISMATCH} carrying the shape the table already has.
 *
 * <pre>
 * OPEN_TABLE body: the opener, then a table shape
 * +-------------------------+-----------------------------------------------+
 * | endpoint (i64, packed)  | table shape (as TABLE_MISMATCH, below)        |
 * +-------------------------+-----------------------------------------------+
 *   endpoint: an endpoint opened (HELLO) on this connection; the table is kept while it is open
 *
 * OPEN_TABLE's table shape, and TABLE_MISMATCH body
 * +------------+---------------+------------+-------------------+-------------+-------------+
 * | n (u16)    | name (n)      | p (u16)    | protocol (p)      | locks (i64) | bytes (i64) |
 * +------------+---------------+------------+-------------------+-------------+-------------+
 * +-------------------+---------+--------------+----------------------+
 * | memory node (i32) | flags   | f (u32)      | fill pattern (f)     |
 * +-------------------+---------+--------------+----------------------+
 *   flags bit 0 ({@link #WANTS_SERVICE}): the table has an rpc service (OPEN_TABLE only); then
 *   the body goes on with the options the service is built with:
 * +-------------+------------+----------------+-----+
 * | k (u16)     | n1 (u16)   | option 1 (n1)  | ... |   k strings "name=value"
 * +-------------+------------+----------------+-----+
 *
 * TABLE_OPENED body
 *  0                   4                         12              16
 * +-------------------+-------------------------+---------------+
 * | memory node (i32) | address (i64)           | service (i32) |
 * +-------------------+-------------------------+---------------+
 * </pre>
 */
public final class TableLayout {
    public static final int WANTS_SERVICE = 1;
    /** Longest fill pattern. */
    public static final int MAX_FILL_BYTES = 64 * 1024;

    private TableLayout() {
    }

    /** Most service options in one OPEN_TABLE. */
    public static final int MAX_SERVICE_OPTIONS = 64;

    static void encode(Frame.OpenTable f, ByteBuf out) {
        out.writeLong(f.endpoint());
        shape(f.spec(), f.wantsService(), out);
        if (f.wantsService()) {
            if (f.serviceOptions().size() > MAX_SERVICE_OPTIONS) {
                throw new IllegalArgumentException(f.serviceOptions().size() + " service options exceed "
                        + MAX_SERVICE_OPTIONS);
            }
            out.writeShort(f.serviceOptions().size());
            for (String option : f.serviceOptions()) {
                Fields.writeString(out, option);
            }
        }
    }

    static void encode(Frame.TableMismatch f, ByteBuf out) {
        shape(f.existing(), false, out);
    }

    private static void shape(TableSpec spec, boolean wantsService, ByteBuf out) {
        if (spec.fill().length > MAX_FILL_BYTES) {
            throw new IllegalArgumentException("fill pattern of " + spec.fill().length + " bytes exceeds " + MAX_FILL_BYTES);
        }
        Fields.writeString(out, spec.name());
        Fields.writeString(out, spec.protocol());
        out.writeLong(spec.locks());
        out.writeLong(spec.bytes());
        out.writeInt(spec.memoryNode());
        out.writeByte(wantsService ? WANTS_SERVICE : 0);
        Fields.writeBlob(out, spec.fill());
    }

    private static Frame.OpenTable decodeShape(long requestId, ByteBuf in) {
        String name = Fields.string(in, "table name");
        String protocol = Fields.string(in, "protocol");
        long locks = Fields.i64(in, "locks");
        long bytes = Fields.i64(in, "table bytes");
        int node = Fields.i32(in, "memory node");
        int flags = Fields.u8(in, "table flags");
        if ((flags & ~WANTS_SERVICE) != 0) {
            throw new MalformedFrameException("unknown table flags 0x" + Integer.toHexString(flags));
        }
        byte[] fill = Fields.blob(in, MAX_FILL_BYTES, "fill pattern");
        return new Frame.OpenTable(requestId, 0, spec(name, protocol, locks, bytes, node, fill),
                (flags & WANTS_SERVICE) != 0);
    }

    static Frame.OpenTable decodeOpen(long requestId, ByteBuf in) {
        long endpoint = Fields.i64(in, "endpoint");
        Frame.OpenTable shape = decodeShape(requestId, in);
        if (!shape.wantsService()) {
            return new Frame.OpenTable(requestId, endpoint, shape.spec(), false);
        }
        int count = Fields.u16(in, "service option count");
        if (count > MAX_SERVICE_OPTIONS) {
            throw new MalformedFrameException(count + " service options exceed " + MAX_SERVICE_OPTIONS);
        }
        List<String> options = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            options.add(Fields.string(in, "service option"));
        }
        return new Frame.OpenTable(requestId, endpoint, shape.spec(), true, options);
    }

    static Frame.TableMismatch decodeMismatch(long requestId, ByteBuf in) {
        Frame.OpenTable shape = decodeShape(requestId, in);
        if (shape.wantsService()) {
            throw new MalformedFrameException("a mismatch reply carries no service flag");
        }
        return new Frame.TableMismatch(requestId, shape.spec());
    }

    private static TableSpec spec(String name, String protocol, long locks, long bytes, int node, byte[] fill) {
        if (name.isBlank() || locks < 0 || bytes <= 0 || bytes > RemoteAddress.OFFSET_MASK || node < 0) {
            throw new MalformedFrameException("bad table shape: name '" + name + "', " + locks + " locks, " + bytes
                    + " bytes, memory node " + node);
        }
        return new TableSpec(name, protocol, locks, bytes, fill, node, null);
    }

    static void encode(Frame.TableOpened f, ByteBuf out) {
        out.writeInt(f.memoryNode());
        out.writeLong(f.address());
        out.writeInt(f.service());
    }

    static Frame.TableOpened decodeOpened(long requestId, ByteBuf in) {
        return new Frame.TableOpened(requestId, Fields.i32(in, "memory node"), Fields.i64(in, "table address"),
                Fields.i32(in, "service"));
    }
}
