package io.lockfabric;

import io.lockfabric.lock.Mode;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Consumer;

/**
 * A named table of lock slots on the memory node, and the locks of any number of string keys
 * mapped onto it. Every process that opens the same name on the same server
 * ({@link LockFabric#lockSpace}) contends for the same locks.
 *
 * <p><b>Keys and slots.</b> A key is mapped to one of {@link #slots()} slots by a stable hash
 * ({@link io.lockfabric.client.KeyHash}: FNV-1a 64 of its UTF-8 bytes, MurmurHash3's fmix64,
 * unsigned remainder), the same in every process. Two keys that share a slot share its lock: safe,
 * at the cost of false conflicts, which the space counts ({@link LockSpaceStats#falseConflicts()}).
 * A {@code long} key is the key of its decimal string.
 *
 * <p><b>Two ways to lock.</b> {@link #lock} and {@link #readWriteLock} give
 * {@code java.util.concurrent.locks} views that behave like {@code ReentrantReadWriteLock}'s: owned
 * by the thread that locked, reentrant, unlocked only by their owner
 * ({@link IllegalMonitorStateException} otherwise). {@link #acquire} and friends give a {@link Held},
 * owned by the handle: any thread may close it. Both share the pool of endpoints of the
 * {@link LockFabric}: a request keeps one endpoint from its acquisition to its release. A
 * {@link #session()} holds many locks on one endpoint (transactions).
 *
 * <p><b>Giving up.</b> A request whose caller gives up (a timeout, an interrupt, a cancelled
 * future) is abandoned, never cut short: the protocol's acquisition goes on on its endpoint, on a
 * virtual thread (a queue lock cannot leave its queue half-way), and when it is granted it is
 * released at once. The caller returns immediately and nothing stays held. The methods that cannot
 * give up ({@link #acquire}, {@code Lock.lock()}) run the protocol on the calling thread, which an
 * interrupt does not stop: the lock is granted and the thread's interrupt status set again.
 *
 * <p>Thread-safe.
 */
public interface LockSpace {
    /** The space's name. */
    String name();

    /** The protocol's registry name. */
    String protocol();

    /** The number of lock slots. */
    long slots();

    /**
     * Whether fencing tokens are strict on this space's protocol (see {@link Held#fencingToken()}),
     * and no grant is shared by several holders in turn ({@link LockFabric.Builder#localHandovers}).
     */
    boolean strictFencing();

    /**
     * The lease of this space's recovering protocol, or empty if it recovers nothing. A hold is
     * valid for 2% less than that, counted from its lease start, not its grant (see
     * {@link Held#isValid()}). drtm recovers nothing, but its shared holds expire after its
     * {@code tx-time-ns}, when writers may take the read lease.
     */
    Optional<Duration> lease();

    /** The slot of {@code key} ({@link io.lockfabric.client.KeyHash#slot}). */
    long slotOf(String key);

    /**
     * The exclusive lock of {@code key}, as a {@link Lock} owned by the locking thread and
     * reentrant (the write lock of {@link #readWriteLock}). {@link Lock#tryLock()} waits up to the
     * fabric's {@linkplain LockFabric.Builder#tryLockGrace try-lock grace}, as the memory node must
     * be asked; {@link Lock#newCondition()} throws {@link UnsupportedOperationException}: a
     * condition would need a notification between processes, which the protocols do not have.
     */
    Lock lock(String key);

    /** {@link #lock(String)} of the key {@code Long.toString(key)}. */
    default Lock lock(long key) {
        return lock(Long.toString(key));
    }

    /**
     * The reader-writer lock of {@code key}, with {@code ReentrantReadWriteLock}'s ownership: both
     * locks reentrant and owned by a thread; a thread holding the write lock may take the read lock
     * (it is then held under the write lock's exclusive grant until both are unlocked: downgrading
     * keeps the slot exclusive); a thread holding only the read lock that asks for the write lock
     * gets an {@link IllegalStateException} (with {@code ReentrantReadWriteLock} it would deadlock).
     * Readers of different threads each hold a shared grant of their own.
     */
    ReadWriteLock readWriteLock(String key);

    /** {@link #readWriteLock(String)} of the key {@code Long.toString(key)}. */
    default ReadWriteLock readWriteLock(long key) {
        return readWriteLock(Long.toString(key));
    }

    /** {@link #acquire(String, Mode)} exclusive. */
    default Held acquire(String key) {
        return acquire(key, Mode.EXCLUSIVE);
    }

    /**
     * Waits until {@code key} is held in {@code mode}.
     *
     * @throws LockInterruptedException if the thread is interrupted while it waits (the request is
     *                                   abandoned, the interrupt status set again)
     * @throws LockFabricException       if the protocol gives up on the lock or the fabric fails
     */
    Held acquire(String key, Mode mode);

    /** {@link #acquire(String, Mode)} of the key {@code Long.toString(key)}. */
    default Held acquire(long key, Mode mode) {
        return acquire(Long.toString(key), mode);
    }

    /** {@link #tryAcquire(String, Mode, Duration)} exclusive. */
    default Optional<Held> tryAcquire(String key, Duration wait) {
        return tryAcquire(key, Mode.EXCLUSIVE, wait);
    }

    /**
     * Waits at most {@code wait} (at least the fabric's {@linkplain LockFabric.Builder#tryLockGrace
     * try-lock grace}) for {@code key} in {@code mode}; empty if it was not granted by then, and
     * then nothing is held.
     *
     * @throws LockInterruptedException if the thread is interrupted while it waits
     * @throws LockFabricException       if the protocol gives up on the lock or the fabric fails
     */
    Optional<Held> tryAcquire(String key, Mode mode, Duration wait);

    /**
     * {@link #tryAcquire(String, Mode, Duration)}, and a hold that releases itself once
     * {@code leaseTime} has passed since the grant, unless closed before (as Redisson's
     * {@code tryLock(wait, leaseTime, unit)}). After that {@link Held#isValid()} is false and
     * closing it does nothing.
     */
    Optional<Held> tryAcquire(String key, Mode mode, Duration wait, Duration leaseTime);

    /** {@link #acquireAsync(String, Mode)} exclusive. */
    default CompletableFuture<Held> acquireAsync(String key) {
        return acquireAsync(key, Mode.EXCLUSIVE);
    }

    /**
     * Queues a request for {@code key} in {@code mode} and returns at once; the future completes
     * with the hold when granted, or exceptionally with a {@link LockFabricException}. No thread
     * waits for it until it has an endpoint. Cancelling the future (or completing it yourself)
     * abandons the request. Dependent stages run on the virtual thread that acquired, so they may
     * block (and close the hold: the release then runs there).
     */
    CompletableFuture<Held> acquireAsync(String key, Mode mode);

    /**
     * Tells {@code listener} of every hold of this space that is lost while still open (a
     * {@link LockSession}'s too), once per hold, whichever comes first: its lease ran out (on a
     * protocol with leases; see {@link Held#isValid()} for how it is counted), or its endpoint's
     * connection to the memory node was lost (the server died or was stopped). Runs on the
     * {@link LockFabric}'s scheduler thread: keep it short. A hold lost to its memory node has
     * already given back its endpoint, and closing it does nothing.
     */
    void onLoss(Consumer<Held> listener);

    /**
     * A new {@link LockSession} of this space: many locks held together on one endpoint of the
     * pool, which a transaction's lock set needs. Cheap: the session checks an endpoint out only
     * while it holds locks.
     */
    LockSession session();

    /** What this space counted in this process so far. */
    LockSpaceStats stats();
}
