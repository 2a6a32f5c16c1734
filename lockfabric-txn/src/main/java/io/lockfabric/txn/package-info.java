/**
 * Transactions on LockFabric: a two-phase-locking engine that takes each transaction's lock set
 * through a {@link io.lockfabric.txn.Locker} in one global order, runs its body and releases
 * everything at commit or abort; and the TATP, TPC-C and SmallBank workloads of the papers.
 */
package io.lockfabric.txn;
