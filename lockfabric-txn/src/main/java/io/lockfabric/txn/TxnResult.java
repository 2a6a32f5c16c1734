package io.lockfabric.txn;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;

/**
 * A transaction run's measurements: goodput and latency per type and overall, locks per
 * transaction, the lock wait's share of the latency, the measured shared share of lock requests,
 * the overall latency CDF, aborts, and the bodies' ledger (for a store's check).
 *
 * @param workload   the workload's name
 * @param locker     the locker's name
 * @param clients    how many clients ran
 * @param measuredNs the measured phase's length
 * @param types      one row per transaction type
 * @param all        the row of all types together
 * @param aborted    transactions aborted (lock sets not had in time)
 * @param ledger     the sum of the bodies' changes to their store over the whole run
 * @param cdf        the overall latency CDF: (latency ns, fraction of transactions at most that)
 */
public record TxnResult(String workload, String locker, int clients, long measuredNs, List<TypeResult> types,
                        TypeResult all, long aborted, long ledger, List<double[]> cdf) {
    /**
     * One type's measurements.
     *
     * @param name          the type's name ({@code all} for the overall row)
     * @param committed     transactions committed in the measured phase
     * @param goodputPerSec committed per second
     * @param p50Ns         latency median
     * @param p99Ns         latency 99th percentile
     * @param p999Ns        latency 99.9th percentile
     * @param locksPerTxn   distinct locks taken per transaction (after merging keys of one lock)
     * @param lockWaitShare the share of the latency spent taking the lock set
     * @param sharedShare   the share of lock requests (as generated) that are shared
     */
    public record TypeResult(String name, long committed, double goodputPerSec, long p50Ns, long p99Ns, long p999Ns,
                             double locksPerTxn, double lockWaitShare, double sharedShare) {
        static TypeResult of(String name, long committed, long measuredNs, Histogram h, long waitNs, long totalNs,
                             long locks, long shared, long exclusive) {
            boolean any = committed > 0;
            return new TypeResult(name, committed, measuredNs > 0 ? committed * 1e9 / measuredNs : 0,
                    any ? h.getValueAtPercentile(50) : 0, any ? h.getValueAtPercentile(99) : 0,
                    any ? h.getValueAtPercentile(99.9) : 0, any ? (double) locks / committed : 0,
                    totalNs > 0 ? (double) waitNs / totalNs : 0,
                    shared + exclusive > 0 ? (double) shared / (shared + exclusive) : 0);
        }
    }

    public TxnResult {
        types = List.copyOf(types);
        cdf = List.copyOf(cdf);
    }

    /** The row of type {@code name}. */
    public TypeResult type(String name) {
        for (TypeResult t : types) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("no transaction type " + name + " in " + workload);
    }

    /** Points of a latency CDF: at the percentiles 1, 5, 10, 20, ..., 90, 95, 99, 99.9, 99.99, 100. */
    static List<double[]> cdf(Histogram h) {
        List<double[]> points = new ArrayList<>();
        if (h.getTotalCount() == 0) {
            return points;
        }
        double[] ps = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.9, 99.99, 100};
        for (double p : ps) {
            points.add(new double[]{h.getValueAtPercentile(p), p / 100});
        }
        return points;
    }
}
