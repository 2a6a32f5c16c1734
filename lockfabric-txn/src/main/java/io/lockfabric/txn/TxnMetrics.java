package io.lockfabric.txn;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;

/**
 * What one client (or a whole run, once {@linkplain #add merged}) measured, per transaction type:
 * commits, latency histogram, lock wait, locks taken, shared and exclusive requests, and the sum of
 * the bodies' changes to their store ({@link TxnBody#run}). One thread at a time; merge clients'
 * metrics after they end.
 */
public final class TxnMetrics {
    /** One type's counts. */
    static final class PerType {
        final Histogram latencyNs = new Histogram(3);
        long committed;
        long lockWaitNs;
        long totalNs;
        long locks;
        long shared;
        long exclusive;
    }

    private final List<String> types;
    private final PerType[] perType;
    private long ledger;
    private long aborted;

    public TxnMetrics(List<String> types) {
        this.types = List.copyOf(types);
        this.perType = new PerType[types.size()];
        for (int i = 0; i < perType.length; i++) {
            perType[i] = new PerType();
        }
    }

    /** A committed transaction of the measured phase. */
    public void committed(int type, long latencyNs, long lockWaitNs, int locks, int shared, int exclusive, long delta) {
        PerType t = perType[type];
        t.committed++;
        t.latencyNs.recordValue(Math.max(0, latencyNs));
        t.totalNs += latencyNs;
        t.lockWaitNs += lockWaitNs;
        t.locks += locks;
        t.shared += shared;
        t.exclusive += exclusive;
        ledger += delta;
    }

    /** A transaction outside the measured phase: only its change to the store counts. */
    public void unmeasured(long delta) {
        ledger += delta;
    }

    /** An aborted transaction (a lock set not had in time). */
    public void aborted() {
        aborted++;
    }

    /** Adds {@code other}'s counts to this one's. */
    public void add(TxnMetrics other) {
        for (int i = 0; i < perType.length; i++) {
            PerType a = perType[i];
            PerType b = other.perType[i];
            a.committed += b.committed;
            a.latencyNs.add(b.latencyNs);
            a.totalNs += b.totalNs;
            a.lockWaitNs += b.lockWaitNs;
            a.locks += b.locks;
            a.shared += b.shared;
            a.exclusive += b.exclusive;
        }
        ledger += other.ledger;
        aborted += other.aborted;
    }

    /** The sum of the bodies' changes to their store, measured or not. */
    public long ledger() {
        return ledger;
    }

    /** The result of a measured phase of {@code measuredNs}. */
    public TxnResult result(String workload, String locker, int clients, long measuredNs) {
        List<TxnResult.TypeResult> rows = new ArrayList<>();
        Histogram all = new Histogram(3);
        long committed = 0;
        long wait = 0;
        long total = 0;
        long locks = 0;
        long shared = 0;
        long exclusive = 0;
        for (int i = 0; i < perType.length; i++) {
            PerType t = perType[i];
            rows.add(TxnResult.TypeResult.of(types.get(i), t.committed, measuredNs, t.latencyNs, t.lockWaitNs, t.totalNs,
                    t.locks, t.shared, t.exclusive));
            all.add(t.latencyNs);
            committed += t.committed;
            wait += t.lockWaitNs;
            total += t.totalNs;
            locks += t.locks;
            shared += t.shared;
            exclusive += t.exclusive;
        }
        TxnResult.TypeResult overall = TxnResult.TypeResult.of("all", committed, measuredNs, all, wait, total, locks, shared,
                exclusive);
        return new TxnResult(workload, locker, clients, measuredNs, rows, overall, aborted, ledger, TxnResult.cdf(all));
    }
}
