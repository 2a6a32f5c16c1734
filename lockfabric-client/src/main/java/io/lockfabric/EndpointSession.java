package io.lockfabric;

import io.lockfabric.client.EndpointPool;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.Mode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link LockSession} of a {@link PointSpace}: one endpoint checked out while anything is held,
 * a grant per slot with the count of its holds, and the slots held through tries on endpoints of
 * their own. Only the session's thread touches {@link #slots} and {@link #worker}; the loss watcher
 * (a fabric thread) reads {@link #open} and writes {@link #lost}.
 */
final class EndpointSession implements LockSession {
    /** A slot held by the session: on its endpoint ({@code grant}) or on a try's own ({@code pooled}). */
    private static final class SlotHold {
        final Request request;
        final Grant grant;
        final PooledHold pooled;
        /** When the acquisition began on the session's clock: the lease counts from here ({@link Leases}). */
        final long leaseFromNs;
        /** When the grant was had on the session's clock (for the loss's {@code heldFor}). */
        final long grantNs;
        /** How long the grant is valid from {@link #leaseFromNs}; 0: it never expires (or a try's: its own). */
        final long leaseNs;
        int holds;

        SlotHold(Request request, Grant grant, PooledHold pooled, long leaseFromNs, long grantNs, long leaseNs) {
            this.request = request;
            this.grant = grant;
            this.pooled = pooled;
            this.leaseFromNs = leaseFromNs;
            this.grantNs = grantNs;
            this.leaseNs = leaseNs;
        }

        /** What is left of this grant's lease on {@code clock}; {@link Long#MAX_VALUE} if it has none to watch here. */
        long leaseLeftNs(Clock clock) {
            return grant == null || leaseNs <= 0 ? Long.MAX_VALUE : leaseNs - (clock.nanoTime() - leaseFromNs);
        }

        Mode mode() {
            return pooled != null ? pooled.mode() : grant.mode();
        }
    }

    private final PointSpace space;
    /** The order in which the lease sweep visits sessions (their creation order). */
    final long sequence;
    /**
     * Held by the session's thread while it acquires or releases, and by {@link #closeByFabric}:
     * a LockFabric closing releases the locks of a session that is between operations.
     */
    private final java.util.concurrent.locks.ReentrantLock busy = new java.util.concurrent.locks.ReentrantLock();
    private final Map<Long, SlotHold> slots = new HashMap<>();
    /** The holds given out and not closed, for the loss watcher. */
    private final List<SessionHold> open = new CopyOnWriteArrayList<>();
    private EndpointPool.Worker worker;
    private volatile Clock clock;
    /** Why the endpoint lost its memory node while checked out, or null. */
    private volatile FabricException lost;
    /** The endpoint of which {@link #lost} tells. */
    private EndpointPool.Worker lostWorker;

    EndpointSession(PointSpace space, long sequence) {
        this.space = space;
        this.sequence = sequence;
    }

    @Override
    public LockSpace space() {
        return space;
    }

    @Override
    public int heldSlots() {
        return slots.size();
    }

    private SlotHold covering(Request r) {
        SlotHold s = slots.get(r.slot());
        if (s == null) {
            return null;
        }
        if (s.mode() == Mode.SHARED && r.mode() == Mode.EXCLUSIVE) {
            throw new IllegalStateException("this session holds slot " + r.slot() + " of space '" + space.name()
                    + "' shared and asks for it exclusive (" + r.key() + "): take the exclusive mode first, "
                    + "upgrading would wait for the session itself");
        }
        return s;
    }

    private Held nested(SlotHold s, Request r) {
        s.holds++;
        SessionHold h = new SessionHold(s, r.key());
        open.add(h);
        long left = s.leaseLeftNs(clock);
        if (left != Long.MAX_VALUE) {
            space.fabric.watchLease(Math.max(0, left));
        }
        return h;
    }

    @Override
    public Held acquire(String key, Mode mode) {
        busy.lock();
        try {
            return acquireLocked(key, mode);
        } finally {
            busy.unlock();
        }
    }

    private Held acquireLocked(String key, Mode mode) {
        Request r = space.requestOf(key, mode);
        dropIfLost();
        SlotHold s = covering(r);
        if (s != null) {
            return nested(s, r);
        }
        boolean waitedForSlot = space.beginRequest(r);
        long submittedNs = space.nowNs();
        EndpointPool.Worker w;
        Grant g;
        long leaseFrom;
        try {
            boolean waitedForEndpoint = worker == null && !space.fabric.hasFreeEndpoint();
            w = endpoint();
            long startedNs = space.nowNs();
            leaseFrom = clock.nanoTime(); // before the protocol's first verb: see Leases
            try {
                g = w.runProtocol(() -> space.acquireOn(w, r));
            } catch (RuntimeException e) {
                FabricException why = lost != null ? lost : w.memoryNodeLost();
                throw why != null ? new FabricUnreachableException(space.fabric.address(), why) : space.acquireFailed(r, e);
            }
            if (lost != null) {
                throw new FabricUnreachableException(space.fabric.address(), lost);
            }
            long now = space.nowNs();
            space.granted(now - submittedNs, waitedForSlot || waitedForEndpoint || now - startedNs > space.slowAcquireNs());
        } catch (RuntimeException e) {
            space.endRequest(r);
            giveBackIfIdle();
            throw e;
        }
        space.deliveredToSession();
        SlotHold held = new SlotHold(r, g, null, Leases.leaseFrom(g, leaseFrom), clock.nanoTime(), space.leaseNs(g.mode()));
        slots.put(r.slot(), held);
        return nested(held, r);
    }

    @Override
    public Optional<Held> tryAcquire(String key, Mode mode, Duration wait) {
        busy.lock();
        try {
            return tryAcquireLocked(key, mode, wait);
        } finally {
            busy.unlock();
        }
    }

    private Optional<Held> tryAcquireLocked(String key, Mode mode, Duration wait) {
        Request r = space.requestOf(key, mode);
        dropIfLost();
        SlotHold s = covering(r);
        if (s != null) {
            return Optional.of(nested(s, r));
        }
        Optional<Held> got = space.tryAcquire(key, mode, wait);
        if (got.isEmpty()) {
            return got;
        }
        PooledHold pooled = (PooledHold) got.get();
        SlotHold held = new SlotHold(r, null, pooled, 0, 0, 0);
        slots.put(r.slot(), held);
        // its loss (lease or memory node) is told as the loss of the session's holds of the slot
        pooled.reportLossTo((why, heldForNs) -> {
            for (SessionHold h : open) {
                if (h.slot == held) {
                    h.tellLost(why, heldForNs);
                }
            }
        });
        return Optional.of(nested(held, r));
    }

    /** The session's endpoint, checked out now if it has none. */
    private EndpointPool.Worker endpoint() {
        if (worker != null) {
            return worker;
        }
        EndpointPool.Worker w = space.fabric.checkout();
        FabricException gone = w.memoryNodeLost();
        if (gone != null) {
            space.fabric.checkin(w);
            throw new FabricUnreachableException(space.fabric.address(), gone);
        }
        worker = w;
        clock = w.endpoint().clock();
        w.watch(this::memoryNodeLost);
        space.fabric.sessionHolds(this);
        return w;
    }

    /** A fabric thread: the endpoint lost its memory node. The session's thread gives it back. */
    private void memoryNodeLost(FabricException why) {
        lost = why;
        for (SessionHold h : open) {
            if (h.slot.grant != null) {
                h.tellLost("server", clock.nanoTime() - h.slot.grantNs);
            }
        }
    }

    /**
     * For the lease sweep (the scheduler's thread): tells the loss of every open hold of a grant on
     * the session's endpoint whose lease ran out (once per hold), and returns how long the next
     * lease has left; {@code -1} if there is none to watch. A try's grant is watched as its own
     * {@link PooledHold}.
     */
    long checkLeases() {
        long next = -1;
        for (SessionHold h : open) {
            if (h.closed || h.told.get()) {
                continue;
            }
            long left = h.slot.leaseLeftNs(clock);
            if (left == Long.MAX_VALUE) {
                continue;
            }
            if (left <= 0) {
                h.tellLost("lease", clock.nanoTime() - h.slot.grantNs);
            } else if (next < 0 || left < next) {
                next = left;
            }
        }
        return next;
    }

    /** Forgets the grants on an endpoint that lost its memory node (they went with it) and gives it back. */
    private void dropIfLost() {
        if (lost == null || worker == null) {
            return;
        }
        for (SessionHold h : open) {
            h.closed = true;
        }
        open.clear();
        List<SlotHold> left = new ArrayList<>(slots.values());
        slots.clear();
        for (SlotHold s : left) {
            if (s.pooled != null) {
                s.pooled.close();
            }
            space.endRequest(s.request);
        }
        EndpointPool.Worker w = worker;
        worker = null;
        lost = null;
        w.watch(null);
        space.fabric.sessionIdle(this);
        space.fabric.checkin(w);
    }

    private void giveBackIfIdle() {
        if (worker != null && lost == null && slots.values().stream().noneMatch(s -> s.grant != null)) {
            EndpointPool.Worker w = worker;
            worker = null;
            w.watch(null);
            space.fabric.sessionIdle(this);
            space.fabric.checkin(w);
        }
    }

    /** The last hold of {@code s} was closed: releases the slot. */
    private void release(SlotHold s) {
        slots.remove(s.request.slot());
        RuntimeException failure = null;
        try {
            if (s.pooled != null) {
                s.pooled.close();
            } else if (lost == null) {
                EndpointPool.Worker w = worker;
                w.runProtocol(() -> {
                    space.releaseOn(w, s.grant);
                    return null;
                });
            }
        } catch (RuntimeException e) {
            if (lost == null) {
                failure = e;
            }
        } finally {
            space.endRequest(s.request);
            if (lost != null && slots.values().stream().noneMatch(x -> x.grant != null)) {
                dropIfLost();
            } else {
                giveBackIfIdle();
            }
        }
        if (failure != null) {
            throw new LockFabricException("releasing " + s.request.key() + " in space " + space.name() + " failed: "
                    + failure.getMessage(), failure);
        }
    }

    @Override
    public void close() {
        busy.lock();
        try {
            closeLocked();
        } finally {
            busy.unlock();
        }
    }

    /**
     * The LockFabric is closing: releases what the session holds, unless its thread is in the
     * middle of an acquisition or release (then the pool's grace applies). On a runtime thread.
     */
    void closeByFabric() {
        if (!busy.tryLock()) {
            return;
        }
        try {
            closeLocked();
        } catch (RuntimeException ignored) {
            // the fabric is going away; the pool's grace and close end what is left
        } finally {
            busy.unlock();
        }
    }

    private void closeLocked() {
        RuntimeException first = null;
        for (SessionHold h : List.copyOf(open)) {
            try {
                h.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        dropIfLost();
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "LockSession[" + space.name() + ", " + slots.size() + " slots held]";
    }

    /** One hold of a slot the session holds. */
    private final class SessionHold implements Held {
        private final SlotHold slot;
        private final String key;
        private volatile boolean closed;
        /** Its loss was told (its lease ran out, or its endpoint lost the memory node): once per hold. */
        private final AtomicBoolean told = new AtomicBoolean();

        SessionHold(SlotHold slot, String key) {
            this.slot = slot;
            this.key = key;
        }

        /** Tells the space's loss listeners of this hold, unless closed or told already. */
        void tellLost(String why, long heldForNs) {
            if (!closed && told.compareAndSet(false, true)) {
                space.lost(this, slot.request.slot(), why, heldForNs);
            }
        }

        @Override
        public String key() {
            return key;
        }

        @Override
        public Mode mode() {
            return slot.mode();
        }

        @Override
        public long fencingToken() {
            return slot.pooled != null ? slot.pooled.fencingToken() : slot.grant.fencingToken();
        }

        @Override
        public boolean isValid() {
            if (closed) {
                return false;
            }
            if (slot.pooled != null) {
                return slot.pooled.isValid();
            }
            return !told.get() && lost == null && slot.leaseLeftNs(clock) > 0;
        }

        @Override
        public void close() {
            busy.lock();
            try {
                if (closed) {
                    return;
                }
                // a stall of the whole process may have kept the sweep from telling: tell now
                if (slot.leaseLeftNs(clock) <= 0) {
                    tellLost("lease", clock.nanoTime() - slot.grantNs);
                } else if (slot.pooled != null) {
                    slot.pooled.reportLeaseOutlived(); // told to this session's holds of the slot
                }
                closed = true;
                open.remove(this);
                if (--slot.holds == 0 && slots.get(slot.request.slot()) == slot) {
                    release(slot);
                }
            } finally {
                busy.unlock();
            }
        }

        @Override
        public String toString() {
            return "Held[" + space.name() + " " + key + " " + slot.request.mode() + " in a session"
                    + (closed ? ", closed" : "") + "]";
        }
    }
}
