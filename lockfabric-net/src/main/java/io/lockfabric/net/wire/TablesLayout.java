package io.lockfabric.net.wire;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * Table administration: {@link FrameType#LIST_TABLES} (empty body) asks for the memory node's
 * tables, {@link FrameType#DROP_TABLE} drops one; both are answered by {@link FrameType#TABLE_LIST}
 * (for a drop: the table as it was, or no row if there was none).
 *
 * <pre>
 * DROP_TABLE body
 * +------------+---------------+-----------+-------------------------------------------+
 * | n (u16)    | name (n)      | flags (u8)| [e (u16) | endpoint id (i64) x e]         |
 * +------------+---------------+-----------+-------------------------------------------+
 *   flags bit 0 ({@link #FORCE}): drop even while open; bit 1 ({@link #EXCEPT}): the endpoint ids
 *   that follow may have it open (the dropper's own), and the drop is refused only if another has</pre>
 * <pre>
 *
 * TABLE_LIST body
 * +-------------+---------+-------+-----+-------+
 * | total (i32) | k (i32) | row 1 | ... | row k |   k &lt;= total: the rows that fit one frame
 * +-------------+---------+-------+-----+-------+
 * row
 * +---------+----------+---------+--------------+-------------+---------------+----------------+
 * | n (u16) | name (n) | p (u16) | protocol (p) | bytes (i64) | openers (i32) | idle ms (i64)  |
 * +---------+----------+---------+--------------+-------------+---------------+----------------+
 *   idle ms: since the last client connection that had the table open closed; -1 while one has
 * </pre>
 */
public final class TablesLayout {
    /** DROP_TABLE flag: drop the table even while clients have it open. */
    public static final int FORCE = 1;
    /** DROP_TABLE flag: a list of endpoints whose connections do not count as having the table open follows. */
    public static final int EXCEPT = 2;
    /** The most endpoints a DROP_TABLE may except. */
    public static final int MAX_EXCEPT = 4096;
    /** The most a row takes: two strings of {@link Fields#MAX_STRING_BYTES} and the numbers. */
    public static final int MAX_ROW_BYTES = 2 * (Fields.STRING_LENGTH_BYTES + Fields.MAX_STRING_BYTES) + 8 + 4 + 8;
    /** The most rows one TABLE_LIST carries, whatever their names. */
    public static final int MAX_ROWS = (FrameHeaderLayout.MAX_BODY_BYTES - 8) / MAX_ROW_BYTES;

    private TablesLayout() {
    }

    static void encode(Frame.DropTable f, ByteBuf out) {
        Fields.writeString(out, f.name());
        boolean except = !f.exceptEndpoints().isEmpty();
        if (f.exceptEndpoints().size() > MAX_EXCEPT) {
            throw new IllegalArgumentException(f.exceptEndpoints().size() + " endpoints to except: at most " + MAX_EXCEPT);
        }
        out.writeByte((f.force() ? FORCE : 0) | (except ? EXCEPT : 0));
        if (except) {
            out.writeShort(f.exceptEndpoints().size());
            f.exceptEndpoints().forEach(out::writeLong);
        }
    }

    static Frame.DropTable decodeDrop(long requestId, ByteBuf in) {
        String name = Fields.string(in, "table name");
        int flags = Fields.u8(in, "drop flags");
        if ((flags & ~(FORCE | EXCEPT)) != 0 || flags == (FORCE | EXCEPT)) {
            throw new MalformedFrameException("unknown drop flags 0x" + Integer.toHexString(flags));
        }
        List<Long> except = new ArrayList<>();
        if ((flags & EXCEPT) != 0) {
            int e = Fields.u16(in, "excepted endpoints");
            if (e == 0 || e > MAX_EXCEPT) {
                throw new MalformedFrameException(e + " excepted endpoints: 1 to " + MAX_EXCEPT);
            }
            for (int i = 0; i < e; i++) {
                except.add(Fields.i64(in, "excepted endpoint"));
            }
        }
        return new Frame.DropTable(requestId, name, (flags & FORCE) != 0, except);
    }

    static void encode(Frame.TableList f, ByteBuf out) {
        if (f.tables().size() > MAX_ROWS || f.total() < f.tables().size()) {
            throw new IllegalArgumentException(f.tables().size() + " rows of " + f.total() + " tables: at most "
                    + MAX_ROWS + ", and no more than the total");
        }
        out.writeInt(f.total());
        out.writeInt(f.tables().size());
        for (Frame.TableRow r : f.tables()) {
            Fields.writeString(out, r.name());
            Fields.writeString(out, r.protocol());
            out.writeLong(r.bytes());
            out.writeInt(r.openers());
            out.writeLong(r.idleMs());
        }
    }

    static Frame.TableList decodeList(long requestId, ByteBuf in) {
        int total = Fields.i32(in, "table total");
        int k = Fields.i32(in, "table rows");
        if (k < 0 || k > MAX_ROWS || total < k) {
            throw new MalformedFrameException(k + " rows of " + total + " tables");
        }
        List<Frame.TableRow> rows = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            String name = Fields.string(in, "table name");
            String protocol = Fields.string(in, "protocol");
            long bytes = Fields.i64(in, "table bytes");
            int openers = Fields.i32(in, "openers");
            long idle = Fields.i64(in, "idle ms");
            if (bytes < 0 || openers < 0 || idle < -1) {
                throw new MalformedFrameException("bad table row: " + name + ", " + bytes + " bytes, " + openers
                        + " openers, idle " + idle + " ms");
            }
            rows.add(new Frame.TableRow(name, protocol, bytes, openers, idle));
        }
        return new Frame.TableList(requestId, total, rows);
    }
}
