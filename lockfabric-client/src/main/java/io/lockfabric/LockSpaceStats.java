package io.lockfabric;

import io.lockfabric.lock.LockStats;

/**
 * What a space counted in this process since it was opened: an immutable snapshot from
 * {@link LockSpace#stats()} or {@link RangeSpace#stats()}.
 *
 * @param acquisitions       locks granted to a caller
 * @param waits              requests that had to wait: for an endpoint of the pool (all busy), or for
 *                           the lock (another request of this process on the same slot was in flight,
 *                           or the protocol's acquisition took longer than four round trips of the
 *                           fabric, the sign of a holder elsewhere)
 * @param handovers          grants handed to this process's requests by the holder before them (a
 *                           notification or handover message of the releaser: {@link LockStats#HANDOVERS})
 *                           rather than taken from a free lock or by polling; 0 for protocols that do
 *                           not hand over (cas, cas-rw, dslr, rpc and the range protocols)
 * @param localHandovers     grants passed from a holder of this process to the next one waiting for the
 *                           same slot, without the memory node ({@link LockFabric.Builder#localHandovers};
 *                           0 unless it is set)
 * @param abandoned          requests whose caller gave up (timed out, interrupted, cancelled) before
 *                           the grant; each was released as soon as it was granted
 * @param retries            the protocol's own retries ({@link LockStats#RETRIES}), summed over the
 *                           pool's clients of this space
 * @param falseConflicts     requests made while a request for another key on the same slot was in
 *                           flight in this process (keys that share a slot exclude each other)
 * @param falseConflictSlots distinct slots on which false conflicts happened
 * @param losses             holds lost to their lease ({@link Held#isValid()})
 * @param acquireWaitP50Ns   median time from request to grant, in nanoseconds (0 if none)
 * @param acquireWaitP99Ns   99th percentile of the same
 * @param protocolStats      the protocol's statistics, summed over the pool's clients of this space
 */
public record LockSpaceStats(long acquisitions, long waits, long handovers, long localHandovers,
                             long abandoned, long retries, long falseConflicts,
                             long falseConflictSlots, long losses, long acquireWaitP50Ns, long acquireWaitP99Ns,
                             LockStats protocolStats) {
}
