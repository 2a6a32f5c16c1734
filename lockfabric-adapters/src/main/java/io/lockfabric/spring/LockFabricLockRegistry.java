package io.lockfabric.spring;

import io.lockfabric.Held;
import io.lockfabric.LockFabricException;
import io.lockfabric.LockInterruptedException;
import io.lockfabric.LockSpace;
import io.lockfabric.lock.Mode;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * A Spring Integration {@link LockRegistry} whose locks are the exclusive locks of a {@link LockSpace}:
 * {@code obtain(key)} is the lock of that key in the space, the same for every process that opens the
 * space on the same memory node. Use it wherever Spring Integration takes a registry: an aggregator's
 * or a file inbound adapter's lock registry, {@code executeLocked}, or a
 * {@code LockRegistryLeaderInitiator} for leader election.
 *
 * <pre>{@code
 * LockSpace space = lf.lockSpace("integration", SpaceOptions.builder().option("lease-ns", "30s").build());
 * LockRegistry<DistributedLock> registry = new LockFabricLockRegistry(space);
 * registry.executeLocked("order:42", () -> process(order));
 * }</pre>
 *
 * <p><b>Keys.</b> A {@link String}, or a {@link Long} or {@link Integer} (its decimal string, as
 * {@link LockSpace#lock(long)}); anything else is refused with an {@link IllegalArgumentException}, as
 * Spring's JDBC and Redis registries refuse keys that are not strings: an arbitrary object's
 * {@code toString} need not be the same in every process.
 *
 * <p><b>Ownership.</b> A lock is owned by the thread that locked it and is reentrant, as
 * {@code ReentrantLock} and Spring's registries' locks are; {@code unlock} by another thread throws
 * {@link IllegalMonitorStateException}; {@link DistributedLock#newCondition()} throws
 * {@link UnsupportedOperationException}. The thread's holds of a key live in this registry (not in
 * the lock object), so the locks of two {@code obtain} calls of one key are one lock. Nothing is cached
 * between holds, so there is nothing to expire: this registry is not an {@code ExpirableLockRegistry}.
 *
 * <p><b>Leases: the lock's time to live.</b> A hold lives at most the space's lease
 * ({@link LockSpace#lease()}; a {@code lease-ns} option of the space, 1 s by default), or the
 * {@code ttl} of {@link DistributedLock#lock(Duration)} and {@link DistributedLock#tryLock(Duration,
 * Duration)}: after it, other clients may take the lock, as after the time to live of Spring's JDBC
 * and Redis registries. Unlike those, a LockFabric lease cannot be renewed (the protocols have no
 * renewal), so this registry is not a {@code RenewableLockRegistry}: open the space with a lease
 * longer than any hold. A thread that locks again a key whose hold it lost (a reentrant
 * {@code tryLock} of a leader's heartbeat) gets a new grant if the lock is free, and otherwise
 * {@code false} (or waits, for {@code lock}): as Spring's JDBC registry does, which asks its table
 * again on every reentrant lock. That is how a {@code LockRegistryLeaderInitiator} finds that its
 * leadership was lost: a leader whose lease ran out while another candidate took the lock is
 * revoked at its next heartbeat.
 *
 * <p>Thread-safe. The registry owns no thread and needs no closing; closing the space's
 * {@code LockFabric} releases whatever is still held.
 */
public final class LockFabricLockRegistry implements LockRegistry<DistributedLock> {
    private final LockSpace space;
    private final ConcurrentHashMap<Owner, Ownership> owned = new ConcurrentHashMap<>();

    /** A thread's holds of one key. */
    private record Owner(Thread thread, String key) {
    }

    /** How often a thread holds a key, and the grant under its holds. Touched by that thread only. */
    private static final class Ownership {
        int count;
        Held held;

        Ownership(Held held) {
            this.held = held;
            this.count = 1;
        }
    }

    /** A registry of the locks of {@code space}. */
    public LockFabricLockRegistry(LockSpace space) {
        this.space = Objects.requireNonNull(space, "space");
    }

    /** The space whose locks this registry gives. */
    public LockSpace space() {
        return space;
    }

    /**
     * The exclusive lock of {@code lockKey} in the space.
     *
     * @throws IllegalArgumentException if the key is not a {@link String}, {@link Long} or {@link Integer}
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        return new RegistryLock(keyOf(lockKey));
    }

    private static String keyOf(Object lockKey) {
        return switch (lockKey) {
            case String s -> s;
            case Long l -> Long.toString(l);
            case Integer i -> Integer.toString(i);
            case null -> throw new IllegalArgumentException("a lock key must not be null");
            default -> throw new IllegalArgumentException("a lock key must be a String, Long or Integer (the same in every "
                    + "process), not a " + lockKey.getClass().getName() + ": " + lockKey);
        };
    }

    @Override
    public String toString() {
        return "LockFabricLockRegistry[" + space + "]";
    }

    /**
     * The lock of one key. Its state is the calling thread's entry in {@link #owned}: the first lock
     * takes a grant, reentrant locks count, the last unlock releases.
     */
    private final class RegistryLock implements DistributedLock {
        private final String key;

        RegistryLock(String key) {
            this.key = key;
        }

        private Owner me() {
            return new Owner(Thread.currentThread(), key);
        }

        /** This thread's holds of the key, or null. */
        private Ownership mine() {
            return owned.get(me());
        }

        /**
         * One more hold of a key this thread holds: if its grant was lost (its lease or time to live
         * ran out), the lost grant is released and {@code regrant} asked for a new one; false if none
         * came (the thread's holds stay, on a lost grant).
         */
        private boolean reenter(Ownership o, Regrant regrant) throws InterruptedException {
            if (!o.held.isValid()) {
                releaseLost(o.held);
                Held fresh = regrant.get();
                if (fresh == null) {
                    return false;
                }
                o.held = fresh;
            }
            o.count++;
            return true;
        }

        private boolean install(Held h) {
            if (h == null) {
                return false;
            }
            owned.put(me(), new Ownership(h));
            return true;
        }

        private Held acquireUninterruptibly() {
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        return space.acquire(key, Mode.EXCLUSIVE);
                    } catch (LockInterruptedException e) {
                        interrupted = true;
                        Thread.interrupted(); // abandoned and nothing held: ask again, and restore the status at the end
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private Held acquireInterruptibly() throws InterruptedException {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            try {
                return space.acquire(key, Mode.EXCLUSIVE);
            } catch (LockInterruptedException e) {
                Thread.interrupted();
                throw interrupted(e);
            }
        }

        /** Null if not granted within {@code wait}. */
        private Held tryAcquire(Duration wait, Duration ttl) throws InterruptedException {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            try {
                Optional<Held> h = ttl == null ? space.tryAcquire(key, Mode.EXCLUSIVE, wait)
                        : space.tryAcquire(key, Mode.EXCLUSIVE, wait, ttl);
                return h.orElse(null);
            } catch (LockInterruptedException e) {
                Thread.interrupted();
                throw interrupted(e);
            }
        }

        private static InterruptedException interrupted(LockInterruptedException e) {
            InterruptedException ie = new InterruptedException(e.getMessage());
            ie.initCause(e);
            return ie;
        }

        @Override
        public void lock() {
            Ownership o = mine();
            if (o == null) {
                install(acquireUninterruptibly());
            } else {
                try {
                    reenter(o, this::acquireUninterruptibly);
                } catch (InterruptedException e) {
                    throw new AssertionError("acquireUninterruptibly throws no InterruptedException", e);
                }
            }
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            Ownership o = mine();
            if (o == null) {
                install(acquireInterruptibly());
            } else {
                reenter(o, this::acquireInterruptibly);
            }
        }

        @Override
        public boolean tryLock() {
            try {
                return tryLockFor(Duration.ZERO, null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return tryLockFor(Duration.of(time, unit.toChronoUnit()), null);
        }

        /**
         * Locks with a time to live: the grant releases itself after {@code ttl} unless unlocked before
         * (a reentrant lock keeps the grant it has, and its time to live).
         *
         * @throws IllegalArgumentException if {@code ttl} is not positive
         */
        @Override
        public void lock(Duration ttl) {
            checkTtl(ttl);
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        if (tryLockFor(Duration.ofDays(1), ttl)) {
                            return;
                        }
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /**
         * Waits at most {@code waitTime} for the lock, whose grant then releases itself after
         * {@code ttl} unless unlocked before.
         *
         * @throws IllegalArgumentException if {@code ttl} is not positive
         */
        @Override
        public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
            checkTtl(ttl);
            return tryLockFor(waitTime, ttl);
        }

        private static void checkTtl(Duration ttl) {
            if (ttl == null || ttl.isZero() || ttl.isNegative()) {
                throw new IllegalArgumentException("a lock's time to live must be positive, got " + ttl);
            }
        }

        /** Null {@code ttl}: the space's lease. */
        private boolean tryLockFor(Duration wait, Duration ttl) throws InterruptedException {
            Objects.requireNonNull(wait, "wait");
            Ownership o = mine();
            return o == null ? install(tryAcquire(wait, ttl)) : reenter(o, () -> tryAcquire(wait, ttl));
        }

        @Override
        public void unlock() {
            Owner me = me();
            Ownership o = owned.get(me);
            if (o == null) {
                throw new IllegalMonitorStateException("thread " + Thread.currentThread().getName() + " does not hold the lock "
                        + key + " of space '" + space.name() + "'");
            }
            if (--o.count == 0) {
                owned.remove(me);
                if (o.held.isValid()) {
                    o.held.close();
                } else {
                    releaseLost(o.held);
                }
            }
        }

        /** @throws UnsupportedOperationException always: a condition would need notifications between processes */
        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException("LockFabric locks have no conditions: waking a waiter in another "
                    + "process would need a notification the protocols do not have");
        }

        @Override
        public String toString() {
            return "LockFabricLock[" + space.name() + " " + key + "]";
        }
    }

    /**
     * Releases a grant that its lease or time to live took: a failure to release is the lock's
     * recovery's business (the lock is then left as a crashed client would leave it), not the caller's.
     */
    private static void releaseLost(Held lost) {
        try {
            lost.close();
        } catch (LockFabricException e) {
            // recovery takes the lock back as from a crashed client; the caller already lost it
        }
    }

    /** Asks for a new grant in place of a lost one: null if none came. */
    @FunctionalInterface
    private interface Regrant {
        Held get() throws InterruptedException;
    }
}
