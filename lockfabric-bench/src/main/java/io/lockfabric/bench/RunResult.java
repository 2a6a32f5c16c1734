package io.lockfabric.bench;

import io.lockfabric.check.Violation;
import io.lockfabric.lock.LatencyBreakdown;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of one protocol on one workload: the parameters, the measured operations and time,
 * latencies, remote operations per cycle (the lock protocol's own, and apart from them those of the
 * critical sections the runner issued), retries and aborts, and the check outcome.
 *
 * <p>{@code retries}, {@code aborts} and {@code resets} are the protocol's own counts over the
 * measured phase ({@link io.lockfabric.lock.LockClient#stats()}); 0 for protocols that have none.
 *
 * @param lockOpsPerCycle the protocol's remote operations per acquire–release cycle
 * @param csOpsPerCycle   the runner's own operations per cycle: critical-section READs / WRITEs and,
 *                        with check on, the guarded counter's READ + WRITE
 * @param faults          on the simulator: the faults injected and the liveness, recovery and hazard
 *                        findings; {@link FaultOutcome#NONE} elsewhere
 * @param breakdown       where the protocol's clients spent their time over the measured phase, for
 *                        protocols that itemize it ({@link LatencyBreakdown#EMPTY} otherwise)
 * @param releaseLatency  how long {@code release} took
 * @param hottestLockAcquireLatency acquire latency on the hottest lock (lock 0) alone, where a
 *                        protocol's fairness shows; {@link LatencySummary#EMPTY} if it was never taken
 */
public record RunResult(String protocol, String fabric, MicroBenchConfig config, long measuredOps,
                        long measuredNs, LatencySummary acquireLatency, LatencySummary operationLatency,
                        OpsPerCycle lockOpsPerCycle, OpsPerCycle csOpsPerCycle, long retries, long aborts,
                        long resets, CheckResult check, CounterCrossCheck crossCheck, FaultOutcome faults,
                        LatencyBreakdown breakdown, LatencySummary releaseLatency,
                        LatencySummary hottestLockAcquireLatency) {
    private static final double NANOS_PER_SECOND = 1e9;

    public RunResult {
        if (releaseLatency == null) {
            releaseLatency = LatencySummary.EMPTY;
        }
        if (hottestLockAcquireLatency == null) {
            hottestLockAcquireLatency = LatencySummary.EMPTY;
        }
    }

    /** A result without release or hottest-lock latencies. */
    public RunResult(String protocol, String fabric, MicroBenchConfig config, long measuredOps, long measuredNs,
                     LatencySummary acquireLatency, LatencySummary operationLatency, OpsPerCycle lockOpsPerCycle,
                     OpsPerCycle csOpsPerCycle, long retries, long aborts, long resets, CheckResult check,
                     CounterCrossCheck crossCheck, FaultOutcome faults, LatencyBreakdown breakdown) {
        this(protocol, fabric, config, measuredOps, measuredNs, acquireLatency, operationLatency, lockOpsPerCycle,
                csOpsPerCycle, retries, aborts, resets, check, crossCheck, faults, breakdown, LatencySummary.EMPTY,
                LatencySummary.EMPTY);
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
