package io.lockfabric.txn;

/**
 * A transaction's lock set, held: what {@link Locker#lockAll} returns. Closing it releases every
 * lock of the set (the commit or the abort of two-phase locking). Belongs to the thread that took
 * it; closing twice does nothing the second time.
 */
public interface Locked extends AutoCloseable {
    /** How many distinct locks are held (fewer than asked for when keys share a lock). */
    int count();

    /** Releases every lock of the set. */
    @Override
    void close();
}
