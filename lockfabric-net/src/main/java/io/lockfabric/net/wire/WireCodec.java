package io.lockfabric.net.wire;

import io.netty.buffer.ByteBuf;

/**
 * Frames to bytes and back ({@link FrameHeaderLayout} and the {@code *Layout} class of each type).
 * Stateless and thread-safe.
 *
 * <p>{@link #encode} writes a whole frame, length prefix included. {@link #decode} takes one frame
 * without its length prefix (as a length-field frame decoder hands it over) and either returns the
 * frame or throws {@link MalformedFrameException}: for a truncated or over-long body, a bad field,
 * an unknown type or opcode, or bytes left over after the body. It never throws anything else and
 * never allocates more than the frame's own size.
 */
public final class WireCodec {
    private WireCodec() {
    }

    /**
     * Appends {@code frame} to {@code out}.
     *
     * @throws IllegalArgumentException if it would exceed {@link FrameHeaderLayout#MAX_FRAME_BYTES}
     *                                  or a field is out of range ({@code out} is then unchanged)
     */
    public static void encode(Frame frame, ByteBuf out) {
        int start = out.writerIndex();
        try {
            out.writeInt(0);
            out.writeByte(frame.type().code());
            out.writeLong(frame.requestId());
            switch (frame) {
                case Frame.Hello f -> HelloLayout.encode(f, out);
                case Frame.Welcome f -> HelloLayout.encode(f, out);
                case Frame.VerbRequest f -> VerbLayout.encode(f.verb(), out);
                case Frame.BatchRequest f -> BatchLayout.encode(f, out);
                case Frame.RpcRequest f -> RpcLayout.encode(f, out);
                case Frame.Results f -> RpcLayout.encode(f, out);
                case Frame.OpenTable f -> TableLayout.encode(f, out);
                case Frame.TableOpened f -> TableLayout.encode(f, out);
                case Frame.TableMismatch f -> TableLayout.encode(f, out);
                case Frame.Bye f -> HelloLayout.encode(f, out);
                case Frame.Lookup f -> DirectoryLayout.encode(f, out);
                case Frame.PeerAddress f -> DirectoryLayout.encode(f, out);
                case Frame.Stats f -> StatsLayout.encode(f, out);
                case Frame.StatsReply f -> StatsLayout.encode(f, out);
                case Frame.ListTables f -> { }
                case Frame.DropTable f -> TablesLayout.encode(f, out);
                case Frame.TableList f -> TablesLayout.encode(f, out);
                case Frame.ErrorReply f -> ErrorLayout.encode(f, out);
                case Frame.PeerMessage f -> PeerMessageLayout.encode(f, out);
                case Frame.PeerPing f -> PeerMessageLayout.encode(f, out);
                case Frame.Challenge f -> HandshakeLayout.encode(f, out);
                case Frame.Auth f -> HandshakeLayout.encode(f, out);
                case Frame.AuthOk f -> HandshakeLayout.encode(f, out);
            }
            int length = out.writerIndex() - start - FrameHeaderLayout.LENGTH_BYTES;
            if (length > FrameHeaderLayout.MAX_FRAME_BYTES) {
                throw new IllegalArgumentException(frame.type() + " frame of " + length + " bytes exceeds "
                        + FrameHeaderLayout.MAX_FRAME_BYTES);
            }
            out.setInt(start, length);
        } catch (RuntimeException e) {
            out.writerIndex(start);
            throw e;
        }
    }

    /** Decodes one frame: {@code in} holds exactly the bytes after the length prefix. */
    public static Frame decode(ByteBuf in) {
        if (in.readableBytes() < FrameHeaderLayout.HEADER_BYTES) {
            throw new MalformedFrameException("frame of " + in.readableBytes() + " bytes is shorter than its "
                    + FrameHeaderLayout.HEADER_BYTES + "-byte header");
        }
        if (in.readableBytes() > FrameHeaderLayout.MAX_FRAME_BYTES) {
            throw new MalformedFrameException("frame of " + in.readableBytes() + " bytes exceeds "
                    + FrameHeaderLayout.MAX_FRAME_BYTES);
        }
        int code = in.readUnsignedByte();
        long id = in.readLong();
        FrameType type = FrameType.of(code);
        if (type == null) {
            throw new MalformedFrameException("unknown frame type " + code, id, null);
        }
        try {
            Frame f = switch (type) {
                case HELLO -> HelloLayout.decode(id, in);
                case WELCOME -> HelloLayout.decodeWelcome(id, in);
                case VERB -> new Frame.VerbRequest(id, VerbLayout.decode(in));
                case BATCH -> BatchLayout.decode(id, in);
                case RPC -> RpcLayout.decode(id, in);
                case RESULTS -> RpcLayout.decodeResults(id, in);
                case OPEN_TABLE -> TableLayout.decodeOpen(id, in);
                case TABLE_OPENED -> TableLayout.decodeOpened(id, in);
                case TABLE_MISMATCH -> TableLayout.decodeMismatch(id, in);
                case BYE -> HelloLayout.decodeBye(id, in);
                case LOOKUP -> DirectoryLayout.decodeLookup(id, in);
                case PEER_ADDRESS -> DirectoryLayout.decodeAddress(id, in);
                case STATS -> StatsLayout.decodeStats(id, in);
                case STATS_REPLY -> StatsLayout.decodeReply(id, in);
                case LIST_TABLES -> new Frame.ListTables(id);
                case DROP_TABLE -> TablesLayout.decodeDrop(id, in);
                case TABLE_LIST -> TablesLayout.decodeList(id, in);
                case ERROR -> ErrorLayout.decode(id, in);
                case PEER_MESSAGE -> PeerMessageLayout.decode(in);
                case PEER_PING -> PeerMessageLayout.decodePing(in);
                case CHALLENGE -> HandshakeLayout.decodeChallenge(id, in);
                case AUTH -> HandshakeLayout.decodeAuth(id, in);
                case AUTH_OK -> HandshakeLayout.decodeAuthOk(id, in);
            };
            if (in.isReadable()) {
                throw new MalformedFrameException(in.readableBytes() + " bytes left over after the " + type + " body");
            }
            return f;
        } catch (MalformedFrameException e) {
            throw new MalformedFrameException(type + " frame: " + e.getMessage(), id, type);
        }
    }
}
