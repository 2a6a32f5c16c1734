package io.lockfabric.bench;

import org.HdrHistogram.Histogram;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a run measured of the operations of one kind ({@link Operation#kind}: a transaction's type):
 * how many, their latency and acquire latency (for a transaction: until it held its whole lock set),
 * the acquire's share of the latency, and the locks an operation took on average.
 *
 * @param operations   measured operations of the kind
 * @param latency      whole operations
 * @param acquire      from an operation's start to its grant
 * @param latencySumNs the operations' latencies, summed
 * @param acquireSumNs their acquire latencies, summed
 * @param locks        the locks they took, as the operations reported them
 */
public record KindMeasures(long operations, LatencySummary latency, LatencySummary acquire, long latencySumNs,
                           long acquireSumNs, long locks) {
    /** No operation of the kind. */
    public static final KindMeasures NONE = new KindMeasures(0, LatencySummary.EMPTY, LatencySummary.EMPTY, 0, 0, 0);

    /** The acquire's share of the latency: summed acquire latency over summed operation latency. */
    public double lockWaitShare() {
        return latencySumNs > 0 ? (double) acquireSumNs / latencySumNs : 0;
    }

    /** Locks per operation. */
    public double locksPerOp() {
        return operations > 0 ? (double) locks / operations : 0;
    }

    /** One client's (then the run's) measures of every kind, by kind. Not thread-safe. */
    static final class Accumulator {
        private final Histogram latency = new Histogram(3);
        private final Histogram acquire = new Histogram(3);
        private long operations;
        private long latencySumNs;
        private long acquireSumNs;
        private long locks;

        /** {@code kinds} with an operation of {@code kind} recorded, grown as needed. */
        static Accumulator[] record(Accumulator[] kinds, int kind, long acquireNs, long latencyNs, int locks) {
            if (kinds == null || kinds.length <= kind) {
                kinds = kinds == null ? new Accumulator[kind + 1] : java.util.Arrays.copyOf(kinds, kind + 1);
            }
            Accumulator a = kinds[kind];
            if (a == null) {
                a = kinds[kind] = new Accumulator();
            }
            a.latency.recordValue(Math.max(0, latencyNs));
            a.acquire.recordValue(Math.max(0, acquireNs));
            a.operations++;
            a.latencySumNs += latencyNs;
            a.acquireSumNs += acquireNs;
            a.locks += locks;
            return kinds;
        }

        /** {@code into} with {@code from}'s measures added, grown as needed. */
        static Accumulator[] merge(Accumulator[] into, Accumulator[] from) {
            if (from == null) {
                return into;
            }
            if (into == null || into.length < from.length) {
                into = into == null ? new Accumulator[from.length] : java.util.Arrays.copyOf(into, from.length);
            }
            for (int k = 0; k < from.length; k++) {
                Accumulator b = from[k];
                if (b == null) {
                    continue;
                }
                if (into[k] == null) {
                    into[k] = new Accumulator();
                }
                Accumulator a = into[k];
                a.latency.add(b.latency);
                a.acquire.add(b.acquire);
                a.operations += b.operations;
                a.latencySumNs += b.latencySumNs;
                a.acquireSumNs += b.acquireSumNs;
                a.locks += b.locks;
            }
            return into;
        }

        static Map<Integer, KindMeasures> summarize(Accumulator[] kinds) {
            Map<Integer, KindMeasures> out = new TreeMap<>();
            if (kinds != null) {
                for (int k = 0; k < kinds.length; k++) {
                    Accumulator a = kinds[k];
                    if (a != null && a.operations > 0) {
                        out.put(k, new KindMeasures(a.operations, LatencySummary.of(a.latency),
                                LatencySummary.of(a.acquire), a.latencySumNs, a.acquireSumNs, a.locks));
                    }
                }
            }
            return out;
        }
    }
}
