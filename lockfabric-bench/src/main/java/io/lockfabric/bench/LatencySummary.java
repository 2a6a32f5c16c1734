package io.lockfabric.bench;

import org.HdrHistogram.Histogram;

/**
 * Percentiles of a latency distribution in microseconds, from a histogram recorded in nanoseconds.
 * All zero when nothing was recorded.
 */
public record LatencySummary(long count, double p50Us, double p99Us, double p999Us, double maxUs) {
    public static final LatencySummary EMPTY = new LatencySummary(0, 0, 0, 0, 0);

    private static final double NANOS_PER_MICRO = 1_000.0;

    public static LatencySummary of(Histogram nanos) {
        if (nanos.getTotalCount() == 0) {
            return EMPTY;
        }
        return new LatencySummary(nanos.getTotalCount(),
                nanos.getValueAtPercentile(50.0) / NANOS_PER_MICRO,
                nanos.getValueAtPercentile(99.0) / NANOS_PER_MICRO,
                nanos.getValueAtPercentile(99.9) / NANOS_PER_MICRO,
                nanos.getMaxValue() / NANOS_PER_MICRO);
    }
}
