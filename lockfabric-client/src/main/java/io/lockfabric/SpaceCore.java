package io.lockfabric;

import io.lockfabric.client.EndpointPool;
import io.lockfabric.fabric.ClientRuntime;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * What lock spaces and range spaces share: submitting requests to the pool and waiting for them
 * (abandoning on timeout or interrupt), leases and loss listeners, and the statistics.
 *
 * <p>Two paths: {@link #acquireHere} runs the protocol on the caller's thread (no hand-off);
 * {@link #submit} queues the request for an endpoint and a virtual thread, so that the caller can
 * give up on it (a timeout, an interrupt, a cancelled future).
 */
abstract class SpaceCore {
    /**
     * The statistics of a protocol client of this space on one endpoint, as {@link #stats()} last
     * saw them. A client's own {@code stats()} builds a map of every counter (several microseconds),
     * so they are not taken at every release: a release only counts itself, and the snapshot is
     * taken every {@value #PUBLISH_EVERY} releases, by {@link #stats()} for endpoints not in use,
     * and before the client closes. So {@link #stats()} is exact for every endpoint not in use when
     * it is called, and an endpoint in use adds what it had at most {@value #PUBLISH_EVERY} releases
     * before.
     */
    static final class StatsCell {
        /**
         * Releases after which the user of an endpoint publishes its client's statistics: a
         * snapshot builds a map of every counter, and every 64 releases it still took 3% of a
         * client's samples on the shm fabric.
         */
        static final int PUBLISH_EVERY = 1024;
        volatile LockStats last = LockStats.ZERO;
        /** Releases not in {@link #last} yet; only the endpoint's user (or an idle-endpoint action) touches it. */
        int unpublished;

        /** Counts a release by the endpoint's user; true if the client's statistics are now to be published. */
        boolean released() {
            return ++unpublished >= PUBLISH_EVERY;
        }

        /** Whether a release is not in {@link #last} yet. */
        boolean behind() {
            return unpublished > 0;
        }

        /** Publishes the client's statistics {@code now} (by whoever has the endpoint). */
        void publish(LockStats now) {
            last = now;
            unpublished = 0;
        }
    }

    /**
     * The keys of this process's requests in flight on one slot, with their counts: almost always
     * one key, kept without a map; a map only while several keys share the slot. With local
     * handovers ({@link LockFabric#localHandovers()}), also the slot's cohort: the request of this
     * process that the memory node sees and the requests queued behind it in the process.
     */
    private static final class SlotUse {
        /** The slot; set when the use is taken from its stripe ({@link SlotTable.Stripe#getOrAdd}). */
        long slot;
        /** The next slot in use of the same {@link SlotTable} stripe, or null. */
        SlotUse next;
        String key;
        int keyCount;
        /** The other keys, or null while there is only {@link #key}. */
        Map<String, Integer> others;
        int total;
        /** The cohort's owner: the request acquiring or holding the slot for the queue behind it, or null. */
        PooledHold owner;
        /** Requests waiting for the owner's grant, oldest first; null until one waits. */
        ArrayDeque<PooledHold> waiters;

        SlotUse(long slot) {
            this.slot = slot;
        }

        /** Makes this use, whose slot has no request any more, a fresh one for {@code s}. */
        void reuseFor(long s) {
            slot = s;
            next = null;
            key = null;
            keyCount = 0;
            others = null;
            total = 0;
            owner = null; // an empty queue of waiters stays for the next cohort
        }

        /**
         * Makes the oldest waiter that has not given up the owner, told {@code turn}; the waiters
         * dequeued that had given up go to {@code gaveUp}, their requests ended here. Null if none.
         */
        PooledHold nextOwner(int turn, List<PooledHold> gaveUp) {
            owner = null;
            PooledHold n;
            while (waiters != null && (n = waiters.poll()) != null) {
                if (n.turn.complete(turn)) {
                    owner = n;
                    return n;
                }
                remove(n.request().key()); // gave up (its LockFabric closed): it is not on the slot any more
                gaveUp.add(n);
            }
            return null;
        }

        /** Counts a request for {@code k}; whether another key was in flight on the slot. */
        boolean add(String k) {
            total++;
            if (key == null || key.equals(k)) {
                key = k;
                keyCount++;
                return others != null;
            }
            if (others == null) {
                others = new HashMap<>();
            }
            others.merge(k, 1, Integer::sum);
            return true;
        }

        /** Ends a request for {@code k}; whether the slot is now unused. */
        boolean remove(String k) {
            if (k.equals(key)) {
                if (--keyCount == 0) {
                    key = null;
                    if (others != null) { // another key takes the first place
                        Map.Entry<String, Integer> e = others.entrySet().iterator().next();
                        key = e.getKey();
                        keyCount = e.getValue();
                        others.remove(key);
                        if (others.isEmpty()) {
                            others = null;
                        }
                    }
                }
            } else if (others != null) {
                others.computeIfPresent(k, (x, n) -> n == 1 ? null : n - 1);
                if (others.isEmpty()) {
                    others = null;
                }
            }
            return --total == 0;
        }
    }

    /**
     * This process's requests in flight by slot ({@link SlotUse}): a fixed array of stripes, each a
     * short chain of the slots in use that hash to it. Whoever reads or changes a slot's use holds its
     * stripe's monitor, so that the counts and the cohort's queue change atomically. It replaced a
     * {@code ConcurrentHashMap}, whose compute boxed the slot and allocated a node and a lambda on
     * every acquisition and release: a quarter of the workload threads' profile samples on the shm
     * fabric (16 virtual threads, 100 000 locks).
     */
    private static final class SlotTable {
        /** Enough that the slots of a pool's requests in flight rarely share a stripe. */
        private static final int STRIPES = 64;
        private final Stripe[] stripes = new Stripe[STRIPES];

        /**
         * One stripe: the slots in use that hash to it, guarded by its monitor. Padded to more than a
         * cache line, so that two stripes made one after the other never share one: threads on two
         * processors taking neighbouring stripes would otherwise pass the line back and forth.
         */
        @SuppressWarnings("unused")
        static final class Stripe {
            SlotUse head;
            /**
             * The use last dropped, kept for the next slot that comes into use here: in steady use
             * each request would otherwise make one, and it is only ever reached under the monitor.
             */
            SlotUse spare;
            private long p1, p2, p3, p4, p5, p6;

            /** The use of {@code slot}, or null if no request is on it. */
            SlotUse get(long slot) {
                for (SlotUse u = head; u != null; u = u.next) {
                    if (u.slot == slot) {
                        return u;
                    }
                }
                return null;
            }

            /** The use of {@code slot}, added if no request is on it. */
            SlotUse getOrAdd(long slot) {
                SlotUse u = get(slot);
                if (u == null) {
                    u = spare;
                    if (u != null) {
                        spare = null;
                        u.reuseFor(slot);
                    } else {
                        u = new SlotUse(slot);
                    }
                    u.next = head;
                    head = u;
                }
                return u;
            }

            /** Drops {@code u}, whose slot has no request any more (it may come back as the {@link #spare}). */
            void drop(SlotUse u) {
                if (head == u) {
                    head = u.next;
                } else {
                    for (SlotUse p = head; p != null; p = p.next) {
                        if (p.next == u) {
                            p.next = u.next;
                            break;
                        }
                    }
                }
                if (u.waiters == null || u.waiters.isEmpty()) {
                    u.next = null;
                    spare = u;
                }
            }
        }

        SlotTable() {
            for (int i = 0; i < STRIPES; i++) {
                stripes[i] = new Stripe();
            }
        }

        /** The stripe of {@code slot}: its monitor guards the slot's use. */
        Stripe stripe(long slot) {
            long h = slot * 0x9E3779B97F4A7C15L; // the slots of a table are consecutive numbers: spread them
            return stripes[(int) (h >>> 58)];
        }
    }

    final LockFabric fabric;
    private final String name;
    private final String protocolName;
    private final FailureModel failureModel;
    private final List<Consumer<Held>> listeners = new CopyOnWriteArrayList<>();
    private final List<StatsCell> cells = new CopyOnWriteArrayList<>();
    private final SlotTable inFlight = new SlotTable();
    private final Set<Long> falseConflictSlots = ConcurrentHashMap.newKeySet();
    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder waits = new LongAdder();
    private final LongAdder abandoned = new LongAdder();
    private final LongAdder falseConflicts = new LongAdder();
    private final LongAdder localHandovers = new LongAdder();
    private final LongAdder losses = new LongAdder();
    /** How long grants took, from the request to the grant; striped by thread ({@link StripedHistogram}). */
    private final StripedHistogram waitNs = new StripedHistogram(3);
    /** Requests of this space not ended yet (queued, acquiring, or held). */
    private final LongAdder requests = new LongAdder();
    private volatile boolean dropped;
    /** {@link LockFabric#localHandovers()}: 0, or how often in a row an exclusive grant may pass within the process. */
    private final int maxLocalHandovers;
    /** Whether a hold of some mode has a lease ({@link #leaseNs}): if not, nothing reads the clock for one. */
    private final boolean leases;

    SpaceCore(LockFabric fabric, String name, String protocolName, FailureModel failureModel) {
        this.fabric = fabric;
        this.maxLocalHandovers = fabric.localHandovers();
        this.name = name;
        this.protocolName = protocolName;
        this.failureModel = failureModel;
        boolean any = false;
        for (Mode m : Mode.values()) {
            any |= leaseNs(m) > 0;
        }
        this.leases = any;
    }

    /** Whether a hold of some mode has a lease: whether an acquisition notes when its lease starts. */
    boolean leases() {
        return leases;
    }

    public String name() {
        return name;
    }

    public String protocol() {
        return protocolName;
    }

    /** The name of this space's table on the memory node. */
    abstract String tableName();

    /**
     * Marks the space dropped, so that no request starts any more, unless a request is in flight:
     * then nothing changes and the count is returned. The flag is set before the count is read, and
     * a request counts itself before it reads the flag, so one of the two always sees the other.
     */
    long tryMarkDropped() {
        dropped = true;
        long inFlight = requests.sum();
        if (inFlight > 0) {
            dropped = false;
        }
        return inFlight;
    }

    /** Requests of this space in this process not ended yet: queued, acquiring or held (tests). */
    long requestsInFlight() {
        return requests.sum();
    }

    /** Undoes {@link #tryMarkDropped} (the memory node refused the drop). */
    void unmarkDropped() {
        dropped = false;
    }

    /** Opens this space's protocol client on {@code worker}'s endpoint if not yet open. */
    abstract void openOn(EndpointPool.Worker worker);

    abstract Grant acquireOn(EndpointPool.Worker worker, Request request);

    abstract void releaseOn(EndpointPool.Worker worker, Grant grant);

    /** The retries counted so far by this space's protocol client on {@code worker}'s endpoint (for JFR). */
    abstract long retriesOn(EndpointPool.Worker worker);

    /** A new statistics cell for a client of this space on one endpoint. */
    StatsCell newCell() {
        StatsCell c = new StatsCell();
        cells.add(c);
        return c;
    }

    /** Opens the space's table on an endpoint of the pool now, so that a mismatch shows at once. */
    void openNow() {
        EndpointPool.Worker w = fabric.checkout();
        try {
            if (w.memoryNodeLost() != null) {
                throw new FabricUnreachableException(fabric.address(), w.memoryNodeLost());
            }
            w.runProtocol(() -> {
                openOn(w);
                return null;
            });
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        } catch (RuntimeException e) {
            throw openFailed(e);
        } finally {
            fabric.checkin(w);
        }
    }

    private RuntimeException openFailed(Throwable cause) {
        if (cause instanceof TableMismatchException) {
            return new SpaceMismatchException("space '" + name + "' exists on " + fabric.address()
                    + " with other options than " + protocolName + " and these: " + cause.getMessage(), cause);
        }
        if (cause instanceof LockFabricException lfe) {
            return lfe;
        }
        return new LockFabricException("cannot open space '" + name + "' on " + fabric.address() + ": "
                + cause.getMessage(), cause);
    }

    /** What an acquisition's failure becomes for the caller. */
    RuntimeException acquireFailed(Request request, RuntimeException e) {
        if (e instanceof TableMismatchException || e instanceof LockFabricException) {
            return openFailed(e);
        }
        return new LockFabricException("cannot acquire " + request.key() + " (" + request.mode() + ") in space '"
                + name + "' (" + protocolName + "): " + e.getMessage(), e);
    }

    // ---- submitting and waiting

    /**
     * A new request, counted and tracked; {@code cohort}: it may queue behind this process's
     * request on its slot ({@link LockFabric#localHandovers()}), when it finds one, and then has
     * a {@link PooledHold#turn}.
     */
    private PooledHold newHold(Request r, long autoReleaseNs, boolean cohort) {
        requests.increment(); // before the check: a drop sets the flag, then counts (see tryMarkDropped)
        if (dropped) {
            requests.decrement();
            throw new LockFabricException("space '" + name + "' was dropped; open it again to make a new, empty one");
        }
        PooledHold h = new PooledHold(this, r, autoReleaseNs, nowNs(), !fabric.hasFreeEndpoint());
        if (r.slot() >= 0) {
            beginOnSlot(r, h, cohort);
        }
        try {
            fabric.track(h);
        } catch (RuntimeException e) {
            h.granted.completeExceptionally(e); // a waiter gives up its turn (see nextOwner)
            if (h.turn == null || h.turn.join() == PooledHold.TURN_SERVER) {
                ended(h);
            } // else the holder that handed it the grant releases it, or whoever dequeues it ends it
            throw e;
        }
        return h;
    }

    /**
     * The fast path: checks out an endpoint and acquires on the calling thread, uninterruptibly
     * (an interrupt is kept for afterwards); the hold keeps the endpoint. With local handovers, an
     * exclusive request that finds another of this process on its slot waits for it instead: for
     * its grant ({@link #handOver}), or for its turn to ask the memory node.
     */
    PooledHold acquireHere(Request r) {
        PooledHold h = newHold(r, 0, maxLocalHandovers > 0 && r.mode() == Mode.EXCLUSIVE);
        if (h.turn != null && awaitTurn(h) != PooledHold.TURN_SERVER) {
            return awaitUninterruptibly(h); // handed over (or, if its LockFabric closed, failed)
        }
        EndpointPool.Worker w;
        try {
            w = fabric.checkout();
        } catch (RuntimeException e) {
            ended(h);
            throw e;
        }
        h.acquireOn(w);
        return awaitUninterruptibly(h);
    }

    /**
     * The abandonable path: queues the request for an endpoint without a thread; once it has one, a
     * virtual thread acquires. The caller waits for {@link PooledHold#granted} as it likes.
     */
    PooledHold submit(Request r, long autoReleaseNs) {
        PooledHold h = newHold(r, autoReleaseNs, false);
        h.granted.whenComplete((v, e) -> {
            if (e instanceof CancellationException) { // a timeout, an interrupt, a cancelled future
                abandoned.increment();
            }
        });
        try {
            fabric.checkoutAsync(w -> fabric.runtime().start("lockfabric-acquire", () -> h.acquireOn(fabric.ready(w))),
                    why -> {
                        h.granted.completeExceptionally(new LockFabricException("request for " + r.key() + " in space "
                                + name + " dropped: " + why.getMessage(), why));
                        ended(h);
                    });
        } catch (RuntimeException e) {
            ended(h);
            throw e;
        }
        return h;
    }

    /** Waits for a cohort request's turn ({@link PooledHold#turn}), uninterruptibly (the interrupt status is kept). */
    private int awaitTurn(PooledHold h) {
        try {
            return getUninterruptibly(h.turn);
        } catch (ExecutionException e) {
            throw new AssertionError("a turn is only ever completed with a value", e);
        }
    }

    /** Waits for a request without a bound, uninterruptibly (the interrupt status is kept). */
    PooledHold awaitUninterruptibly(PooledHold h) {
        try {
            return getUninterruptibly(h.granted);
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        }
    }

    /** {@link #get} without a bound, uninterruptibly (the interrupt status is kept). */
    private <T> T getUninterruptibly(CompletableFuture<T> f) throws ExecutionException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return get(f, -1);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException unbounded) {
                    throw new AssertionError("a wait without a bound timed out", unbounded);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits for a request at most {@code timeoutNs} ({@code < 0}: without a bound); null if it timed
     * out. On a timeout or an interrupt the request is abandoned.
     */
    PooledHold await(PooledHold h, long timeoutNs) throws InterruptedException {
        try {
            return get(h.granted, timeoutNs);
        } catch (InterruptedException e) {
            PooledHold got = abandon(h);
            if (got != null) {
                got.close();
            }
            throw e;
        } catch (TimeoutException e) {
            return abandon(h);
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        } catch (RuntimeException cannotWait) { // on the simulator, outside a simulated process
            PooledHold got = abandon(h);
            if (got != null) {
                got.close();
            }
            throw cannotWait;
        }
    }

    /**
     * {@code f.get}, bounded by {@code timeoutNs} unless it is negative. In virtual time (the
     * simulator) the caller parks through the fabric's runtime, which passes the simulation on; a
     * thread blocked in {@code get} would stop it.
     */
    private <T> T get(CompletableFuture<T> f, long timeoutNs)
            throws InterruptedException, ExecutionException, TimeoutException {
        ClientRuntime runtime = fabric.runtime();
        if (!runtime.virtualTime() || f.isDone()) {
            return timeoutNs < 0 ? f.get() : f.get(timeoutNs, TimeUnit.NANOSECONDS);
        }
        ClientRuntime.Parker parker = runtime.parker();
        f.whenComplete((v, e) -> parker.unpark());
        long deadline = timeoutNs < 0 ? 0 : runtime.nanoTime() + timeoutNs;
        while (!f.isDone()) {
            if (timeoutNs < 0) {
                parker.park();
            } else {
                long left = deadline - runtime.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException();
                }
                parker.parkNanos(left);
            }
        }
        return f.get();
    }

    /** {@link #await} for the methods that throw {@link LockInterruptedException} instead. */
    PooledHold awaitUnchecked(PooledHold h, long timeoutNs) {
        try {
            return await(h, timeoutNs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(h.request().key() + " in space '" + name + "'");
        }
    }

    /** Gives up on a request: null, or the hold if it was granted before giving up took. */
    private PooledHold abandon(PooledHold h) {
        if (h.granted.cancel(false)) {
            return null; // counted by the hook of submit
        }
        try {
            return h.granted.getNow(null);
        } catch (CompletionException | CancellationException e) {
            return null;
        }
    }

    private static RuntimeException unwrap(Throwable cause) {
        if (cause instanceof RuntimeException re) {
            return re;
        }
        return new LockFabricException(String.valueOf(cause.getMessage()), cause);
    }

    long tryWaitNs(Duration wait) {
        long ns;
        try {
            ns = wait.toNanos();
        } catch (ArithmeticException huge) {
            ns = Long.MAX_VALUE;
        }
        return Math.max(ns, fabric.tryLockGraceNs());
    }

    CompletableFuture<Held> async(Request r) {
        PooledHold h = submit(r, 0);
        // the caller's future is the request's own: cancelling it abandons the request
        @SuppressWarnings({"unchecked", "rawtypes"})
        CompletableFuture<Held> f = (CompletableFuture) h.granted;
        return f;
    }

    // ---- what the requests report

    long nowNs() {
        return fabric.nowNs();
    }

    long slowAcquireNs() {
        return fabric.slowAcquireNs();
    }

    /**
     * How long a hold granted in {@code granted} is valid, counted from the start of its
     * acquisition ({@link Leases}); 0 if it never expires.
     */
    long leaseNs(Mode granted) {
        return Leases.validForNs(Leases.protocolLeaseNs(failureModel, granted));
    }

    ClientRuntime.Cancellable schedule(Runnable r, long delayNs) {
        return fabric.schedule(r, delayNs);
    }

    /**
     * Counts {@code r} on its slot; whether this process had another request on the slot. With
     * {@code h} (a request that may join a cohort): it becomes the slot's cohort owner, or, if the
     * slot has one, waits behind it (gets a {@link PooledHold#turn}).
     */
    private boolean beginOnSlot(Request r, PooledHold h, boolean cohort) {
        long slot = r.slot();
        SlotTable.Stripe stripe = inFlight.stripe(slot);
        boolean seen;
        boolean otherKey;
        synchronized (stripe) {
            SlotUse u = stripe.getOrAdd(slot);
            seen = u.total > 0;
            otherKey = u.add(r.key());
            if (seen && h != null) {
                h.waitedOnSlot();
            }
            if (cohort) {
                h.inCohort = true;
                if (u.owner == null) {
                    u.owner = h;
                } else {
                    h.waitForTurn();
                    if (u.waiters == null) {
                        u.waiters = new ArrayDeque<>();
                    }
                    u.waiters.add(h);
                }
            }
        }
        if (otherKey) {
            falseConflicts.increment();
            falseConflictSlots.add(slot);
        }
        return seen;
    }

    /**
     * Passes {@code h}'s exclusive grant, with its endpoint {@code w}, to the oldest request of
     * this process waiting behind it on its slot: the local handover of {@link
     * LockFabric#localHandovers()}. True if one took it ({@code h} has then ended: it neither
     * releases nor checks {@code w} in); false if none waits, {@code h} has passed the grant on
     * often enough, or the grant's lease is half gone: {@code h} releases to the memory node.
     */
    boolean handOver(PooledHold h, EndpointPool.Worker w) {
        if (!h.inCohort || h.localPasses >= maxLocalHandovers || !h.leaseAllowsHandover()) {
            return false;
        }
        Request r = h.request();
        List<PooledHold> gaveUp = new ArrayList<>(0);
        PooledHold n = null;
        SlotTable.Stripe stripe = inFlight.stripe(r.slot());
        synchronized (stripe) {
            SlotUse u = stripe.get(r.slot());
            if (u != null && u.owner == h && u.waiters != null && !u.waiters.isEmpty()) {
                n = u.nextOwner(PooledHold.TURN_HANDED, gaveUp);
                if (n != null) {
                    u.remove(r.key()); // the slot stays in use: the new owner is on it
                } else {
                    u.owner = h; // nobody left to take it: h stays the owner and releases
                }
            }
        }
        endGaveUp(gaveUp);
        if (n == null) {
            return false;
        }
        requests.decrement();
        fabric.untrack(h);
        localHandovers.increment();
        n.adopt(h, w);
        return true;
    }

    /** Ends the requests of waiters that gave up, dequeued by {@link SlotUse#nextOwner}. */
    private void endGaveUp(List<PooledHold> gaveUp) {
        for (PooledHold g : gaveUp) {
            requests.decrement();
            fabric.untrack(g);
        }
    }

    void ended(PooledHold h) {
        endRequest(h.request(), h);
        fabric.untrack(h);
    }

    /**
     * Counts a request of a {@link LockSession} as begun (so that the space cannot be dropped under
     * it, and for the false-conflict count): whether this process had another request on its slot.
     *
     * @throws LockFabricException if the space was dropped
     */
    boolean beginRequest(Request r) {
        requests.increment(); // before the check: a drop sets the flag, then counts (see tryMarkDropped)
        if (dropped) {
            requests.decrement();
            throw new LockFabricException("space '" + name + "' was dropped; open it again to make a new, empty one");
        }
        return r.slot() >= 0 && beginOnSlot(r, null, false);
    }

    /** Ends what {@link #beginRequest} began. */
    void endRequest(Request r) {
        endRequest(r, null);
    }

    /**
     * Ends {@code r}, the request of {@code h} (or null); if {@code h} owned its slot's cohort, the
     * oldest waiter behind it becomes the owner and asks the memory node.
     */
    private void endRequest(Request r, PooledHold h) {
        requests.decrement();
        if (r.slot() < 0) {
            return;
        }
        List<PooledHold> gaveUp = h != null && h.inCohort ? new ArrayList<>(0) : null;
        SlotTable.Stripe stripe = inFlight.stripe(r.slot());
        synchronized (stripe) {
            SlotUse u = stripe.get(r.slot());
            if (u != null) {
                if (gaveUp != null && u.owner == h) {
                    u.nextOwner(PooledHold.TURN_SERVER, gaveUp); // its thread goes on to the memory node
                }
                if (u.remove(r.key())) {
                    stripe.drop(u);
                }
            }
        }
        if (gaveUp != null) {
            endGaveUp(gaveUp);
        }
    }

    void granted(long waitedNs, boolean waited) {
        waitNs.record(Math.max(0, waitedNs));
        if (waited) {
            waits.increment();
        }
    }

    void delivered(PooledHold h) {
        acquisitions.increment();
    }

    /** A grant delivered to a {@link LockSession}. */
    void deliveredToSession() {
        acquisitions.increment();
    }

    /** The caller had given up before {@link #delivered}: the hold is released at once, not counted. */
    void undelivered() {
        acquisitions.decrement();
    }

    /**
     * {@code h} was lost while open ({@code why}: {@code lease} or {@code server}), once per hold:
     * counted, recorded for JFR, and told to the listeners on the scheduler's thread.
     */
    void lost(PooledHold h, String why, long heldForNs) {
        lost(h, h.request().slot(), why, heldForNs);
    }

    /** {@link #lost(PooledHold, String, long)} for any hold of this space, on {@code slot}. */
    void lost(Held h, long slot, String why, long heldForNs) {
        losses.increment();
        LostEvent e = new LostEvent();
        if (e.shouldCommit()) {
            e.space = name;
            e.key = h.key();
            e.slot = slot;
            e.mode = h.mode().name();
            e.fencingToken = h.fencingToken();
            e.why = why;
            e.heldFor = heldForNs;
            e.commit();
        }
        if (listeners.isEmpty()) {
            return;
        }
        try {
            fabric.schedule(() -> tell(h), 0);
        } catch (RejectedExecutionException closing) {
            // the LockFabric is closing: its holds are released without a loss being reported
        }
    }

    private void tell(Held h) {
        for (Consumer<Held> l : listeners) {
            try {
                l.accept(h);
            } catch (RuntimeException e) {
                // a listener's failure is its own; the other listeners are still told
            }
        }
    }

    public void onLoss(Consumer<Held> listener) {
        listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    public Optional<Duration> lease() {
        return failureModel.recoversFromCrash() && failureModel.leaseNs() > 0 && failureModel.leaseNs() != Long.MAX_VALUE
                ? Optional.of(Duration.ofNanos(failureModel.leaseNs())) : Optional.empty();
    }

    /** Publishes the statistics of this space's client on {@code idle}, an endpoint no one has checked out. */
    abstract void publishStatsOn(EndpointPool.Worker idle);

    /**
     * Lets this space's client on {@code idle}, an endpoint no one has checked out, answer what
     * other clients wait for ({@link LockFabric#answerWhileIdle}). Default: nothing.
     */
    void answerOn(EndpointPool.Worker idle) {
    }

    /** The acquisitions this space counted (a sum of a counter: for telling activity from rest). */
    long acquisitionCount() {
        return acquisitions.sum();
    }

    public LockSpaceStats stats() {
        fabric.forEachIdleEndpoint(this::publishStatsOn);
        LockStats protocolStats = LockStats.ZERO;
        for (StatsCell c : cells) {
            protocolStats = protocolStats.plus(c.last);
        }
        Histogram waited = waitNs.snapshot();
        long p50 = waited.getTotalCount() == 0 ? 0 : waited.getValueAtPercentile(50);
        long p99 = waited.getTotalCount() == 0 ? 0 : waited.getValueAtPercentile(99);
        return new LockSpaceStats(acquisitions.sum(), waits.sum(), protocolStats.counter(LockStats.HANDOVERS),
                localHandovers.sum(), abandoned.sum(),
                protocolStats.retries(),
                falseConflicts.sum(), falseConflictSlots.size(), losses.sum(), p50, p99, protocolStats);
    }
}
