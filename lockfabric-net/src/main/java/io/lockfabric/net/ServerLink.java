package io.lockfabric.net;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.MalformedFrameException;
import io.lockfabric.net.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * A client's connection to the memory node, shared by the endpoints of its {@link TcpFabric} opened
 * on it: requests go out with fresh ids through the channel's {@link Outbox} (the frames of
 * concurrent callers share system calls), replies are matched to their waiters by id, in whatever
 * order they come (an rpc may be answered after later verbs).
 * {@link #call} blocks the calling thread: it spins and yields briefly (a loopback round trip is
 * tens of microseconds) unless {@link #ACTIVE_WAITER_LIMIT} other callers of the process already
 * do, then parks until the I/O thread hands over the reply. If the connection drops, every waiter
 * fails with a {@link FabricException}, after the {@link #onLost} listeners of every endpoint still
 * on it have been told (unless the fabric closed it itself); an interrupted waiter gives up with a
 * {@link WaitInterruptedException}. Thread-safe.
 */
final class ServerLink extends SimpleChannelInboundHandler<ByteBuf> {
    /** Busy polls before yielding: a reply on an idle loopback may come back within them. */
    static final int SPINS = 200;
    /**
     * How long to yield before parking: a loopback round trip takes tens of microseconds, and a
     * yield lets the I/O threads run on a busy machine where parking would add its wake-up latency.
     */
    static final long YIELD_NS = 200_000;
    /**
     * At most this many callers of this process spin and yield at once (one per core); the
     * others park at once: more threads burning CPU while they wait would take it from the I/O
     * threads that bring the replies.
     */
    static final int ACTIVE_WAITER_LIMIT = Math.max(1, Runtime.getRuntime().availableProcessors());
    private static final java.util.concurrent.atomic.AtomicInteger ACTIVE_WAITERS = new java.util.concurrent.atomic.AtomicInteger();

    private final String server;
    private final Map<Long, Waiter> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);
    private volatile Channel channel;
    private volatile Outbox outbox;
    private volatile String lostBecause;
    /** Told once of a loss, by owner (an endpoint); guarded by this, null once they have been told. */
    private Map<Object, List<Consumer<? super FabricException>>> lossListeners = new java.util.HashMap<>();
    private volatile boolean closing;

    ServerLink(String server) {
        this.server = server;
    }

    void attach(Channel channel) {
        this.outbox = Outbox.of(channel);
        this.channel = channel;
    }

    Channel channel() {
        return channel;
    }

    /** Closes the connection on its owner's behalf: not a loss, no listener is told. */
    void closeByOwner() {
        closing = true;
        Channel ch = channel;
        if (ch != null) {
            ch.close().syncUninterruptibly();
        }
    }

    /**
     * Tells {@code listener} of {@code owner} once when the connection is lost (not closed by
     * {@link #closeByOwner}), on the I/O thread that sees it, before the waiters are failed; at once
     * if it is lost already; never once {@link #forget forgotten}.
     */
    void onLost(Object owner, Consumer<? super FabricException> listener) {
        synchronized (this) {
            if (lossListeners != null) {
                lossListeners.computeIfAbsent(owner, o -> new ArrayList<>()).add(listener);
                return;
            }
        }
        if (!closing) {
            listener.accept(lost());
        }
    }

    /** {@code owner} (a closed endpoint) is told of nothing any more. */
    synchronized void forget(Object owner) {
        if (lossListeners != null) {
            lossListeners.remove(owner);
        }
    }

    /**
     * Sends the request that {@code make} builds for a fresh id and waits for its reply.
     *
     * @throws WaitInterruptedException if the calling thread is interrupted before the request goes
     *                                  out (nothing is sent) or while it waits (the memory node may
     *                                  still execute the request; its reply is dropped)
     */
    Frame call(LongFunction<Frame> make) {
        return call(make, Long.MAX_VALUE);
    }

    /**
     * {@link #call(LongFunction)}, giving up after {@code timeoutNs} with a {@link FabricException}
     * (the memory node may still execute the request; its reply is dropped).
     */
    Frame call(LongFunction<Frame> make, long timeoutNs) {
        return call(make, timeoutNs, true);
    }

    /**
     * {@link #call(LongFunction, long)} that an interrupt does not end: the thread's interrupt
     * status is set again once the reply has come. For the requests whose effect the client must
     * know (an endpoint opened or closed on this shared connection).
     */
    Frame callUninterruptibly(LongFunction<Frame> make, long timeoutNs) {
        boolean interrupted = Thread.interrupted();
        try {
            return call(make, timeoutNs, false);
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Frame call(LongFunction<Frame> make, long timeoutNs, boolean interruptible) {
        long deadline = timeoutNs == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + timeoutNs;
        if (interruptible) {
            WaitInterruptedException.throwIfInterrupted("a reply of the memory node");
        }
        boolean deferredInterrupt = false;
        long id = nextId.getAndIncrement();
        Frame request = make.apply(id);
        Channel ch = channel;
        Outbox outbox = this.outbox;
        ByteBuf out = ch.alloc().ioBuffer();
        try {
            WireCodec.encode(request, out);
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
        Waiter w = new Waiter(Thread.currentThread());
        pending.put(id, w);
        if (lostBecause != null) {
            pending.remove(id);
            out.release();
            throw lost();
        }
        outbox.send(out);
        if (!Thread.currentThread().isVirtual() // a virtual thread parks at once: see RealTimeClock
                && ACTIVE_WAITERS.incrementAndGet() <= ACTIVE_WAITER_LIMIT) {
            try {
                for (int i = 0; i < SPINS && w.reply == null; i++) {
                    Thread.onSpinWait();
                }
                long until = System.nanoTime() + YIELD_NS;
                while (w.reply == null && System.nanoTime() < until) {
                    Thread.yield();
                }
            } finally {
                ACTIVE_WAITERS.decrementAndGet();
            }
        } else if (!Thread.currentThread().isVirtual()) {
            ACTIVE_WAITERS.decrementAndGet();
        }
        try {
            while (w.reply == null) {
                if (deadline == Long.MAX_VALUE) {
                    LockSupport.park(this);
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        pending.remove(id);
                        throw new FabricException("no reply from the memory node " + server + " within "
                                + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
                    }
                    LockSupport.parkNanos(this, left);
                }
                if (!interruptible) {
                    deferredInterrupt |= Thread.interrupted(); // else park would return at once, again and again
                } else if (w.reply == null && Thread.currentThread().isInterrupted()) {
                    try {
                        WaitInterruptedException.throwIfInterrupted("a reply of the memory node");
                    } catch (WaitInterruptedException e) {
                        pending.remove(id); // only when giving up: a deferred interrupt goes on waiting for the reply
                        throw e;
                    }
                }
            }
        } finally {
            if (deferredInterrupt) {
                Thread.currentThread().interrupt();
            }
        }
        if (w.reply == Waiter.LOST) {
            throw lost();
        }
        return w.reply;
    }

    private FabricException lost() {
        return new FabricException("connection to the memory node " + server + " is lost: " + lostBecause);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
        Frame f;
        try {
            f = WireCodec.decode(in);
        } catch (MalformedFrameException e) {
            // the server spoke garbage: nothing on this connection can be trusted any more
            fail("malformed reply: " + e.getMessage());
            ctx.close();
            return;
        }
        Waiter w = pending.remove(f.requestId());
        if (w != null) {
            w.reply = f;
            LockSupport.unpark(w.thread);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail("connection closed");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(cause.toString());
        ctx.close();
    }

    private void fail(String why) {
        List<Consumer<? super FabricException>> tell = null;
        synchronized (this) {
            if (lostBecause == null) {
                lostBecause = why;
            }
            if (lossListeners != null) {
                tell = new ArrayList<>();
                for (List<Consumer<? super FabricException>> ls : lossListeners.values()) {
                    tell.addAll(ls);
                }
                lossListeners = null;
            }
        }
        if (tell != null && !closing) {
            FabricException e = lost();
            for (Consumer<? super FabricException> l : tell) {
                try {
                    l.accept(e);
                } catch (RuntimeException ignored) {
                    // a listener's failure is its own; the others and the waiters are still told
                }
            }
        }
        for (Long id : pending.keySet()) {
            Waiter w = pending.remove(id);
            if (w != null) {
                w.reply = Waiter.LOST;
                LockSupport.unpark(w.thread);
            }
        }
    }

    boolean isLost() {
        return lostBecause != null;
    }

    private static final class Waiter {
        static final Frame LOST = new Frame.ErrorReply(0, io.lockfabric.net.wire.ErrorCode.REFUSED, "lost");
        final Thread thread;
        volatile Frame reply;

        Waiter(Thread thread) {
            this.thread = thread;
        }
    }
}
