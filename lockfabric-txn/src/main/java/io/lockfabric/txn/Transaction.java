package io.lockfabric.txn;

import java.util.List;

/**
 * One transaction a workload generated: its type, its lock set, and its body (run under the whole
 * set, two-phase locking).
 *
 * @param type    the index of its type in its workload's {@link TxnWorkload#types()}
 * @param locks   the lock set, as generated (not yet ordered or merged: the {@link Locker} does that)
 * @param lockIds the same locks as numbers of the workload's lock map ({@code locks.get(i).key()} is
 *                {@code Long.toString(lockIds[i])}), for lockers that lock numbers
 * @param workNs  the simulated work of the body, in nanoseconds (TATP 2 800, TPC-C 7 000; 0: none)
 * @param body    the body's real reads and writes, or {@link TxnBody#NONE}
 */
public record Transaction(int type, List<TxnLock> locks, long[] lockIds, long workNs, TxnBody body) {
    public Transaction {
        locks = List.copyOf(locks);
        if (lockIds.length != locks.size()) {
            throw new IllegalArgumentException(lockIds.length + " lock ids for " + locks.size() + " locks");
        }
        if (workNs < 0) {
            throw new IllegalArgumentException("work must not be negative, got " + workNs + " ns");
        }
    }
}
