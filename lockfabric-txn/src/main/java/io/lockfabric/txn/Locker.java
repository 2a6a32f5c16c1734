package io.lockfabric.txn;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where a transaction's locks come from: LockFabric's client API, or a peer's lock (Redis's).
 *
 * <p>{@link #lockAll} takes a whole lock set in this locker's one global order, so that
 * transactions that each take their set through the same locker never deadlock. The order is the
 * locker's to choose, because only it knows which keys share a lock (on the client API, two keys
 * of one slot share that slot's lock): it sorts the set by what is actually locked, takes a lock
 * wanted twice once, in the stronger mode, and never asks for a lock it already holds. Two-phase
 * locking: nothing is released until the returned {@link Locked} is closed.
 *
 * <p>Thread-safe: any number of threads run transactions through one locker at once.
 */
public interface Locker extends AutoCloseable {
    /** What the reports call this locker: {@code lockfabric/shiftlock}, {@code redis-setnx}. */
    String name();

    /**
     * Takes every lock of {@code locks} in the global order, waiting as long as it takes, and
     * returns once all are held.
     *
     * @throws io.lockfabric.LockFabricException (or the locker's own unchecked exception) if a lock
     *                                           cannot be had; then nothing of the set is held
     */
    Locked lockAll(List<TxnLock> locks);

    /**
     * {@link #lockAll}, giving up once {@code wait} has passed without the whole set: then nothing
     * of the set is held and the result is empty (the transaction aborts).
     */
    Optional<Locked> tryLockAll(List<TxnLock> locks, Duration wait);

    /** Gives back what the locker keeps (connections, endpoints); locks still held are released. */
    @Override
    void close();
}
