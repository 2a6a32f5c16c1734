package io.lockfabric.net.wire;

import io.lockfabric.fabric.VerbKind;
import io.netty.buffer.ByteBuf;

/**
 * {@link FrameType#STATS} asks a memory node for its inbound counters; {@link FrameType#STATS_REPLY}
 * gives, for each {@link VerbKind} in ordinal order, the operations and payload bytes it served.
 *
 * <pre>
 * STATS body              STATS_REPLY body
 * +-------------------+   +-----------+-------------+---------------+-----+-----------------+
 * | memory node (i32) |   | k (u8)    | ops 0 (i64) | bytes 0 (i64) | ... | bytes k-1 (i64) |
 * +-------------------+   +-----------+-------------+---------------+-----+-----------------+
 * </pre>
 *
 * {@code k} must equal the number of verb kinds both sides know.
 */
public final class StatsLayout {
    private StatsLayout() {
    }

    static void encode(Frame.Stats f, ByteBuf out) {
        out.writeInt(f.memoryNode());
    }

    static Frame.Stats decodeStats(long requestId, ByteBuf in) {
        return new Frame.Stats(requestId, Fields.i32(in, "memory node"));
    }

    static void encode(Frame.StatsReply f, ByteBuf out) {
        out.writeByte(f.ops().length);
        for (int i = 0; i < f.ops().length; i++) {
            out.writeLong(f.ops()[i]);
            out.writeLong(f.bytes()[i]);
        }
    }

    static Frame.StatsReply decodeReply(long requestId, ByteBuf in) {
        int k = Fields.u8(in, "kind count");
        if (k != VerbKind.count()) {
            throw new MalformedFrameException("stats for " + k + " verb kinds, expected " + VerbKind.count());
        }
        long[] ops = new long[k];
        long[] bytes = new long[k];
        for (int i = 0; i < k; i++) {
            ops[i] = Fields.i64(in, "ops");
            bytes[i] = Fields.i64(in, "bytes");
        }
        return new Frame.StatsReply(requestId, ops, bytes);
    }
}
