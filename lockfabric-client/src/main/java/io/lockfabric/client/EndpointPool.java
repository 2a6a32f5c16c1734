package io.lockfabric.client;

import io.lockfabric.fabric.ClientRuntime;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.WaitInterruptedException;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A bounded pool of endpoints of one fabric that any number of application threads share: a fair
 * free-list, not threads.
 *
 * <p>The pool makes its endpoints when it starts. Whoever needs one {@linkplain #checkout checks it
 * out}, runs protocol code on it on its own thread, and {@linkplain #checkin checks it in}; one
 * endpoint is used by one thread at a time (the hand-off through the pool orders one user's work
 * before the next's), but by different threads over time. When every endpoint is out, requests
 * wait in one FIFO queue in the order they came: a synchronous caller parks, an asynchronous
 * request ({@link #checkoutAsync}) waits as a callback, with no thread. A checked-in endpoint goes
 * to the oldest waiter.
 *
 * <p>A user may keep its endpoint as long as it needs (a lock request keeps it from the acquisition
 * until the release, as handover protocols require): the pool's size bounds how many requests are
 * in flight at once.
 *
 * <p><b>A lost memory node.</b> Each endpoint is watched ({@link Endpoint#onMemoryNodeLost}): the
 * current user of an endpoint that loses its memory node is told ({@link Worker#watch}) and its
 * protocol code is interrupted out of its waits ({@link Worker#runProtocol}); the next checkout of
 * that endpoint gets a new endpoint first, or, if none can be made, finds the loss and why in
 * {@link Worker#memoryNodeLost()} and should fail at once. Thread-safe.
 */
public final class EndpointPool implements AutoCloseable {
    /** One endpoint of the pool and what its users keep on it (their lock clients). */
    public static final class Worker {
        private final Map<Object, Object> clients = new IdentityHashMap<>();
        /** Owners whose clients are to be closed by the next user of this worker ({@link EndpointPool#forget}). */
        private final java.util.concurrent.ConcurrentLinkedQueue<Object> forgotten = new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final EndpointPool pool;
        private volatile Endpoint endpoint;
        private volatile FabricException lost;
        private volatile Consumer<FabricException> watcher;
        /** The thread running protocol code on this endpoint, interrupted on a loss or a forced close; guarded by {@code this}. */
        private Thread inProtocol;
        /** Whether {@link #interruptProtocol} interrupted {@link #inProtocol}; guarded by {@code this}. */
        private boolean interruptedByPool;
        /** Defers interrupts in {@link #runProtocol} unless the memory node was lost or the pool is forced closed. */
        private final WaitInterruptedException.Deferral deferral;

        private Worker(Endpoint endpoint, EndpointPool pool) {
            this.pool = pool;
            this.deferral = new WaitInterruptedException.Deferral(() -> lost != null || pool.forced);
            watchEndpoint(endpoint);
        }

        private void watchEndpoint(Endpoint e) {
            this.endpoint = e;
            e.onMemoryNodeLost(why -> {
                if (endpoint != e) {
                    return;
                }
                lost = why;
                Consumer<FabricException> w = watcher;
                if (w != null) {
                    w.accept(why);
                }
                interruptProtocol();
            });
        }

        private synchronized void interruptProtocol() {
            if (inProtocol != null) {
                interruptedByPool = true;
                inProtocol.interrupt();
            }
        }

        /**
         * Why this worker's endpoint lost its memory node, or null if it has not: the endpoint is
         * then dead (every verb fails), and no new one could be made.
         */
        public FabricException memoryNodeLost() {
            return lost;
        }

        /**
         * Tells {@code w} if the endpoint loses its memory node while it is checked out (on a
         * fabric thread; keep it short, do not use the endpoint); null to stop. Set by the user that
         * has it checked out; cleared at checkin.
         */
        public void watch(Consumer<FabricException> w) {
            this.watcher = w;
        }

        /**
         * Runs protocol code on this endpoint on the calling thread with interrupts deferred
         * ({@link WaitInterruptedException#deferringInterruptsUnless}): an interrupt of the thread
         * does not cut it short (its status is set again afterwards), but a loss of the memory node
         * or a pool closed past its grace does.
         */
        public <T> T runProtocol(Supplier<T> body) {
            synchronized (this) {
                inProtocol = Thread.currentThread();
            }
            endpoint.adopt();
            try {
                return deferral.run(body);
            } finally {
                synchronized (this) {
                    inProtocol = null;
                    if (interruptedByPool) {
                        interruptedByPool = false;
                        Thread.interrupted(); // the pool's interrupt, if it came after the protocol's last wait
                    }
                }
            }
        }

        /** Replaces a lost endpoint (and drops the clients kept on it) with a new one, if the fabric can make one. */
        private void replaceLostEndpoint(Fabric fabric) {
            FabricException why = lost;
            closeAll();
            try {
                Endpoint fresh = fabric.newEndpoint();
                lost = null;
                watchEndpoint(fresh);
            } catch (RuntimeException e) {
                lost = new FabricException(why.getMessage() + "; a new connection failed too: " + e.getMessage(), e);
            }
        }

        /** This worker's endpoint. */
        public Endpoint endpoint() {
            return endpoint;
        }

        /**
         * The object kept on this endpoint for {@code owner} (a lock space's client), made by
         * {@code open} the first time. It is closed with the endpoint if it is {@link AutoCloseable}.
         */
        public <T> T client(Object owner, Class<T> type, Function<Endpoint, T> open) {
            closeForgotten();
            Object c = clients.get(owner);
            if (c == null) {
                c = open.apply(endpoint);
                clients.put(owner, c);
            }
            return type.cast(c);
        }

        /**
         * The object kept on this endpoint for {@code owner}, or null if none was made. Only for whoever
         * has this worker: its user, or an action of {@link EndpointPool#forEachIdle}.
         */
        public <T> T existingClient(Object owner, Class<T> type) {
            return type.cast(clients.get(owner));
        }

        /** Whether the pool is closing. */
        public boolean poolClosing() {
            return pool.closed;
        }

        /** Closes the clients of owners the pool was told to forget (on the thread that has this worker). */
        private void closeForgotten() {
            for (Object owner = forgotten.poll(); owner != null; owner = forgotten.poll()) {
                closeQuietly(clients.remove(owner));
            }
        }

        private static void closeQuietly(Object client) {
            if (client instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception ignored) {
                    // a client that cannot close leaves nothing we could fix
                }
            }
        }

        private void closeAll() {
            clients.values().forEach(Worker::closeQuietly); // the pool is going away
            clients.clear();
            forgotten.clear();
            try {
                endpoint.close();
            } catch (RuntimeException ignored) {
                // a lost or closing endpoint: nothing is left to detach
            }
        }
    }

    /** A request waiting for an endpoint: a parked thread or a callback. */
    private static final class Waiter {
        final ClientRuntime.Parker parker;
        final Consumer<Worker> granted;
        final Consumer<RuntimeException> failed;
        volatile Worker worker;
        volatile RuntimeException failure;

        Waiter(ClientRuntime.Parker parker, Consumer<Worker> granted, Consumer<RuntimeException> failed) {
            this.parker = parker;
            this.granted = granted;
            this.failed = failed;
        }
    }

    private final Fabric fabric;
    private final ArrayDeque<Worker> free = new ArrayDeque<>();
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private final List<Worker> all = new ArrayList<>();
    private final int size;
    private volatile int freeHint;
    private volatile boolean closed;
    private volatile boolean forced;

    /**
     * Makes {@code size} endpoints of {@code fabric}.
     *
     * @throws IllegalArgumentException if {@code size < 1}
     * @throws RuntimeException         what the fabric threw making an endpoint (those made are closed)
     */
    public EndpointPool(Fabric fabric, int size) {
        if (size < 1) {
            throw new IllegalArgumentException("an endpoint pool needs at least one endpoint, got " + size);
        }
        this.fabric = fabric;
        this.size = size;
        try {
            for (int i = 0; i < size; i++) {
                Worker w = new Worker(fabric.newEndpoint(), this);
                all.add(w);
                free.add(w);
            }
        } catch (RuntimeException e) {
            for (Worker w : all) {
                w.closeAll();
            }
            throw e;
        }
        freeHint = size;
    }

    /**
     * Checks out the next free endpoint for the calling thread, parking (uninterruptibly: the
     * interrupt status is kept) behind the requests that came before it.
     *
     * @throws IllegalStateException if the pool is closed
     */
    public Worker checkout() {
        Waiter me;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the endpoint pool is closed");
            }
            if (waiters.isEmpty() && !free.isEmpty()) {
                Worker w = free.poll();
                freeHint = free.size();
                return ready(w);
            }
            me = new Waiter(fabric.clientRuntime().parker(), null, null);
            waiters.add(me);
        }
        while (me.worker == null && me.failure == null) {
            me.parker.park();
        }
        if (me.failure != null) {
            throw me.failure;
        }
        return ready(me.worker);
    }

    /**
     * Asks for the next free endpoint without a thread: {@code granted} runs with it when it is
     * this request's turn (on the thread that checked it in, or this one: start work elsewhere, do
     * not block), {@code failed} if the pool closes first.
     *
     * @throws IllegalStateException if the pool is closed
     */
    public void checkoutAsync(Consumer<Worker> granted, Consumer<RuntimeException> failed) {
        Worker w;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the endpoint pool is closed");
            }
            if (!waiters.isEmpty() || free.isEmpty()) {
                waiters.add(new Waiter(null, granted, failed));
                return;
            }
            w = free.poll();
            freeHint = free.size();
        }
        granted.accept(w);
    }

    /**
     * Prepares an endpoint checked out: a lost one is replaced first (on the thread that will use
     * it). Users of {@link #checkoutAsync} call it on their own thread before anything else.
     */
    public Worker ready(Worker w) {
        if (w.lost != null && !closed) {
            w.replaceLostEndpoint(fabric);
        }
        return w;
    }

    /** Returns {@code w} to the pool: to the oldest waiter, or to the free list. The caller no longer uses it. */
    public void checkin(Worker w) {
        w.watcher = null;
        Waiter next;
        synchronized (this) {
            if (closed) {
                free.add(w);
                freeHint = free.size();
                notifyAll();
                return;
            }
            next = waiters.poll();
            if (next == null) {
                free.push(w); // the most recently used first: its caches are warm
                freeHint = free.size();
                return;
            }
        }
        if (next.parker != null) {
            next.worker = w;
            next.parker.unpark();
        } else {
            next.granted.accept(w);
        }
    }

    /** The endpoints of the pool, as they are now (an endpoint lost with its memory node is replaced at its next checkout). */
    public List<Endpoint> endpoints() {
        List<Endpoint> list = new ArrayList<>(all.size());
        for (Worker w : all) {
            list.add(w.endpoint);
        }
        return list;
    }

    /**
     * Closes the clients every endpoint keeps for {@code owner} ({@link Worker#client}), each on the
     * thread of the endpoint's next user, before that user's own work: the owner is gone (a dropped
     * space) and nothing uses its clients any more.
     */
    public void forget(Object owner) {
        for (Worker w : all) {
            w.forgotten.add(owner);
        }
    }

    /**
     * Runs {@code action} on every endpoint checked in now, on the calling thread, while no one can
     * check it out: the action has the worker as its user would (what the last user did on it is
     * visible), and must be short and not use the pool. Endpoints checked out are skipped.
     */
    public synchronized void forEachIdle(Consumer<Worker> action) {
        for (Worker w : free) {
            action.accept(w);
        }
    }

    /** Whether a request now would find a free endpoint at once (a hint: another caller may take it first). */
    public boolean hasFreeEndpoint() {
        return freeHint > 0;
    }

    /** The number of endpoints. */
    public int size() {
        return size;
    }

    /**
     * Closes the pool: requests still waiting for an endpoint fail, endpoints checked out are
     * waited for up to {@code graceNs} (then their protocol code is interrupted, and waited for a
     * little longer), and every endpoint checked in is closed. Idempotent.
     */
    public void close(long graceNs) {
        List<Waiter> left;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            left = new ArrayList<>(waiters);
            waiters.clear();
        }
        RuntimeException why = new IllegalStateException("the endpoint pool was closed");
        for (Waiter w : left) {
            if (w.parker != null) {
                w.failure = why;
                w.parker.unpark();
            } else {
                w.failed.accept(why);
            }
        }
        // in virtual time (the simulator) nothing runs while the closer waits: it takes what is in
        if (!fabric.clientRuntime().virtualTime() && !awaitAllIn(graceNs)) {
            forced = true;
            for (Worker w : all) {
                w.interruptProtocol();
            }
            awaitAllIn(TimeUnit.SECONDS.toNanos(2));
        }
        synchronized (this) {
            for (Worker w : free) {
                w.closeAll();
            }
        }
    }

    private synchronized boolean awaitAllIn(long ns) {
        long deadline = System.nanoTime() + ns;
        while (free.size() < size) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** {@link #close(long)} with a grace of 5 seconds. */
    @Override
    public void close() {
        close(TimeUnit.SECONDS.toNanos(5));
    }
}
