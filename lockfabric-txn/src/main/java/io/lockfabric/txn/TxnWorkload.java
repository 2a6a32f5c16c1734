package io.lockfabric.txn;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A transaction workload: a generator of {@link Transaction}s over a lock map of {@link #locks()}
 * locks numbered from 0. Each client draws from its own seeded {@link RandomGenerator}, so a run is
 * the same for the same seeds. Implementations are immutable and thread-safe.
 */
public interface TxnWorkload {
    /** The workload's name: {@code tatp}, {@code tpcc}, {@code smallbank}. */
    String name();

    /** The transaction types' names, by {@link Transaction#type()}. */
    List<String> types();

    /** The number of locks of the lock map: every lock id is in [0, locks). */
    long locks();

    /** The share of lock requests the benchmark's paper reports as shared (TATP 0.80, TPC-C 0.14). */
    double paperSharedShare();

    /** The next transaction. */
    Transaction next(RandomGenerator random);
}
