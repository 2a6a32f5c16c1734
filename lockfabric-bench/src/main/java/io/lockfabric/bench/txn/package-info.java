/**
 * The {@code txn} kind of benchmark workload: two-phase-locking transactions (TATP, TPC-C, from
 * {@code io.lockfabric.txn}'s generators) run by the bench's runner over a lock protocol's clients,
 * one transaction per operation.
 */
package io.lockfabric.bench.txn;
