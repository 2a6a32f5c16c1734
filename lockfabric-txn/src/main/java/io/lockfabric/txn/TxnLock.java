package io.lockfabric.txn;

import io.lockfabric.lock.Mode;

import java.util.Objects;

/**
 * One lock a transaction takes: a key (TPC-C's {@code "ST:4711"}, SmallBank's {@code "chk:42"})
 * and the mode it is wanted in.
 *
 * @param key  the lock's key, as the {@link Locker} names locks
 * @param mode shared or exclusive
 */
public record TxnLock(String key, Mode mode) {
    public TxnLock {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(mode, "mode");
    }

    /** {@code key} exclusive. */
    public static TxnLock exclusive(String key) {
        return new TxnLock(key, Mode.EXCLUSIVE);
    }

    /** {@code key} shared. */
    public static TxnLock shared(String key) {
        return new TxnLock(key, Mode.SHARED);
    }
}
