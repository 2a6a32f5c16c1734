package io.lockfabric.bench;

import io.lockfabric.check.Violation;
import io.lockfabric.lock.LockStats;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of one protocol on one workload, whatever the workload's kind: the workload, the
 * measured operations and time, latencies, remote operations per operation (the protocol's own,
 * and apart from them those the workload's sessions issued themselves), the protocol's statistics,
 * the check and the fault and liveness outcome.
 *
 * @param workload           the workload run (its kind's {@link Workload#layout()} reports it)
 * @param acquireLatency     from the start of an operation to its grant
 * @param operationLatency   a whole operation
 * @param releaseLatency     from the start of the release to the end of the operation
 * @param hottestLockAcquireLatency acquire latency of operations on the workload's hottest lock
 *                           alone, where a protocol's fairness shows; {@link LatencySummary#EMPTY}
 *                           if the workload has none or it was never taken
 * @param lockOpsPerCycle    the protocol's remote operations per operation (acquire-release cycle)
 * @param csOpsPerCycle      the sessions' own operations per cycle: critical-section READs / WRITEs
 *                           and, with check on, the guarded counter's READ + WRITE
 * @param stats              the protocol's statistics over the measured phase, summed over clients
 *                           ({@link io.lockfabric.lock.LockClient#stats()})
 * @param opsByGroup         measured operations per client group (the range workload: per range size)
 * @param statsByGroup       the protocol's statistics per client group
 * @param check              what the checkers found ({@link CheckResult#DISABLED} if not checked)
 * @param crossCheck         the clients' counts against the memory nodes' (whole run)
 * @param faults             on the simulator: the faults injected and the liveness, recovery and
 *                           hazard findings; {@link FaultOutcome#NONE} elsewhere
 * @param nic                the memory node's queueing over the measured phase, or null if not probed
 * @param runEnd             on a real-time fabric, whether the run ended by itself
 *                           ({@link RunEnd#COMPLETE}), at its deadline with stuck clients, or
 *                           interrupted (a partial result); always complete on the simulator
 * @param byKind             measured operations by kind, for workloads whose operations have kinds
 *                           (the transaction workload: a type each; {@link Operation#kind}); empty
 *                           for the others
 */
public record RunResult(String protocol, String fabric, Workload<?> workload, long measuredOps, long measuredNs,
                        LatencySummary acquireLatency, LatencySummary operationLatency,
                        LatencySummary releaseLatency, LatencySummary hottestLockAcquireLatency,
                        OpsPerCycle lockOpsPerCycle, OpsPerCycle csOpsPerCycle, LockStats stats,
                        Map<Long, Long> opsByGroup, Map<Long, LockStats> statsByGroup, CheckResult check,
                        CounterCrossCheck crossCheck, FaultOutcome faults, NicProbe nic, RunEnd runEnd,
                        Map<Integer, KindMeasures> byKind) {
    private static final double NANOS_PER_SECOND = 1e9;

    public RunResult {
        opsByGroup = Map.copyOf(opsByGroup);
        statsByGroup = Map.copyOf(statsByGroup);
        byKind = Map.copyOf(byKind);
        Objects.requireNonNull(runEnd, "runEnd");
    }

    /** A result of a workload whose operations have no kinds. */
    public RunResult(String protocol, String fabric, Workload<?> workload, long measuredOps, long measuredNs,
                     LatencySummary acquireLatency, LatencySummary operationLatency,
                     LatencySummary releaseLatency, LatencySummary hottestLockAcquireLatency,
                     OpsPerCycle lockOpsPerCycle, OpsPerCycle csOpsPerCycle, LockStats stats,
                     Map<Long, Long> opsByGroup, Map<Long, LockStats> statsByGroup, CheckResult check,
                     CounterCrossCheck crossCheck, FaultOutcome faults, NicProbe nic, RunEnd runEnd) {
        this(protocol, fabric, workload, measuredOps, measuredNs, acquireLatency, operationLatency, releaseLatency,
                hottestLockAcquireLatency, lockOpsPerCycle, csOpsPerCycle, stats, opsByGroup, statsByGroup, check,
                crossCheck, faults, nic, runEnd, Map.of());
    }

    /** The measures of operations of kind {@code kind}; {@link KindMeasures#NONE} if there were none. */
    public KindMeasures kind(int kind) {
        return byKind.getOrDefault(kind, KindMeasures.NONE);
    }

    /** Completed operations of kind {@code kind} per second. */
    public double goodputOfKind(int kind) {
        return measuredNs <= 0 ? 0 : kind(kind).operations() * NANOS_PER_SECOND / measuredNs;
    }

    /**
     * The workload, as the kind it is.
     *
     * @throws ClassCastException if it is another kind
     */
    public <W extends Workload<?>> W workload(Class<W> kind) {
        return kind.cast(workload);
    }

    /** Completed operations per second of the measured phase. */
    public double goodput() {
        return measuredNs <= 0 ? 0 : measuredOps * NANOS_PER_SECOND / measuredNs;
    }

    /** Completed operations of client group {@code group} (a range size) per second. */
    public double goodput(long group) {
        return measuredNs <= 0 ? 0 : opsByGroup.getOrDefault(group, 0L) * NANOS_PER_SECOND / measuredNs;
    }

    public double measuredSeconds() {
        return measuredNs / NANOS_PER_SECOND;
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

    /** Aborts per measured operation. */
    public double abortsPerOperation() {
        return measuredOps == 0 ? 0 : (double) aborts() / measuredOps;
    }

    /** Whether the protocol counts {@link #timingAborts() timing aborts} (citron does; the others have none). */
    public boolean countsTimingAborts() {
        return stats.has(LockStats.TIMING_ABORTS);
    }

    /**
     * Lock parts aborted because a notification may have come later than the protocol's wait
     * allows ({@link LockStats#TIMING_ABORTS}: citron's abort rate, §4.7); -1 for protocols that do
     * not count them ({@link #countsTimingAborts()}), which the reports leave empty.
     */
    public long timingAborts() {
        return countsTimingAborts() ? stats.counter(LockStats.TIMING_ABORTS) : -1;
    }

    /** {@link #timingAborts()} per measured operation; -1 if the protocol does not count them. */
    public double timingAbortsPerOperation() {
        long timing = timingAborts();
        return timing < 0 ? -1 : measuredOps == 0 ? 0 : (double) timing / measuredOps;
    }

    /** Every violation: the checkers' and the liveness and recovery checks'. */
    public List<Violation> violations() {
        List<Violation> all = new ArrayList<>(check.violations());
        all.addAll(faults.violations());
        return all;
    }

    /** True if no violation was found. */
    public boolean correct() {
        return check.violations().isEmpty() && faults.violations().isEmpty();
    }
}
