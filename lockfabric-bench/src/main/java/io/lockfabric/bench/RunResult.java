package io.lockfabric.bench;

import io.lockfabric.check.Violation;
import io.lockfabric.lock.LockStats;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of one protocol on one workload: the parameters, the measured operations and time,
 * latencies, remote operations per cycle (the lock protocol's own, and apart from them those of the
 * critical sections the runner issued), retries and aborts, and the check outcome.
 *
 * <p>{@code stats} are the protocol's own statistics over the measured phase, summed over the
 * clients ({@link io.lockfabric.lock.LockClient#stats()}): {@link #retries()}, {@link #aborts()},
 * {@link #resets()} (0 for protocols that have none) and whatever else the protocol counts.
 *
 * @param lockOpsPerCycle the protocol's remote operations per acquire–release cycle
 * @param csOpsPerCycle   the runner's own operations per cycle: critical-section READs / WRITEs and,
 *                        with check on, the guarded counter's READ + WRITE
 * @param faults          on the simulator: the faults injected and the liveness, recovery and hazard
 *                        findings; {@link FaultOutcome#NONE} elsewhere
 * @param releaseLatency  how long {@code release} took
 * @param hottestLockAcquireLatency acquire latency on the hottest lock (lock 0) alone, where a
 *                        protocol's fairness shows; {@link LatencySummary#EMPTY} if it was never taken
 */
public record RunResult(String protocol, String fabric, MicroBenchConfig config, long measuredOps,
                        long measuredNs, LatencySummary acquireLatency, LatencySummary operationLatency,
                        OpsPerCycle lockOpsPerCycle, OpsPerCycle csOpsPerCycle, LockStats stats,
                        CheckResult check, CounterCrossCheck crossCheck, FaultOutcome faults,
                        LatencySummary releaseLatency, LatencySummary hottestLockAcquireLatency) {
    private static final double NANOS_PER_SECOND = 1e9;

    public RunResult {
        if (releaseLatency == null) {
            releaseLatency = LatencySummary.EMPTY;
        }
        if (hottestLockAcquireLatency == null) {
            hottestLockAcquireLatency = LatencySummary.EMPTY;
        }
    }

    /** The protocol's retries over the measured phase ({@link LockStats#RETRIES}). */
    public long retries() {
        return stats.retries();
    }

    /** The protocol's aborts over the measured phase ({@link LockStats#ABORTS}). */
    public long aborts() {
        return stats.aborts();
    }

    /** The protocol's resets over the measured phase ({@link LockStats#RESETS}). */
    public long resets() {
        return stats.resets();
    }

    /** Completed operations (acquire–cs–release cycles) per second of the measured phase. */
    public double goodput() {
        return measuredNs <= 0 ? 0 : measuredOps * NANOS_PER_SECOND / measuredNs;
    }

    /** Every violation: the checkers' and the liveness and recovery checks'. */
    public List<Violation> violations() {
        List<Violation> all = new ArrayList<>(check.violations());
        all.addAll(faults.violations());
        return all;
    }

    public double measuredSeconds() {
        return measuredNs / NANOS_PER_SECOND;
    }
}
