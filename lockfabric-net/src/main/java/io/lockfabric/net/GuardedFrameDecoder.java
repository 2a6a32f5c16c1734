package io.lockfabric.net;

import io.lockfabric.net.wire.FrameHeaderLayout;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cuts a connection's byte stream into frames (each without its length prefix, as
 * {@link io.lockfabric.net.wire.WireCodec#decode} takes them) under its {@link ConnectionGuard}'s
 * limits:
 * <ul>
 *   <li>the length prefix is checked as soon as its 4 bytes are in, before the body is buffered:
 *       a length out of [{@value FrameHeaderLayout#HEADER_BYTES}, max frame] closes the connection;</li>
 *   <li>a frame over {@value #SMALL_FRAME_BYTES} bytes then reserves its length from the guard's
 *       frame-memory budget until it is whole; while the budget is full, its connection is not read
 *       (its bytes wait in the kernel) and it retries every {@value #RETRY_MS} ms. Smaller frames
 *       (every verb, message and handshake of the protocols) need no reservation, so hostile large
 *       frames never hold up the others; they are bounded by the connections, at most
 *       {@value #SMALL_FRAME_BYTES} bytes each;</li>
 *   <li>a frame whose first byte has arrived must be whole within the frame deadline (waiting for
 *       the budget included), else the connection is closed: a slow sender holds its reservation
 *       at most that long.</li>
 * </ul>
 * Each refusal is logged through the guard's {@link RefusalLog}. Runs on its channel's event loop.
 */
final class GuardedFrameDecoder extends ByteToMessageDecoder {
    /** Frames up to this size are not drawn from the frame-memory budget. */
    static final int SMALL_FRAME_BYTES = 4096;
    static final long RETRY_MS = 2;

    private final ConnectionGuard guard;
    /** Length of the frame being assembled, or -1 between frames. */
    private int pending = -1;
    private long reserved;
    private ScheduledFuture<?> deadline;
    private long frames;
    /** Whether reading is paused until the budget has room for the frame whose prefix is in. */
    private boolean waiting;
    private boolean refused;

    GuardedFrameDecoder(ConnectionGuard guard) {
        this.guard = guard;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (true) {
            if (pending < 0) {
                if (!in.isReadable()) {
                    disarm();
                    return;
                }
                if (in.readableBytes() < FrameHeaderLayout.LENGTH_BYTES) {
                    arm(ctx);
                    return;
                }
                long length = in.getUnsignedInt(in.readerIndex());
                int max = guard.limits().maxFrameBytes();
                if (length < FrameHeaderLayout.HEADER_BYTES || length > max) {
                    refuse(ctx, "frame-length", "a frame of " + length + " bytes (frames are "
                            + FrameHeaderLayout.HEADER_BYTES + " to " + max + " bytes)");
                    in.skipBytes(in.readableBytes());
                    return;
                }
                if (length > SMALL_FRAME_BYTES) {
                    if (!guard.reserveFrame(length)) {
                        waitForBudget(ctx);
                        return;
                    }
                    reserved = length;
                }
                if (waiting) {
                    waiting = false;
                    ctx.channel().config().setAutoRead(true);
                }
                pending = (int) length;
            }
            if (in.readableBytes() < FrameHeaderLayout.LENGTH_BYTES + pending) {
                arm(ctx);
                return;
            }
            in.skipBytes(FrameHeaderLayout.LENGTH_BYTES);
            out.add(in.readRetainedSlice(pending));
            pending = -1;
            release();
            frames++;
            disarm();
        }
    }

    /** Stops reading until the budget has room; decodes again (retrying the reservation) every few ms. */
    private void waitForBudget(ChannelHandlerContext ctx) {
        arm(ctx);
        if (!waiting) {
            waiting = true;
            ctx.channel().config().setAutoRead(false);
        }
        ctx.executor().schedule(() -> {
            if (waiting && ctx.channel().isActive()) {
                try {
                    channelRead(ctx, Unpooled.EMPTY_BUFFER);
                    ctx.fireChannelReadComplete(); // the handlers after flush what they answered
                } catch (Exception e) {
                    ctx.fireExceptionCaught(e);
                }
            }
        }, RETRY_MS, TimeUnit.MILLISECONDS);
    }

    /** Starts the deadline of the frame that has begun, unless it runs already. */
    private void arm(ChannelHandlerContext ctx) {
        if (deadline != null) {
            return;
        }
        long frame = frames;
        long ns = guard.limits().frameDeadlineNs();
        deadline = ctx.executor().schedule(() -> {
            deadline = null;
            if (frames == frame && ctx.channel().isActive()) {
                if (waiting) {
                    refuse(ctx, "frame-memory", "a frame waited " + TimeUnit.NANOSECONDS.toMillis(ns) + " ms ("
                            + guard.option("frame-deadline") + ") for room in the frame memory, which frames being "
                            + "received fill (" + guard.frameBytesInUse() + " of " + guard.limits().frameMemoryBytes()
                            + " bytes, " + guard.option("frame-memory") + ")");
                } else {
                    refuse(ctx, "frame-deadline", "a frame " + (pending < 0 ? "prefix" : "of " + pending + " bytes")
                            + " not received within " + TimeUnit.NANOSECONDS.toMillis(ns) + " ms of its first byte ("
                            + guard.option("frame-deadline") + ")");
                }
            }
        }, ns, TimeUnit.NANOSECONDS);
    }

    private void disarm() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    private void release() {
        if (reserved > 0) {
            guard.releaseFrame(reserved);
            reserved = 0;
        }
    }

    private void refuse(ChannelHandlerContext ctx, String cause, String what) {
        guard.refusals().refuse(cause, ctx.channel().remoteAddress() + ": " + what + "; closing the connection");
        release();
        disarm();
        pending = -1;
        waiting = false;
        refused = true;
        ctx.close();
    }

    /**
     * While waiting for the budget, no read is asked for: {@link ByteToMessageDecoder} would ask
     * for one after a read that made no frame, and the paused connection would go on being read.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (waiting) {
            ctx.fireChannelReadComplete();
            return;
        }
        super.channelReadComplete(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        release();
        disarm();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        release();
        disarm();
        super.channelInactive(ctx);
    }
}
