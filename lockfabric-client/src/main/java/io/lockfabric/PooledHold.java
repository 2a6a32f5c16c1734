package io.lockfabric;

import io.lockfabric.client.EndpointPool;
import io.lockfabric.fabric.ClientRuntime;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.Mode;

import jdk.jfr.EventType;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * One request of a space, from the queue for an endpoint to the release, and, once granted, the
 * {@link Held} the caller gets.
 *
 * <p>Whoever has checked out an endpoint for it runs {@link #acquireOn} on its own thread: the
 * application's thread on the fast path, a virtual thread on the abandonable one. The protocol
 * runs with interrupts deferred ({@link EndpointPool.Worker#runProtocol}), so no interrupt of the
 * caller can cut an acquisition short. The grant is delivered by completing {@link #granted}; if
 * the caller has given up (cancelled it) or the {@link LockFabric} closed meanwhile, the lock is
 * released at once and the endpoint checked in. The hold keeps its endpoint until {@link #close},
 * which releases on the closing thread (any thread, once) and checks the endpoint in.
 *
 * <p>A hold is lost once, whichever comes first: its lease runs out ({@link #checkLease}, called by
 * the {@link LockFabric}'s lease sweep on the scheduler) or its endpoint loses the memory node ({@link #memoryNodeLost}, its endpoint's watcher, on a fabric thread).
 * A hold lost to its memory node frees its endpoint at once (on a virtual thread: the release
 * cannot reach the server, and the lock went with it); closing it later does nothing. A request
 * still acquiring then fails with a {@link FabricUnreachableException}: its protocol code is
 * interrupted out of any wait.
 */
final class PooledHold implements Held, EndpointPool.LossWatcher {
    private static final VarHandle FLAGS;

    static {
        try {
            FLAGS = MethodHandles.lookup().findVarHandle(PooledHold.class, "flags", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link #flags}: closed by its holder, an auto-release or an undelivered grant. */
    private static final int CLOSED = 1;
    /** {@link #flags}: taken by whoever releases and checks the endpoint in: a close, an auto-release, a loss of the memory node. */
    private static final int FINISHED = 2;
    /** {@link #flags}: its loss was told (lease or memory node), once. */
    private static final int LOST = 4;
    /**
     * The JFR event types, asked before an event is made: with no recording enabling them, a
     * request allocates none (an event made to be asked would be, on every acquisition).
     */
    private static final EventType ACQUIRE_EVENTS = EventType.getEventType(AcquireEvent.class);
    private static final EventType HOLD_EVENTS = EventType.getEventType(HoldEvent.class);
    final CompletableFuture<PooledHold> granted = new CompletableFuture<>();
    /** The request's place in its {@link LockFabric}'s order of requests, set when it is tracked ({@link LockFabric#track}). */
    long sequence;
    /** {@link LiveHolds}' links, guarded by the monitor of the hold's stripe there. */
    PooledHold liveNext;
    PooledHold livePrev;
    boolean live;
    private final SpaceCore space;
    private final Request request;
    private final long autoReleaseNs;
    private final long submittedNs;
    /** Whether it found no free endpoint, or another request of this process on its slot (set before it is published). */
    private boolean waitedForEndpointOrSlot;

    /** {@link #turn}: the request asks the memory node itself (it owns its slot's cohort now). */
    static final int TURN_SERVER = 1;
    /** {@link #turn}: the owner handed its grant over ({@link #adopt}). */
    static final int TURN_HANDED = 2;
    /** {@link #turn}: the request gave up first ({@link #granted} failed: its LockFabric closed). */
    static final int TURN_GAVE_UP = 3;
    /** Whether the request is in its slot's cohort ({@link LockFabric#localHandovers()}): its owner, or waiting behind it. */
    boolean inCohort;
    /**
     * For a request that queued behind its slot's cohort owner, completed once: {@link
     * #TURN_SERVER}, {@link #TURN_HANDED} or {@link #TURN_GAVE_UP}, whoever comes first; null for
     * any other request.
     */
    CompletableFuture<Integer> turn;
    /** How many holders of this process had the grant before this one since the memory node granted it (local handovers). */
    int localPasses;

    // written by the acquiring thread before granted completes
    private volatile EndpointPool.Worker worker;
    private Grant grant;
    private Clock clock;
    private long grantNs;
    /** When the acquisition began on {@link #clock}, just before the protocol's first verb: the lease counts from here ({@link Leases}). */
    private long leaseFromNs;
    /** How long the hold is valid from {@link #leaseFromNs} ({@link Leases#validForNs}); 0: it never expires. */
    private long leaseNs;
    private HoldEvent holdEvent;

    /**
     * {@link #CLOSED}, {@link #FINISHED}, {@link #LOST}: each set once, atomically ({@link #set});
     * one word, not an atomic object each, since every request makes a hold.
     */
    private volatile int flags;
    /** Why the endpoint lost its memory node while this request was on it, or null. */
    private volatile FabricException serverLost;
    /** The request's JFR event, begun at submission; null unless a recording enables it. */
    private final AcquireEvent acquireEvent;
    private volatile ClientRuntime.Cancellable autoRelease;
    /** Told of this hold's loss instead of the space's listeners (a session's try), or null. */
    private volatile LossReport reportTo;

    /** Who is told of a hold's loss in place of the space's listeners. */
    interface LossReport {
        /** The hold was lost ({@code why}: {@code lease} or {@code server}) after {@code heldForNs} held. */
        void lost(String why, long heldForNs);
    }

    /** When the request was submitted, in the observer's time ({@link SpaceCore#nowNs}). */
    long submittedNs() {
        return submittedNs;
    }

    PooledHold(SpaceCore space, Request request, long autoReleaseNs, long submittedNs, boolean waitedForEndpoint) {
        this.space = space;
        this.request = request;
        this.autoReleaseNs = autoReleaseNs;
        this.submittedNs = submittedNs;
        this.waitedForEndpointOrSlot = waitedForEndpoint;
        if (ACQUIRE_EVENTS.isEnabled()) {
            AcquireEvent e = new AcquireEvent();
            e.begin();
            this.acquireEvent = e;
        } else {
            this.acquireEvent = null;
        }
    }

    Request request() {
        return request;
    }

    /** Sets {@code flag}; true if this call set it (it was clear). */
    private boolean set(int flag) {
        return ((int) FLAGS.getAndBitwiseOr(this, flag) & flag) == 0;
    }

    private boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** Another request of this process was on the slot when this one began. */
    void waitedOnSlot() {
        waitedForEndpointOrSlot = true;
    }

    /** Queues this request behind its slot's cohort owner: it gets a {@link #turn}, given up if {@link #granted} fails. */
    void waitForTurn() {
        CompletableFuture<Integer> t = new CompletableFuture<>();
        turn = t;
        granted.whenComplete((v, e) -> {
            if (e != null) {
                t.complete(TURN_GAVE_UP);
            }
        });
    }

    /** Whether a grant with a lease has more than half of it left, so that it may be passed on. */
    boolean leaseAllowsHandover() {
        return leaseNs <= 0 || leaseLeftNs() > leaseNs / 2;
    }

    /**
     * Takes {@code from}'s exclusive grant and its endpoint {@code w} (a local handover, on the
     * releasing thread), and delivers the hold as an acquisition would. {@code from} has ended:
     * the grant's lease and fencing token carry over, since the memory node granted the lock once.
     */
    void adopt(PooledHold from, EndpointPool.Worker w) {
        worker = w;
        localPasses = from.localPasses + 1;
        w.watch(this);
        FabricException gone = w.memoryNodeLost();
        if (gone != null) {
            releaseQuietly(w, from.grant);
            fail(w, new FabricUnreachableException(space.fabric.address(), gone));
            return;
        }
        grant = from.grant;
        clock = from.clock;
        grantNs = clock.nanoTime();
        leaseFromNs = from.leaseFromNs; // the memory node's lease runs from the first acquisition
        leaseNs = from.leaseNs;
        space.granted(observerTimeAt(clock, grantNs) - submittedNs, true);
        if (acquireEvent != null) {
            commitAcquire(grant, 0);
        }
        beginHoldEvent();
        deliver();
    }

    /**
     * The observer's time ({@link SpaceCore#nowNs}) when {@code c} read {@code readNs}: that reading
     * itself where both are the JVM's clock (a real-time fabric's observer time is {@link
     * System#nanoTime}; see {@link Clock#isSystemNanoTime}), else a reading of its own. In a profile
     * on the shm fabric each clock read took about 3% of the workload threads' samples.
     */
    private long observerTimeAt(Clock c, long readNs) {
        return c.isSystemNanoTime() && space.fabric.observerOnSystemClock() ? readNs : space.nowNs();
    }

    /**
     * Tells {@code to} of this hold's loss instead of the space's listeners: a {@link LockSession}'s
     * try, whose loss is the loss of the session's holds of its slot.
     */
    void reportLossTo(LossReport to) {
        reportTo = to;
    }

    private void tellLost(String why, long heldForNs) {
        LossReport to = reportTo;
        if (to != null) {
            to.lost(why, heldForNs);
        } else {
            space.lost(this, why, heldForNs);
        }
    }

    /**
     * Acquires on {@code w}, checked out for this request, on the calling thread, and delivers the
     * hold (or fails {@link #granted}). Never throws; on any outcome but a delivered hold the
     * endpoint is checked in.
     */
    void acquireOn(EndpointPool.Worker w) {
        worker = w;
        if (granted.isDone()) { // given up while it waited for an endpoint
            checkin(w);
            space.ended(this);
            return;
        }
        w.watch(this);
        FabricException gone = w.memoryNodeLost();
        if (gone != null) {
            fail(w, new FabricUnreachableException(space.fabric.address(), gone));
            return;
        }
        Clock c = w.endpoint().clock();
        long leaseFrom = space.leases() ? c.nanoTime() : 0; // before the protocol's first verb: see Leases
        Grant g;
        long retriesBefore;
        try {
            retriesBefore = acquireEvent == null ? 0 : space.retriesOn(w);
            g = w.runProtocol(PooledHold::acquireBody, this);
        } catch (RuntimeException e) {
            FabricException why = serverLost != null ? serverLost : w.memoryNodeLost();
            fail(w, why != null ? new FabricUnreachableException(space.fabric.address(), why) : space.acquireFailed(request, e));
            return;
        }
        FabricException why = serverLost;
        if (why != null) {
            // granted as the memory node went (or by a node-mate's local handover): the lock went with it
            releaseQuietly(w, g);
            fail(w, new FabricUnreachableException(space.fabric.address(), why));
            return;
        }
        grant = g;
        clock = c;
        grantNs = clock.nanoTime();
        leaseFromNs = Leases.leaseFrom(g, leaseFrom);
        leaseNs = space.leaseNs(g.mode());
        long now = observerTimeAt(c, grantNs);
        // slow from the request's submission: a wait for the endpoint is in it (and flagged already)
        space.granted(now - submittedNs, waitedForEndpointOrSlot || now - submittedNs > space.slowAcquireNs());
        if (acquireEvent != null) {
            commitAcquire(g, space.retriesOn(w) - retriesBefore);
        }
        beginHoldEvent();
        deliver();
    }

    /** The protocol's acquisition of {@code h}'s request on its worker (a body that captures nothing: see {@link EndpointPool.Worker#runProtocol(java.util.function.Function, Object)}). */
    private static Grant acquireBody(PooledHold h) {
        return h.space.acquireOn(h.worker, h.request);
    }

    /** The protocol's release of {@code h}'s grant on its worker. */
    private static Void releaseBody(PooledHold h) {
        h.space.releaseOn(h.worker, h.grant);
        return null;
    }

    private void fail(EndpointPool.Worker w, RuntimeException why) {
        checkin(w);
        granted.completeExceptionally(why);
        space.ended(this);
    }

    private void checkin(EndpointPool.Worker w) {
        space.fabric.checkin(w); // which stops the endpoint's watch of this hold
    }

    private void commitAcquire(Grant g, long retries) {
        AcquireEvent e = acquireEvent;
        e.end();
        if (e.shouldCommit()) {
            e.space = space.name();
            e.key = request.key();
            e.slot = request.slot();
            e.mode = g.mode().name();
            e.protocol = space.protocol();
            e.retries = retries;
            e.fencingToken = g.fencingToken();
            e.commit();
        }
    }

    /** Hands the hold to the caller, or releases it at once if the caller gave up (or the fabric closed). */
    private void deliver() {
        space.delivered(this); // before complete(): dependent stages run inside it and may read the stats
        if (granted.complete(this)) {
            if (leaseNs > 0) {
                space.fabric.watchLease(Math.max(0, leaseLeftNs()));
            }
            if (autoReleaseNs > 0) {
                scheduleAutoRelease(autoReleaseNs);
            }
            if (has(CLOSED)) {
                cancelTimers();
            }
            reportServerLoss();
        } else {
            space.undelivered();
            set(CLOSED);
            release(false);
        }
    }

    private void scheduleAutoRelease(long delayNs) {
        try {
            autoRelease = space.schedule(() -> space.fabric.runtime().start("lockfabric-release", this::releaseInBackground),
                    delayNs);
        } catch (RejectedExecutionException closing) {
            // the LockFabric is closing: it releases its holds itself
        }
    }

    /**
     * Releases on the calling thread and checks the endpoint in, unless another did (a loss of the
     * memory node frees the endpoint itself).
     *
     * @throws LockFabricException if {@code report} and the protocol failed to release
     */
    private void release(boolean report) {
        if (!set(FINISHED)) {
            return;
        }
        EndpointPool.Worker w = worker;
        Grant g = grant;
        if (inCohort && serverLost == null && !has(LOST) && g.mode() == Mode.EXCLUSIVE && space.handOver(this, w)) {
            endHoldEvent(g);
            return;
        }
        RuntimeException failure = null;
        try {
            if (serverLost != null) {
                releaseQuietly(w, g);
            } else {
                w.runProtocol(PooledHold::releaseBody, this);
            }
        } catch (RuntimeException e) {
            if (serverLost == null) {
                failure = e; // else the lock went with the memory node: nothing is left to release
            }
        } finally {
            endHoldEvent(g);
            checkin(w);
            space.ended(this);
        }
        if (failure != null && report) {
            throw new LockFabricException("releasing " + request.key() + " in space " + space.name() + " failed: "
                    + failure.getMessage(), failure);
        }
    }

    /** Begins the JFR event of the hold if a recording enables it. */
    private void beginHoldEvent() {
        if (HOLD_EVENTS.isEnabled()) {
            HoldEvent e = new HoldEvent();
            e.begin();
            holdEvent = e;
        }
    }

    private void endHoldEvent(Grant g) {
        HoldEvent e = holdEvent;
        if (e == null) {
            return;
        }
        e.end();
        if (e.shouldCommit()) {
            e.space = space.name();
            e.key = request.key();
            e.slot = request.slot();
            e.mode = g.mode().name();
            e.fencingToken = g.fencingToken();
            e.lost = has(LOST);
            e.commit();
        }
    }

    /** A release on an endpoint that lost its memory node: it fails at its first verb, or hands over locally. */
    private void releaseQuietly(EndpointPool.Worker w, Grant g) {
        try {
            space.releaseOn(w, g);
        } catch (RuntimeException ignored) {
            // the memory node is gone, and the lock with it
        }
    }

    /**
     * The endpoint lost its memory node (a fabric thread): an acquisition in progress fails (the
     * pool interrupts its waits); a delivered hold is lost and frees its endpoint. The hold is its
     * endpoint's watcher ({@link EndpointPool.Worker#watch}) itself, so that no watcher is made per
     * request; an application sees the hold only as a {@link Held}.
     */
    @Override
    public void memoryNodeLost(FabricException why) {
        serverLost = why;
        reportServerLoss();
    }

    /** Reports the loss of a delivered, open hold to its memory node; called by both sides of the race with {@link #deliver}. */
    private void reportServerLoss() {
        if (serverLost != null && isOpen() && set(LOST)) {
            cancelTimers();
            tellLost("server", clock.nanoTime() - grantNs);
            if (!has(FINISHED)) {
                space.fabric.runtime().start("lockfabric-lost", () -> release(false));
            }
        }
    }

    /**
     * For the lease sweep: reports the loss if the lease of this open hold has run out (once), and
     * returns how long it has left; {@code -1} if there is nothing to watch (no lease, not delivered,
     * closed or lost).
     */
    long checkLease() {
        if (leaseNs <= 0 || !isOpen() || has(LOST)) {
            return -1;
        }
        long left = leaseLeftNs();
        if (left > 0) {
            return left;
        }
        if (set(LOST)) {
            tellLost("lease", clock.nanoTime() - grantNs);
        }
        return -1;
    }

    /** Releases without reporting a failure (the auto-release, the fabric's close), on the calling thread. */
    void releaseInBackground() {
        if (set(CLOSED)) {
            cancelTimers();
            try {
                release(false);
            } catch (RuntimeException ignored) {
                // nobody to tell: the lock is left as a crashed client would leave it
            }
        }
    }

    /** Whether this request was delivered and not closed yet. */
    boolean isOpen() {
        return granted.isDone() && !granted.isCompletedExceptionally() && !granted.isCancelled() && !has(CLOSED);
    }

    private void cancelTimers() {
        ClientRuntime.Cancellable a = autoRelease;
        if (a != null) {
            a.cancel();
        }
    }

    @Override
    public String key() {
        return request.key();
    }

    @Override
    public Mode mode() {
        return grant.mode();
    }

    @Override
    public long fencingToken() {
        return grant.fencingToken();
    }

    @Override
    public boolean isValid() {
        return !has(CLOSED) && !has(LOST) && serverLost == null
                && (leaseNs <= 0 || leaseLeftNs() > 0);
    }

    /** What is left of the lease on the endpoint's clock (0 or less: it ran out); only with a lease. */
    private long leaseLeftNs() {
        return leaseNs - (clock.nanoTime() - leaseFromNs);
    }

    @Override
    public void close() {
        if (!set(CLOSED)) {
            return;
        }
        cancelTimers();
        reportLeaseOutlived();
        release(true);
    }

    /**
     * At its close, reports the loss of a hold that outlived its lease if the lease sweep has not
     * (once, as the sweep would): a stall of the whole process (a GC pause, a descheduled or
     * throttled process) delays the sweep's timer as much as the holder, and the holder, resumed
     * first, would otherwise close a hold that others may have taken with no loss told.
     */
    void reportLeaseOutlived() {
        Grant g = grant;
        if (g == null || leaseNs <= 0 || serverLost != null || has(LOST)) {
            return;
        }
        if (leaseLeftNs() <= 0 && set(LOST)) {
            tellLost("lease", clock.nanoTime() - grantNs);
        }
    }

    @Override
    public String toString() {
        return "Held[" + space.name() + " " + request.key() + " " + request.mode()
                + (isOpen() || has(CLOSED) && grant != null ? " token " + grant.fencingToken() : "")
                + (has(CLOSED) ? ", closed" : "") + "]";
    }
}
