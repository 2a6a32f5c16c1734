package io.lockfabric.txn;

import io.lockfabric.LockSession;
import io.lockfabric.LockSpace;
import io.lockfabric.lock.Mode;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A {@link Locker} on LockFabric's client API: a transaction's locks are the slots of their keys in
 * one {@link LockSpace}, taken through one {@link LockSession} (one endpoint of the pool, however
 * many locks).
 *
 * <p>The global order is the slot's number ({@link LockSpace#slotOf}): keys are mapped to slots and
 * merged (two keys of one slot are one lock, taken once in the stronger mode), then taken in
 * ascending slot order. Ordering by key instead would deadlock: two keys that share a slot would be
 * taken in the order of their keys by one transaction and of another's keys by the next.
 *
 * <p>{@link #tryLockAll} (the abort path): the set is taken in the same order on one session, each
 * lock with {@link LockSession#tryAcquire} bounded by what is left of the wait. When a lock is not
 * had in time, every lock already taken is released at once and the result is empty: nothing of the
 * set stays held. Only the one request in flight is abandoned, as {@link LockSpace} abandons a
 * request (a queue lock cannot leave its queue half-way): its acquisition goes on on its endpoint
 * and is released the moment it is granted. The cost: a try waits on an endpoint of its own
 * ({@link LockSession}), so a set being tried keeps one endpoint of the pool per lock, and a set of
 * more locks than the pool can spare gives up when no endpoint frees within the wait.
 * {@link #lockAll} takes one endpoint whatever the set's size. Thread-safe.
 */
public final class LockFabricLocker implements Locker {
    private final LockSpace space;

    /** A locker on {@code space}, whose slots are the locks. */
    public LockFabricLocker(LockSpace space) {
        this.space = Objects.requireNonNull(space, "space");
    }

    @Override
    public String name() {
        return "lockfabric/" + space.protocol();
    }

    /** The space this locker locks in. */
    public LockSpace space() {
        return space;
    }

    /** The set as it is taken: one request per slot, in slot order, each slot in its strongest mode. */
    Map<Long, TxnLock> ordered(List<TxnLock> locks) {
        TreeMap<Long, TxnLock> bySlot = new TreeMap<>();
        for (TxnLock l : locks) {
            bySlot.merge(space.slotOf(l.key()), l,
                    (a, b) -> a.mode() == Mode.EXCLUSIVE || b.mode() != Mode.EXCLUSIVE ? a : b);
        }
        return bySlot;
    }

    @Override
    public Locked lockAll(List<TxnLock> locks) {
        Map<Long, TxnLock> set = ordered(locks);
        LockSession session = space.session();
        try {
            for (TxnLock l : set.values()) {
                session.acquire(l.key(), l.mode());
            }
        } catch (RuntimeException e) {
            try {
                session.close();
            } catch (RuntimeException second) {
                e.addSuppressed(second);
            }
            throw e;
        }
        return new SessionLocked(session, set.size());
    }

    @Override
    public Optional<Locked> tryLockAll(List<TxnLock> locks, Duration wait) {
        Map<Long, TxnLock> set = ordered(locks);
        LockSession session = space.session();
        long deadline = System.nanoTime() + Math.max(0, wait.toNanos());
        try {
            for (TxnLock l : set.values()) {
                long left = Math.max(0, deadline - System.nanoTime());
                if (session.tryAcquire(l.key(), l.mode(), Duration.ofNanos(left)).isEmpty()) {
                    session.close(); // the locks taken so far, at once; the timed-out try was abandoned
                    return Optional.empty();
                }
            }
        } catch (RuntimeException e) {
            try {
                session.close();
            } catch (RuntimeException second) {
                e.addSuppressed(second);
            }
            throw e;
        }
        return Optional.of(new SessionLocked(session, set.size()));
    }

    /** Nothing to give back: sessions hold endpoints only while they hold locks. */
    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "LockFabricLocker[" + space + "]";
    }

    private static final class SessionLocked implements Locked {
        private final LockSession session;
        private final int count;
        private boolean closed;

        SessionLocked(LockSession session, int count) {
            this.session = session;
            this.count = count;
        }

        @Override
        public int count() {
            return count;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                session.close();
            }
        }
    }
}
