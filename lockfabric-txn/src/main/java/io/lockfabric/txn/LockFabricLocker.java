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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
 * <p>{@link #tryLockAll}: the whole set is taken as {@link #lockAll} takes it, on a virtual thread,
 * and waited for up to the wait; a set not had by then is abandoned as {@link LockSpace} abandons a
 * request (a queue lock cannot leave its queue half-way): the caller returns empty at once, holding
 * nothing, and the abandoned attempt releases every lock of the set the moment it has them all
 * (which the global order guarantees it will). Thread-safe.
 */
public final class LockFabricLocker implements Locker {
    private final LockSpace space;
    private final Executor tries;

    /**
     * @param space   the space whose slots are the locks
     * @param tries where the abandonable attempts of {@link #tryLockAll} run (each may block
     *              until it has its set)
     */
    public LockFabricLocker(LockSpace space, Executor tries) {
        this.space = Objects.requireNonNull(space, "space");
        this.tries = Objects.requireNonNull(tries, "tries");
    }

    /** A locker on {@code space} whose tries run on virtual threads. */
    public LockFabricLocker(LockSpace space) {
        this(space, body -> Thread.ofVirtual().name("lockfabric-txn-try").start(body));
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
        CompletableFuture<Locked> attempt = new CompletableFuture<>();
        List<TxnLock> copy = List.copyOf(locks);
        tries.execute(() -> {
            Locked got;
            try {
                got = lockAll(copy);
            } catch (RuntimeException e) {
                attempt.completeExceptionally(e);
                return;
            }
            if (!attempt.complete(got)) {
                got.close(); // abandoned: the caller returned empty
            }
        });
        try {
            return Optional.of(attempt.get(Math.max(0, wait.toNanos()), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return abandon(attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon(attempt).ifPresent(Locked::close);
            throw new io.lockfabric.LockInterruptedException("a lock set of " + locks.size() + " locks in space '"
                    + space.name() + "'");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re
                    : new io.lockfabric.LockFabricException(String.valueOf(e.getCause()), e.getCause());
        }
    }

    private static Optional<Locked> abandon(CompletableFuture<Locked> attempt) {
        if (attempt.cancel(false)) {
            return Optional.empty();
        }
        try {
            return Optional.of(attempt.join()); // had the set just as the wait ran out
        } catch (RuntimeException failed) {
            return Optional.empty();
        }
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
