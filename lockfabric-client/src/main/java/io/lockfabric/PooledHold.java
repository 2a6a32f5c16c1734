package io.lockfabric;

import io.lockfabric.client.EndpointPool;
import io.lockfabric.fabric.Clock;
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
        long startedNs = space.nowNs();
        Grant g;
        try {
            g = space.acquireOn(worker, request);
        } catch (RuntimeException e) {
            granted.completeExceptionally(space.acquireFailed(request, e));
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
            space.releaseOn(worker, g);
            released.complete(null);
        } catch (RuntimeException e) {
            released.completeExceptionally(e);
        } finally {
            space.ended(this);
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
            space.lost(this);
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
        return !closed.get() && !lost.get()
                && (leaseNs <= 0 || leaseNs == Long.MAX_VALUE || clock.nanoTime() - grantNs < leaseNs);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        cancelTimers();
        releaseRequested.countDown();
        if (Thread.currentThread() == workerThread) {
            return;
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
