package io.lockfabric.client;

import io.lockfabric.fabric.ClientRuntime;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.WaitInterruptedException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * <p><b>No lock while endpoints are free.</b> The free endpoints are on lock-free stacks, the most
 * recently checked in on top (its caches are warm): while nobody waits, a checkout pops and a
 * checkin pushes, one compare-and-set each, and neither takes the pool's monitor. (The pool was a
 * monitor around two queues before. On two processors with sixteen threads, every acquisition and
 * release passed its lines between the processors twice, and a thread descheduled inside it held
 * up all the others.) Each thread has a home stack, picked by its id: it checks in there, and
 * checks out from there first, so a thread that takes locks one after the other gets its own
 * endpoint back, with the lines of its lock clients still in its processor's cache; a thread whose
 * home is empty takes from the other stacks. The monitor guards the waiters only. A request that
 * finds every stack empty queues, publishes that someone waits ({@code waiting}), then looks at
 * the stacks again; a checkin pushes, then looks whether someone waits, and if so hands out what is
 * free to the oldest waiters.
 * Each side writes before it reads what the other wrote (both volatile), so one of the two always
 * sees the other: no waiter is left parked beside a free endpoint.
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
    /**
     * Told that a checked-out endpoint lost its memory node ({@link Worker#watch}), on a fabric
     * thread. An interface of its own, so that a request can be its endpoint's watcher itself and
     * make none per checkout.
     */
    @FunctionalInterface
    public interface LossWatcher {
        /** The endpoint lost its memory node: {@code why}. Keep it short, and do not use the endpoint. */
        void memoryNodeLost(FabricException why);
    }

    /** One endpoint of the pool and what its users keep on it (their lock clients). */
    public static final class Worker {
        private static final VarHandle IN_PROTOCOL;
        private static final VarHandle WATCHER;
        /** {@link #inProtocol}: the pool is interrupting the thread that ran protocol code. */
        private static final Object INTERRUPTING = new Object();
        /** {@link #inProtocol}: the pool has interrupted the thread that runs protocol code. */
        private static final Object INTERRUPTED = new Object();

        static {
            try {
                IN_PROTOCOL = MethodHandles.lookup().findVarHandle(Worker.class, "inProtocol", Object.class);
                WATCHER = MethodHandles.lookup().findVarHandle(Worker.class, "watcher", LossWatcher.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Map<Object, Object> clients = new IdentityHashMap<>();
        /** Owners whose clients are to be closed by the next user of this worker ({@link EndpointPool#forget}). */
        private final java.util.concurrent.ConcurrentLinkedQueue<Object> forgotten = new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final EndpointPool pool;
        private volatile Endpoint endpoint;
        private volatile FabricException lost;
        private volatile LossWatcher watcher;
        /**
         * The thread running protocol code on this endpoint ({@link #runProtocol}), to be interrupted on
         * a loss or a forced close; null when none does; {@link #INTERRUPTING} while {@link
         * #interruptProtocol} interrupts it, {@link #INTERRUPTED} once it has. A word changed by
         * compare-and-set, not a monitor: a protocol run enters with an ordered store and leaves with
         * one compare-and-set, where the two monitors it took before cost four, and every
         * acquisition and release is a run (see the README's client API section for what it saved).
         */
        @SuppressWarnings("unused") // through IN_PROTOCOL
        private volatile Object inProtocol;
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
                LossWatcher w = watcher;
                if (w != null) {
                    w.memoryNodeLost(why);
                }
                interruptProtocol();
            });
        }

        /**
         * Interrupts the thread running protocol code on this endpoint, if one is, once per run: it
         * clears the interrupt itself as it leaves the run ({@link #leaveProtocol}). A run that
         * begins just after this looked is not interrupted, as it was not when a monitor guarded the
         * word: after a loss of the memory node its verbs fail, and a forced close waits for it no
         * longer than its last grace.
         */
        private void interruptProtocol() {
            if (IN_PROTOCOL.getVolatile(this) instanceof Thread t && IN_PROTOCOL.compareAndSet(this, t, INTERRUPTING)) {
                try {
                    t.interrupt();
                } finally {
                    IN_PROTOCOL.setVolatile(this, INTERRUPTED);
                }
            }
        }

        /**
         * Ends {@code me}'s protocol run: if the pool interrupted it meanwhile, waits until the
         * interrupt is in and clears it (it was meant for the protocol's waits only), unless the run
         * set again an interrupt of the thread's owner that it had deferred.
         */
        private void leaveProtocol(Thread me) {
            Object was = IN_PROTOCOL.compareAndExchange(this, me, null);
            if (was == me || was == null) {
                return; // as it entered, or left already by an inner run
            }
            while (IN_PROTOCOL.getVolatile(this) == INTERRUPTING) {
                Thread.onSpinWait(); // the interrupter is between its compare-and-set and the interrupt
            }
            if (!deferral.reinterrupted()) { // else the owner's interrupt, deferred, is set again: it stays
                Thread.interrupted(); // the pool's interrupt, if it came after the protocol's last wait
            }
            IN_PROTOCOL.setVolatile(this, null);
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
        public void watch(LossWatcher w) {
            this.watcher = w;
        }

        /**
         * Stops telling the watcher, at checkin: an ordered store, not a volatile one's fence. A loss
         * that reads the watcher still set tells a request that has ended, which ignores it (its
         * endpoint is checked in); a watcher set by {@link #watch} stays a volatile store, so that a
         * loss racing it either sees it or is seen by {@link #memoryNodeLost()} after it.
         */
        void unwatch() {
            WATCHER.setRelease(this, (LossWatcher) null);
        }

        /**
         * Runs protocol code on this endpoint on the calling thread with interrupts deferred
         * ({@link WaitInterruptedException#deferringInterruptsUnless}): an interrupt of the thread
         * does not cut it short (its status is set again afterwards), but a loss of the memory node
         * or a pool closed past its grace does.
         */
        public <T> T runProtocol(Supplier<T> body) {
            return runProtocol(Supplier::get, body);
        }

        /**
         * {@link #runProtocol(Supplier)} of {@code body} applied to {@code argument}: with a body
         * that captures nothing (a static method's reference), a run allocates nothing of its own,
         * as an acquisition's and a release's do.
         */
        public <A, T> T runProtocol(Function<? super A, ? extends T> body, A argument) {
            Thread me = Thread.currentThread();
            IN_PROTOCOL.setRelease(this, me);
            endpoint.adopt();
            try {
                return deferral.run(body, argument);
            } finally {
                leaveProtocol(me);
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

    /** A free endpoint on the stack. A checkin pushes a new one: a node is never pushed twice, so a pop cannot be fooled (ABA). */
    private record Free(Worker worker, Free below) {
    }

    /**
     * One stack of free endpoints, the most recently checked in on top (null when empty), padded so
     * that two stacks made one after the other never share a cache line.
     */
    @SuppressWarnings("unused")
    private static final class Stack {
        private static final VarHandle TOP;

        static {
            try {
                TOP = MethodHandles.lookup().findVarHandle(Stack.class, "top", Free.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private long p0, p1, p2, p3, p4, p5, p6;
        private volatile Free top;
        private long q0, q1, q2, q3, q4, q5, q6;

        void push(Worker w) {
            Free f;
            do {
                f = top;
            } while (!TOP.compareAndSet(this, f, new Free(w, f)));
        }

        /** The endpoint on top, taken off, or null if this stack is empty. */
        Worker pop() {
            for (Free f = top; f != null; f = top) {
                if (TOP.compareAndSet(this, f, f.below)) {
                    return f.worker;
                }
            }
            return null;
        }
    }

    /** The most stacks a pool keeps (see {@link #stacksFor}). */
    static final int MAX_STACKS = 16;

    private final Fabric fabric;
    /**
     * The free endpoints, on {@code stacks.length} stacks (a power of two): a thread checks in onto
     * the stack its id picks and checks out from that stack first, so in steady use each thread gets
     * back the endpoint it used last, whose lines its processor still holds (an endpoint that went to
     * the other processor on every acquisition made each of its clients' lines travel). A thread
     * whose stack is empty takes from the others in turn. One stack in virtual time, where the
     * simulator's runs depend on which endpoint goes out: the most recently checked in.
     */
    private final Stack[] stacks;
    private final int stackMask;
    /** Requests waiting for an endpoint, oldest first; guarded by this pool's monitor. */
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private final List<Worker> all = new ArrayList<>();
    private final int size;
    /** {@code waiters.size()}, written under the monitor, read without it: 0 lets a checkout pop and a checkin push and go. */
    private volatile int waiting;
    private volatile boolean closed;
    private volatile boolean forced;
    /** Held by {@link #forEachIdle} while it has the free endpoints off the stack. */
    private final Object idleVisit = new Object();
    /** Set when {@link #close} closes the endpoints checked in: an endpoint checked in after that is closed by whoever finds it. */
    private volatile boolean drained;

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
        this.stacks = new Stack[stacksFor(size, fabric.clientRuntime().virtualTime())];
        for (int i = 0; i < stacks.length; i++) {
            stacks[i] = new Stack();
        }
        this.stackMask = stacks.length - 1;
        try {
            for (int i = 0; i < size; i++) {
                all.add(new Worker(fabric.newEndpoint(), this));
            }
        } catch (RuntimeException e) {
            for (Worker w : all) {
                w.closeAll();
            }
            throw e;
        }
        for (int i = size - 1; i >= 0; i--) { // dealt round the stacks, the first made on top: checked out first
            stacks[i & stackMask].push(all.get(i));
        }
    }

    /**
     * How many free stacks a pool of {@code size} endpoints keeps: one in virtual time; else {@code
     * size} rounded up to a power of two, at most {@link #MAX_STACKS}, so that the threads of a
     * pool sized for them seldom share a home.
     */
    static int stacksFor(int size, boolean virtualTime) {
        if (virtualTime || size <= 1) {
            return 1;
        }
        return Math.min(Integer.highestOneBit(size - 1) << 1, MAX_STACKS);
    }

    /** The stack of the calling thread: checkins go onto it, checkouts look there first. */
    private int home() {
        return stackMask == 0 ? 0 : homeOf(Thread.currentThread().threadId(), stackMask);
    }

    /** The home stack of the thread {@code threadId} among {@code mask + 1} stacks. */
    static int homeOf(long threadId, int mask) {
        return (int) KeyHash.fmix64(threadId) & mask;
    }

    /** The number of free stacks (for tests). */
    int stackCount() {
        return stacks.length;
    }

    private void push(Worker w) {
        stacks[home()].push(w);
    }

    /** A free endpoint taken off the stacks (the calling thread's own first), or null if none is free. */
    private Worker pop() {
        int home = home();
        Worker w = stacks[home].pop();
        for (int i = 1; w == null && i <= stackMask; i++) {
            w = stacks[(home + i) & stackMask].pop();
        }
        return w;
    }

    /**
     * A free endpoint for a request that may take one at once (nobody waits), or null. One taken
     * while {@link #close} began goes back: the request fails as if it had come after the close.
     *
     * @throws IllegalStateException if the pool is closed
     */
    private Worker popUnlessClosed() {
        if (closed) {
            throw new IllegalStateException("the endpoint pool is closed");
        }
        if (waiting != 0) {
            return null;
        }
        Worker w = pop();
        if (w != null && closed) {
            checkin(w);
            throw new IllegalStateException("the endpoint pool is closed");
        }
        return w;
    }

    /**
     * Gives free endpoints to the oldest waiters, as many as there are of both: called by a request
     * that has just queued, and by a checkin that found someone waiting after its push.
     */
    private void handOutFree() {
        List<Waiter> served = null;
        synchronized (this) {
            while (!waiters.isEmpty()) {
                Worker w = pop();
                if (w == null) {
                    break;
                }
                Waiter next = waiters.poll();
                next.worker = w;
                if (served == null) {
                    served = new ArrayList<>(2);
                }
                served.add(next);
            }
            waiting = waiters.size();
        }
        for (int i = 0; served != null && i < served.size(); i++) { // woken outside the monitor
            Waiter next = served.get(i);
            if (next.parker != null) {
                next.parker.unpark();
            } else {
                next.granted.accept(next.worker);
            }
        }
    }

    /** Queues {@code me} behind the requests waiting, then hands out what is free (it may be {@code me}'s turn at once). */
    private void enqueue(Waiter me) {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the endpoint pool is closed");
            }
            waiters.add(me);
            waiting = waiters.size();
        }
        handOutFree(); // after publishing that someone waits: an endpoint pushed before that is found here
    }

    /**
     * Checks out the next free endpoint for the calling thread, parking (uninterruptibly: the
     * interrupt status is kept) behind the requests that came before it.
     *
     * @throws IllegalStateException if the pool is closed
     */
    public Worker checkout() {
        Worker w = popUnlessClosed();
        if (w != null) {
            return ready(w);
        }
        Waiter me = new Waiter(fabric.clientRuntime().parker(), null, null);
        enqueue(me);
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
        Worker w = popUnlessClosed();
        if (w != null) {
            granted.accept(w);
            return;
        }
        enqueue(new Waiter(null, granted, failed));
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

    /** Returns {@code w} to the pool, its watcher dropped: to the oldest waiter, or to the free list. The caller no longer uses it. */
    public void checkin(Worker w) {
        w.unwatch();
        push(w);
        afterPush();
    }

    /** After endpoints went back on the stack: serves the requests that queued meanwhile, and a close that waits for them. */
    private void afterPush() {
        if (waiting != 0) { // read after the push: a request that queued before it is served here
            handOutFree();
        }
        if (closed) {
            if (drained) {
                closeFree(); // the pool closed its free endpoints already: these (and any other late one) too
            }
            synchronized (this) {
                notifyAll(); // a close awaiting the endpoints checked out
            }
        }
    }

    /** Closes every endpoint on the free stack (once the pool has closed; each is taken off first, so each is closed once). */
    private void closeFree() {
        for (Worker w = pop(); w != null; w = pop()) {
            w.closeAll();
        }
    }

    /** The endpoints on the free stacks now. */
    private int freeCount() {
        int n = 0;
        for (Stack st : stacks) {
            for (Free f = st.top; f != null; f = f.below) {
                n++;
            }
        }
        return n;
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
    public void forEachIdle(Consumer<Worker> action) {
        synchronized (idleVisit) { // two visits at once would each find the other's endpoints gone
            List<Worker> idle = new ArrayList<>();
            int[] from = new int[size];
            for (int s = 0; s < stacks.length; s++) { // taken off the stacks: a checkout meanwhile waits its turn
                for (Worker w = stacks[s].pop(); w != null; w = stacks[s].pop()) {
                    from[idle.size()] = s;
                    idle.add(w);
                }
            }
            try {
                for (Worker w : idle) {
                    action.accept(w);
                }
            } finally {
                for (int i = idle.size() - 1; i >= 0; i--) { // back onto their stacks in their order, each top on top again
                    stacks[from[i]].push(idle.get(i));
                }
                afterPush();
            }
        }
    }

    /** Whether a request now would find a free endpoint at once (a hint: another caller may take it first). */
    public boolean hasFreeEndpoint() {
        if (waiting != 0) {
            return false;
        }
        int home = home();
        for (int i = 0; i <= stackMask; i++) {
            if (stacks[(home + i) & stackMask].top != null) {
                return true;
            }
        }
        return false;
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
            waiting = 0;
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
        drained = true; // before taking them: an endpoint checked in after this is closed by its checkin
        closeFree();
    }

    private synchronized boolean awaitAllIn(long ns) {
        long deadline = System.nanoTime() + ns;
        while (freeCount() < size) {
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
