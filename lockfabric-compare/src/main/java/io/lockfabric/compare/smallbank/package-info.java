/**
 * SmallBank with its data in a real Redis (ShiftLock §4.5, Fig. 11): the balances as Redis keys
 * ({@link io.lockfabric.compare.smallbank.RedisBank}), locked either by LockFabric on a tcp memory
 * node or by Redis's own lock ({@link io.lockfabric.compare.smallbank.RedisSetNxLocker}, the RedLock
 * page's single-instance recipe; {@link io.lockfabric.compare.smallbank.RedissonLocker}, Redisson's
 * {@code RLock}), every run checked for conservation: the total, and every balance against the client
 * processes' per-balance ledgers ({@link io.lockfabric.txn.BankLedger}).
 */
package io.lockfabric.compare.smallbank;
