package io.lockfabric.net;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.net.wire.Frame;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * A client's connection to the memory node, shared by the endpoints of its {@link TcpFabric} opened
 * on it: requests go out with fresh ids, the frames of concurrent callers sharing system calls;
 * replies are matched to their waiters by id, in whatever order they come (an rpc may be answered
 * after later verbs). Two kinds: {@link DirectServerLink} (plain TCP: the callers write and read
 * the socket themselves) and {@link NettyServerLink} (TLS: Netty's I/O thread does).
 * {@link #call} blocks the calling thread. If the connection drops, every waiter fails with a
 * {@link FabricException}, after the {@link #onLost} listeners of every endpoint still on it have
 * been told (unless the fabric closed it itself); an interrupted waiter gives up with a
 * {@link WaitInterruptedException}. Thread-safe.
 */
abstract class ServerLink {
    /** Busy polls before yielding: a reply on an idle loopback may come back within them. */
    static final int SPINS = 200;
    /**
     * How long to yield before parking: a loopback round trip takes tens of microseconds, and a
     * yield lets the I/O threads run on a busy machine where parking would add its wake-up latency.
     */
    static final long YIELD_NS = 200_000;
    /**
     * At most this many callers of this process spin and yield at once (one per core); the
     * others park at once: more threads burning CPU while they wait would take it from the threads
     * that bring the replies.
     */
    static final int ACTIVE_WAITER_LIMIT = Math.max(1, Runtime.getRuntime().availableProcessors());
    private static final AtomicInteger ACTIVE_WAITERS = new AtomicInteger();

    private final String server;
    final Map<Long, Waiter> pending = new ConcurrentHashMap<>();
    final AtomicLong nextId = new AtomicLong(1);
    private volatile String lostBecause;
    /** Held by the thread failing the connection, while it tells the listeners and fails the waiters. */
    private final Object failing = new Object();
    /** Told once of a loss, by owner (an endpoint); guarded by this, null once they have been told. */
    private Map<Object, List<Consumer<? super FabricException>>> lossListeners = new java.util.HashMap<>();
    volatile boolean closing;

    ServerLink(String server) {
        this.server = server;
    }

    /** The local address of the connection (what this process's mailboxes announce by default). */
    abstract InetSocketAddress localAddress();

    /** Closes the connection on its owner's behalf: not a loss, no listener is told. */
    abstract void closeByOwner();

    /** Drops the connection as a network failure would (tests): a loss, the listeners are told. */
    abstract void sever();

    /**
     * Sends {@code request} (its waiter is registered already).
     *
     * @throws RuntimeException if it cannot be encoded (nothing is sent)
     */
    abstract void transmit(Frame request, Waiter w);

    /** {@code w} left the pending requests: its reply was handed to it, or it gave up waiting. */
    void settled(Waiter w) {
    }

    /**
     * Work the waiting caller {@code w} may do toward its reply before it parks (read the socket):
     * true if it did some (the caller checks its reply again), false if it cannot now.
     */
    boolean serve(Waiter w, long deadline) {
        return false;
    }

    /** Whether waiting callers spin and yield before parking. */
    boolean spinsBeforeParking() {
        return true;
    }

    /** True if nobody brings replies now ({@link #serve} would): a spinning caller stops spinning. */
    boolean readerIdle() {
        return false;
    }

    /**
     * A waiting caller starts ({@code true}) or stops spinning; after it stops, it calls {@link #serve}
     * once more before it parks.
     */
    void spinning(boolean start) {
    }

    /** Called once the reply of {@code w} has come, before {@link #call} returns. */
    void replied(Waiter w) {
    }

    /**
     * Tells {@code listener} of {@code owner} once when the connection is lost (not closed by
     * {@link #closeByOwner}), on the thread that sees it, before the waiters are failed; at once
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
        Waiter w = send(make, null);
        long id = w.id;
        boolean virtual = Thread.currentThread().isVirtual(); // a virtual thread parks at once: see RealTimeClock
        boolean spun = !spinsBeforeParking() || virtual;
        try {
            while (w.reply == null) {
                if (!virtual && serve(w, deadline)) {
                    if (!interruptible) {
                        deferredInterrupt |= Thread.interrupted();
                    }
                } else {
                    if (!spun) {
                        spun = true;
                        spin(w, this);
                        continue;
                    }
                    if (deadline == Long.MAX_VALUE) {
                        LockSupport.park(this);
                    } else {
                        long left = deadline - System.nanoTime();
                        if (left > 0) {
                            LockSupport.parkNanos(this, left);
                        }
                    }
                    if (!interruptible) {
                        deferredInterrupt |= Thread.interrupted(); // else park would return at once, again and again
                    }
                }
                if (w.reply != null) {
                    break;
                }
                if (deadline != Long.MAX_VALUE && deadline - System.nanoTime() <= 0) {
                    if (pending.remove(id) != null) {
                        settled(w);
                    }
                    replied(w);
                    throw new FabricException("no reply from the memory node " + server + " within "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
                }
                if (interruptible && Thread.currentThread().isInterrupted()) {
                    try {
                        WaitInterruptedException.throwIfInterrupted("a reply of the memory node");
                    } catch (WaitInterruptedException e) {
                        if (pending.remove(id) != null) { // only when giving up: a deferred interrupt goes on waiting
                            settled(w);
                        }
                        replied(w);
                        throw e;
                    }
                }
            }
        } finally {
            if (deferredInterrupt) {
                Thread.currentThread().interrupt();
            }
        }
        replied(w);
        if (w.reply == Waiter.LOST) {
            throw lost(); // set by fail(), after the listeners were told
        }
        return w.reply;
    }

    /**
     * Sends the request that {@code make} builds for a fresh id and returns at once: {@code onReply}
     * gets its reply on the thread that reads it (nobody if the connection is lost first; the loss
     * is told to the listeners as usual). In order with the caller's other requests.
     *
     * @throws FabricException if the connection is lost already (nothing is sent)
     */
    void post(LongFunction<Frame> make, Consumer<Frame> onReply) {
        send(make, onReply);
    }

    /**
     * Registers the request {@code make} builds for a fresh id (its reply goes to {@code onReply},
     * or to the calling thread if null) and sends it.
     *
     * @throws FabricException if the connection is lost already (nothing is sent)
     */
    private Waiter send(LongFunction<Frame> make, Consumer<Frame> onReply) {
        long id = nextId.getAndIncrement();
        Frame request = make.apply(id);
        Waiter w = new Waiter(Thread.currentThread(), id, onReply);
        pending.put(id, w);
        if (lostBecause != null) {
            pending.remove(id);
            throw lostOnceTold();
        }
        try {
            transmit(request, w);
        } catch (RuntimeException e) {
            if (pending.remove(id) != null) {
                settled(w);
            }
            throw e;
        }
        return w;
    }

    /** Spins, then yields, while the reply is not there (if few other callers of the process do). */
    private static void spin(Waiter w, ServerLink link) {
        if (ACTIVE_WAITERS.incrementAndGet() <= ACTIVE_WAITER_LIMIT) {
            link.spinning(true);
            try {
                for (int i = 0; i < SPINS && w.reply == null; i++) {
                    Thread.onSpinWait();
                }
                long until = System.nanoTime() + YIELD_NS;
                while (w.reply == null && System.nanoTime() < until && !link.readerIdle()) {
                    Thread.yield();
                }
            } finally {
                link.spinning(false);
                ACTIVE_WAITERS.decrementAndGet();
            }
        } else {
            ACTIVE_WAITERS.decrementAndGet();
        }
    }

    /** Hands {@code reply} to the waiter of its request id (if it still waits) and wakes it. */
    final void deliver(Frame reply) {
        Waiter w = pending.remove(reply.requestId());
        if (w != null) {
            settled(w);
            if (w.onReply != null) {
                try {
                    w.onReply.accept(reply);
                } catch (RuntimeException ignored) {
                    // the poster's handler keeps its failures (it records them for its next call)
                }
                return;
            }
            w.reply = reply;
            if (w.thread != Thread.currentThread()) {
                LockSupport.unpark(w.thread);
            }
        }
    }

    final FabricException lost() {
        return new FabricException("connection to the memory node " + server + " is lost: " + lostBecause);
    }

    final String server() {
        return server;
    }

    /**
     * {@link #lost()}, once the loss has been told: a caller that finds the connection lost while
     * another thread is still telling the listeners waits for it, so that it never reports the loss
     * before its endpoint's owner knows of it (the client API tells a lost memory node from a failed
     * request by what its listener was told).
     */
    private FabricException lostOnceTold() {
        synchronized (failing) {
            return lost();
        }
    }

    /**
     * The connection is lost (or closed by its owner): tells the listeners, then fails every waiter.
     * Threads that see the loss at once (callers reading or writing a direct link, its watcher) fail
     * it one at a time: a second one returns only after the first has told the listeners and failed
     * the waiters.
     */
    final void fail(String why) {
        synchronized (failing) {
            failOnce(why);
        }
    }

    private void failOnce(String why) {
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
            if (w != null && w.onReply == null) {
                w.reply = Waiter.LOST;
                LockSupport.unpark(w.thread);
            }
        }
    }

    boolean isLost() {
        return lostBecause != null;
    }

    /** A caller waiting for the reply to request {@code id}. */
    static final class Waiter {
        static final Frame LOST = new Frame.ErrorReply(0, io.lockfabric.net.wire.ErrorCode.REFUSED, "lost");
        final Thread thread;
        final long id;
        /** Null for a caller that waits; for a posted request, what gets its reply (nobody waits). */
        final Consumer<Frame> onReply;
        /** A request the memory node answers at once (not an rpc, which may wait): set before it is sent. */
        boolean prompt;
        volatile Frame reply;

        Waiter(Thread thread, long id, Consumer<Frame> onReply) {
            this.thread = thread;
            this.id = id;
            this.onReply = onReply;
        }

        /** Whether a thread waits for this reply (it may be woken to read). */
        boolean waited() {
            return onReply == null;
        }
    }
}
