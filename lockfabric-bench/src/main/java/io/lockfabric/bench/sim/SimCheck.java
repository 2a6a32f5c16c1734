package io.lockfabric.bench.sim;

import io.lockfabric.bench.FaultOutcome;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.Workload;
import io.lockfabric.check.Violation;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.ArrayList;
import java.util.List;

/**
 * Many seeds of one simulated, checked, faulty workload of any kind: each seed gets a fresh
 * {@link SimFabric} (network jitter, clock rates), its own workload choices and its own fault
 * schedule, all from that one seed, so any run can be replayed from its seed alone. A
 * {@link Tally} adds up what a protocol's seeds found.
 *
 * @param <P> the protocol SPI of the workload (point or range locks)
 */
public final class SimCheck<P> {
    private final SimConfig cluster;
    private final Workload<P> workload;
    private final FaultPlan faults;

    /**
     * @param cluster  the simulated cluster (its seed is replaced by each run's)
     * @param workload the workload, run for a virtual duration (its seed is replaced by each run's;
     *                 check is always on)
     * @param faults   the faults every run suffers
     */
    public SimCheck(SimConfig cluster, Workload<P> workload, FaultPlan faults) {
        if (workload.byOperations()) {
            throw new IllegalArgumentException("a sim check runs for a virtual duration, not an operation count");
        }
        if (workload.clients() != cluster.clients()) {
            throw new IllegalArgumentException("workload has " + workload.clients() + " clients, cluster "
                    + cluster.clients());
        }
        this.cluster = cluster;
        this.workload = workload.checked();
        this.faults = faults;
    }

    public SimConfig cluster() {
        return cluster;
    }

    public Workload<P> workload() {
        return workload;
    }

    public FaultPlan faults() {
        return faults;
    }

    /** Runs {@code protocol} with {@code seed}: a pure function of the two. */
    public RunResult run(P protocol, long seed) {
        try (SimFabric fabric = new SimFabric(cluster.toBuilder().seed(seed).build())) {
            return new Runner(new SimDriver(fabric).withFaults(faults), false, System.err)
                    .run(protocol, workload.withSeed(seed));
        }
    }

    /** What the seeds of one protocol found. Not thread-safe. */
    public static final class Tally {
        /** A violation and the seed that produced it. */
        public record Finding(long seed, Violation violation) {
        }

        private final String protocol;
        private long runs;
        private long operations;
        private long crashes;
        private long stuckExpected;
        private long gaveUpExpected;
        private long hazards;
        private long recoveries;
        private long maxRecoveryNs = -1;
        private long minRecoveryNs = -1;
        private final List<Finding> violations = new ArrayList<>();

        public Tally(String protocol) {
            this.protocol = protocol;
        }

        public void add(long seed, RunResult r) {
            runs++;
            operations += r.measuredOps();
            FaultOutcome f = r.faults();
            crashes += f.crashedClients().size();
            if (!f.livenessAsserted()) {
                stuckExpected += f.stuckClients().size();
                gaveUpExpected += f.gaveUpClients().size();
            }
            hazards += f.hazards().size();
            for (FaultOutcome.Recovery rec : f.recoveries()) {
                if (rec.recovered()) {
                    recoveries++;
                    maxRecoveryNs = Math.max(maxRecoveryNs, rec.recoveryNs());
                    minRecoveryNs = minRecoveryNs < 0 ? rec.recoveryNs() : Math.min(minRecoveryNs, rec.recoveryNs());
                }
            }
            for (Violation v : r.violations()) {
                violations.add(new Finding(seed, v));
            }
        }

        public String protocol() {
            return protocol;
        }

        public long runs() {
            return runs;
        }

        public long operations() {
            return operations;
        }

        public long crashes() {
            return crashes;
        }

        /** Clients left blocked behind a crash in a protocol that does not claim to recover. */
        public long stuckExpected() {
            return stuckExpected;
        }

        /**
         * Clients that gave up on a lock their protocol declared broken, in runs where the protocol
         * promised no liveness (it does not recover from the run's crashes or lost messages).
         */
        public long gaveUpExpected() {
            return gaveUpExpected;
        }

        public long hazards() {
            return hazards;
        }

        /** Locks held at a crash that were granted again. */
        public long recoveries() {
            return recoveries;
        }

        /** The slowest of those recoveries, or -1. */
        public long maxRecoveryNs() {
            return maxRecoveryNs;
        }

        /** The fastest of those recoveries, or -1. */
        public long minRecoveryNs() {
            return minRecoveryNs;
        }

        public List<Finding> violations() {
            return List.copyOf(violations);
        }
    }
}
