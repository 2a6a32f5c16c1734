package io.lockfabric.net;

import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.internal.PlatformDependent;

import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Coalesced writes on one channel: many frames per system call under load, none delayed when
 * idle. A sender appends its encoded frame to a queue and, if no drain is pending, hands the
 * channel's event loop one drain task; the drain writes every queued frame and flushes once. While
 * the I/O thread is busy (serving replies, reading, flushing), the frames of every other sender
 * gather in the queue and leave in the next drain's single flush; on an idle channel the drain
 * runs as soon as the event loop wakes, so a lone frame waits for nothing.
 *
 * <p>Frames of one sending thread leave in the order it sent them (one queue, drained in order).
 * A drain that finds the channel closed releases what it writes (Netty fails those writes); one
 * that cannot be scheduled (the event loop is shut down) releases the queue. Thread-safe.
 */
final class Outbox implements Runnable {
    private static final AttributeKey<Outbox> KEY = AttributeKey.valueOf("lockfabric.outbox");

    private final Channel channel;
    private final Queue<ByteBuf> queue = PlatformDependent.newMpscQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    private Outbox(Channel channel) {
        this.channel = channel;
    }

    /** The outbox of {@code channel}, made on first use. */
    static Outbox of(Channel channel) {
        Attribute<Outbox> a = channel.attr(KEY);
        Outbox o = a.get();
        if (o == null) {
            Outbox made = new Outbox(channel);
            o = a.setIfAbsent(made);
            if (o == null) {
                o = made;
            }
        }
        return o;
    }

    /** Encodes {@code frame} and sends it ({@link #send(ByteBuf)}). */
    void send(Frame frame) {
        ByteBuf out = channel.alloc().ioBuffer();
        try {
            WireCodec.encode(frame, out);
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
        send(out);
    }

    /** Queues one encoded frame (this outbox owns it now) and makes sure a drain will write it. */
    void send(ByteBuf frame) {
        queue.offer(frame);
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            try {
                channel.eventLoop().execute(this);
            } catch (RejectedExecutionException shutDown) {
                scheduled.set(false);
                releaseQueued();
            }
        }
    }

    /** The drain, on the event loop: writes everything queued, then flushes once. */
    @Override
    public void run() {
        scheduled.set(false); // a frame queued from now on schedules the next drain
        ByteBuf f;
        boolean wrote = false;
        while ((f = queue.poll()) != null) {
            channel.write(f, channel.voidPromise());
            wrote = true;
        }
        if (wrote) {
            channel.flush();
        }
    }

    private void releaseQueued() {
        ByteBuf f;
        while ((f = queue.poll()) != null) {
            f.release();
        }
    }
}
