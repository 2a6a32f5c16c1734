package io.lockfabric.bench.range;

import io.lockfabric.bench.LatencySummary;
import io.lockfabric.bench.OpsPerCycle;
import io.lockfabric.check.Violation;

import java.util.List;
import java.util.Map;

/**
 * The outcome of one range protocol on one {@link RangeBenchConfig} workload.
 *
 * @param opsBySize       measured acquisitions per range size (the mixed workload's per-size goodput)
 * @param verbsPerAcquisition the protocol's remote operations per acquire–release cycle, by kind
 * @param aborts          acquisitions the protocol gave up and restarted ({@link io.lockfabric.lock.LockStats#aborts()})
 * @param timingAborts    citron: node acquisitions aborted because a notification may have come later
 *                        than T_wait allows (the paper's abort rate, §4.7); -1 for other protocols
 * @param holdsChecked    grants the range exclusion checker saw (warmup included)
 * @param violations      what the checker (and the liveness bound on the simulator) found; empty if correct
 * @param mechanism       citron's phase profile and the simulated memory node's queueing (measured phase)
 */
public record RangeRunResult(String protocol, String fabric, RangeBenchConfig config, long measuredOps,
                             long measuredNs, Map<Long, Long> opsBySize, LatencySummary acquireLatency,
                             LatencySummary operationLatency, OpsPerCycle verbsPerAcquisition, long retries,
                             long aborts, long timingAborts, long yields, long escalations, long holdsChecked,
                             List<Violation> violations, RangeMechanism mechanism) {
    private static final double NANOS_PER_SECOND = 1e9;

    public RangeRunResult {
        opsBySize = Map.copyOf(opsBySize);
        violations = List.copyOf(violations);
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
        return measuredOps == 0 ? 0 : (double) aborts / measuredOps;
    }

    /** The paper's abort rate (citron); -1 if the protocol does not count timing aborts. */
    public double timingAbortsPerAcquisition() {
        return timingAborts < 0 ? -1 : measuredOps == 0 ? 0 : (double) timingAborts / measuredOps;
    }

    public boolean correct() {
        return violations.isEmpty();
    }
}
