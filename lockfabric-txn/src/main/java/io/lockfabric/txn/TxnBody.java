package io.lockfabric.txn;

/**
 * What a transaction does under its locks: real reads and writes of records. Runs on the thread
 * that holds the lock set.
 */
@FunctionalInterface
public interface TxnBody {
    /** A body that does nothing (the work is simulated: {@link Transaction#workNs()}). */
    TxnBody NONE = () -> 0;

    /**
     * Runs the body.
     *
     * @return what it changed in its store's invariant sum (SmallBank: money deposited minus money
     *         withdrawn; 0 for a transfer), which a run adds up to check the store afterwards
     */
    long run();
}
