package io.lockfabric.bench.range;

import io.lockfabric.bench.LatencySummary;
import io.lockfabric.bench.OpsPerCycle;
import io.lockfabric.check.Violation;
import io.lockfabric.lock.LockStats;

import java.util.List;
import java.util.Map;

/**
 * The outcome of one range protocol on one {@link RangeBenchConfig} workload.
 *
 * @param opsBySize       measured acquisitions per range size (the mixed workload's per-size goodput)
 * @param verbsPerAcquisition the protocol's remote operations per acquire–release cycle, by kind
 * @param stats           the protocol's own statistics over the measured phase, summed over clients
 * @param holdsChecked    grants the range exclusion checker saw (warmup included)
 * @param violations      what the checker (and the liveness bound on the simulator) found; empty if correct
 * @param mechanism       the statistics by range size and the simulated memory node's queueing (measured phase)
 */
public record RangeRunResult(String protocol, String fabric, RangeBenchConfig config, long measuredOps,
                             long measuredNs, Map<Long, Long> opsBySize, LatencySummary acquireLatency,
                             LatencySummary operationLatency, OpsPerCycle verbsPerAcquisition, LockStats stats,
                             long holdsChecked, List<Violation> violations, RangeMechanism mechanism) {
    private static final double NANOS_PER_SECOND = 1e9;

    public RangeRunResult {
        opsBySize = Map.copyOf(opsBySize);
        violations = List.copyOf(violations);
    }

    /** Retries ({@link LockStats#RETRIES}). */
    public long retries() {
        return stats.retries();
    }

    /** Acquisitions the protocol gave up and restarted ({@link LockStats#ABORTS}). */
    public long aborts() {
        return stats.aborts();
    }

    /**
     * Acquisitions of a lock part aborted because a notification may have come later than the
     * protocol's wait allows ({@link LockStats#TIMING_ABORTS}: citron's abort rate, §4.7); -1 for
     * protocols that do not count them.
     */
    public long timingAborts() {
        return stats.has(LockStats.TIMING_ABORTS) ? stats.counter(LockStats.TIMING_ABORTS) : -1;
    }

    /** {@link LockStats#YIELDS}. */
    public long yields() {
        return stats.counter(LockStats.YIELDS);
    }

    /** {@link LockStats#ESCALATIONS}. */
    public long escalations() {
        return stats.counter(LockStats.ESCALATIONS);
    }

    /** Granted ranges per second of the measured phase. */
    public double goodput() {
        return measuredNs <= 0 ? 0 : measuredOps * NANOS_PER_SECOND / measuredNs;
    }

    /** Granted ranges of size {@code size} per second. */
    public double goodput(long size) {
        return measuredNs <= 0 ? 0 : opsBySize.getOrDefault(size, 0L) * NANOS_PER_SECOND / measuredNs;
    }

    public double abortsPerAcquisition() {
        return measuredOps == 0 ? 0 : (double) aborts() / measuredOps;
    }

    /** The paper's abort rate (citron); -1 if the protocol does not count timing aborts. */
    public double timingAbortsPerAcquisition() {
        long timing = timingAborts();
        return timing < 0 ? -1 : measuredOps == 0 ? 0 : (double) timing / measuredOps;
    }

    public boolean correct() {
        return violations.isEmpty();
    }
}
