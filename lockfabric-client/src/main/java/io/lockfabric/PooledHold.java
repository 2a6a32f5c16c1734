package io.lockfabric;

import io.lockfabric.client.EndpointPool;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.Mode;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request of a space, from the queue to the release: the job an endpoint of the pool runs and,
 * once granted, the {@link Held} the caller gets.
 *
 * <p>Its endpoint's thread acquires, delivers the hold by completing {@link #granted} (or, if the
 * caller has given up and cancelled it, releases at once), then waits until the hold is closed and
 * releases on the same endpoint. The caller never runs protocol code, so no timeout or interrupt
 * of the caller can cut an acquisition short.
 *
 * <p>A hold is lost once, whichever comes first: its lease runs out ({@link #checkLease}, on the
 * scheduler) or its endpoint loses the memory node ({@link #memoryNodeLost}, on a fabric thread).
 * A hold lost to its memory node frees its endpoint at once (the release cannot reach the server,
 * and the lock went with it); closing it later does nothing. A request still acquiring then fails
 * with a {@link FabricUnreachableException}: its thread is interrupted out of any wait.
 */
final class PooledHold implements Held, EndpointPool.Job {
    final CompletableFuture<PooledHold> granted = new CompletableFuture<>();
    private final SpaceCore space;
    private final Request request;
    private final boolean async;
    private final long autoReleaseNs;
    private final long submittedNs;
    private final boolean waitedForEndpointOrSlot;

    // written by the endpoint's thread before granted completes
    private Grant grant;
    private Clock clock;
    private long grantNs;
    private long leaseNs;
    private Thread workerThread;

    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch releaseRequested = new CountDownLatch(1);
    private final CompletableFuture<Void> released = new CompletableFuture<>();
    private final AtomicBoolean lost = new AtomicBoolean();
    /** Why the endpoint lost its memory node while this request was on it, or null. */
    private volatile FabricException serverLost;
    /** The endpoint's thread while it runs protocol code (interrupted on a loss); guarded by {@code this}. */
    private Thread inProtocol;
    /** The request's JFR event, begun at submission; null unless a recording enables it. */
    private final AcquireEvent acquireEvent;
    private volatile ScheduledFuture<?> leaseWatch;
    private volatile ScheduledFuture<?> autoRelease;

    PooledHold(SpaceCore space, Request request, boolean async, long autoReleaseNs, long submittedNs,
               boolean waitedForEndpointOrSlot) {
        this.space = space;
        this.request = request;
        this.async = async;
        this.autoReleaseNs = autoReleaseNs;
        this.submittedNs = submittedNs;
        this.waitedForEndpointOrSlot = waitedForEndpointOrSlot;
        AcquireEvent e = new AcquireEvent();
        if (e.isEnabled()) {
            e.begin();
            this.acquireEvent = e;
        } else {
            this.acquireEvent = null;
        }
    }

    Request request() {
        return request;
    }

    @Override
    public void run(EndpointPool.Worker worker) {
        if (granted.isDone()) {
            space.ended(this);
            return;
        }
        FabricException gone = worker.memoryNodeLost();
        if (gone != null) {
            granted.completeExceptionally(new FabricUnreachableException(space.fabric.address(), gone));
            space.ended(this);
            return;
        }
        long startedNs = space.nowNs();
        long retriesBefore = acquireEvent == null ? 0 : space.retriesOn(worker);
        Grant g;
        enterProtocol();
        try {
            g = space.acquireOn(worker, request);
        } catch (RuntimeException e) {
            leaveProtocol();
            FabricException why = serverLost;
            granted.completeExceptionally(why != null ? new FabricUnreachableException(space.fabric.address(), why)
                    : space.acquireFailed(request, e));
            space.ended(this);
            return;
        }
        leaveProtocol();
        FabricException why = serverLost;
        if (why != null) {
            // granted as the memory node went (or by a node-mate's local handover): the lock went with it
            releaseQuietly(worker, g);
            granted.completeExceptionally(new FabricUnreachableException(space.fabric.address(), why));
            space.ended(this);
            return;
        }
        grant = g;
        clock = worker.endpoint().clock();
        grantNs = clock.nanoTime();
        leaseNs = space.leaseNs(g.mode());
        workerThread = Thread.currentThread();
        long now = space.nowNs();
        space.granted(now - submittedNs, waitedForEndpointOrSlot || now - startedNs > space.slowAcquireNs());
        if (acquireEvent != null) {
            commitAcquire(g, space.retriesOn(worker) - retriesBefore);
        }
        HoldEvent holdEvent = new HoldEvent();
        boolean holdTimed = holdEvent.isEnabled();
        if (holdTimed) {
            holdEvent.begin();
        }
        if (async) {
            Thread.ofVirtual().name("lockfabric-grant").start(this::deliver);
        } else {
            deliver();
        }
        boolean closing = false;
        while (!closing) {
            try {
                releaseRequested.await();
                break;
            } catch (InterruptedException e) {
                closing = worker.poolClosing();
            }
        }
        try {
            if (serverLost != null) {
                releaseQuietly(worker, g);
            } else {
                enterProtocol();
                try {
                    space.releaseOn(worker, g);
                } finally {
                    leaveProtocol();
                }
            }
            released.complete(null);
        } catch (RuntimeException e) {
            if (serverLost != null) {
                released.complete(null); // the lock went with the memory node: nothing is left to release
            } else {
                released.completeExceptionally(e);
            }
        } finally {
            if (holdTimed) {
                holdEvent.end();
                if (holdEvent.shouldCommit()) {
                    holdEvent.space = space.name();
                    holdEvent.key = request.key();
                    holdEvent.slot = request.slot();
                    holdEvent.mode = g.mode().name();
                    holdEvent.fencingToken = g.fencingToken();
                    holdEvent.lost = lost.get();
                    holdEvent.commit();
                }
            }
            space.ended(this);
        }
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

    /** A release on an endpoint that lost its memory node: it fails at its first verb, or hands over locally. */
    private void releaseQuietly(EndpointPool.Worker worker, Grant g) {
        try {
            space.releaseOn(worker, g);
        } catch (RuntimeException ignored) {
            // the memory node is gone, and the lock with it
        }
        Thread.interrupted(); // an interrupt of memoryNodeLost that came after the protocol code: not for the next job
    }

    private synchronized void enterProtocol() {
        inProtocol = Thread.currentThread();
    }

    private synchronized void leaveProtocol() {
        inProtocol = null;
        if (serverLost != null) {
            Thread.interrupted(); // memoryNodeLost's interrupt, if it came after the protocol's last wait
        }
    }

    /**
     * The endpoint lost its memory node (a fabric thread): an acquisition in progress is interrupted
     * out of its waits and fails; a delivered hold is lost and frees its endpoint.
     */
    @Override
    public void memoryNodeLost(FabricException why) {
        serverLost = why;
        synchronized (this) {
            if (inProtocol != null) {
                inProtocol.interrupt();
            }
        }
        reportServerLoss();
    }

    /** Reports the loss of a delivered, open hold to its memory node; called by both sides of the race with {@link #deliver}. */
    private void reportServerLoss() {
        if (serverLost != null && isOpen() && lost.compareAndSet(false, true)) {
            cancelTimers();
            space.lost(this, "server", clock.nanoTime() - grantNs);
            releaseRequested.countDown();
        }
    }

    /** Hands the hold to the caller, or releases it if the caller gave up. */
    private void deliver() {
        space.delivered(this); // before complete(): dependent stages run inside it and may read the stats
        if (granted.complete(this)) {
            if (leaseNs > 0 && leaseNs != Long.MAX_VALUE) {
                leaseWatch = space.schedule(this::checkLease, leaseNs);
            }
            if (autoReleaseNs > 0) {
                autoRelease = space.schedule(this::releaseInBackground, autoReleaseNs);
            }
            if (closed.get()) {
                cancelTimers();
            }
            reportServerLoss();
        } else {
            space.undelivered();
            closed.set(true);
            releaseRequested.countDown();
        }
    }

    @Override
    public void discard(RuntimeException why) {
        granted.completeExceptionally(new LockFabricException("request for " + request.key() + " in space "
                + space.name() + " dropped: " + why.getMessage(), why));
        space.ended(this);
    }

    private void checkLease() {
        if (closed.get()) {
            return;
        }
        long left = leaseNs - (clock.nanoTime() - grantNs);
        if (left > 0) {
            leaseWatch = space.schedule(this::checkLease, left);
        } else if (lost.compareAndSet(false, true)) {
            space.lost(this, "lease", clock.nanoTime() - grantNs);
        }
    }

    /** Releases without waiting for the release (the scheduler's auto-release, the fabric's close). */
    void releaseInBackground() {
        if (closed.compareAndSet(false, true)) {
            cancelTimers();
            releaseRequested.countDown();
        }
    }

    /** Whether this request was delivered and not closed yet. */
    boolean isOpen() {
        return granted.isDone() && !granted.isCompletedExceptionally() && !closed.get();
    }

    private void cancelTimers() {
        ScheduledFuture<?> w = leaseWatch;
        if (w != null) {
            w.cancel(false);
        }
        ScheduledFuture<?> a = autoRelease;
        if (a != null) {
            a.cancel(false);
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
        return !closed.get() && !lost.get() && serverLost == null
                && (leaseNs <= 0 || leaseNs == Long.MAX_VALUE || clock.nanoTime() - grantNs < leaseNs);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        cancelTimers();
        releaseRequested.countDown();
        if (Thread.currentThread() == workerThread || serverLost != null) {
            return; // a lost memory node: the endpoint is freed without it, and the lock went with it
        }
        try {
            released.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new LockFabricException("releasing " + request.key() + " in space " + space.name() + " failed: "
                    + cause.getMessage(), cause);
        }
    }

    @Override
    public String toString() {
        return "Held[" + space.name() + " " + request.key() + " " + request.mode()
                + (granted.isDone() && !granted.isCompletedExceptionally() ? " token " + grant.fencingToken() : "")
                + (closed.get() ? ", closed" : "") + "]";
    }
}
