package io.lockfabric.bench.sim;

import io.lockfabric.bench.CheckResult;
import io.lockfabric.bench.FaultOutcome;
import io.lockfabric.bench.NicProbe;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.RunDriver;
import io.lockfabric.bench.Workload;
import io.lockfabric.check.Hold;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.sim.Fault;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.NicQueueing;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Runs a run's clients on the simulator ({@link SimFabric}) in virtual time. It injects the
 * faults of a {@link FaultPlan}, scheduled from the workload's seed over warmup plus duration; runs
 * until every live client is done or a liveness bound passes (the end of the measured phase or of
 * the last fault, whichever is later, plus the longest message delay and the workload's grace:
 * {@link Workload#graceNs}, which for a protocol that recovers counts each message lost after a
 * waiting client's last progress as one more failure, like a crash); ends the measurements of
 * crashed clients at their crash and of stuck ones at the bound; and reports stuck clients as
 * liveness violations where the protocol's {@link FailureModel} promises liveness (no crash and no
 * lost message, or it recovers from crashes: a message lost between live clients is, to the client
 * waiting for it, its sender's crash, since RDMA's reliable connections never lose one silently).
 * The run's history is read in the light of the faults ({@link FaultAnalysis}: a crashed holder's
 * holds end at its crash, recoveries are timed against the protocol's bound as the other faults
 * widen it, overlaps of a holder paused past its lease are hazards, not violations). For a
 * workload that wants it, the memory node's queueing is tracked over the measured phase (tracking
 * only observes: the run is the same).
 *
 * <p>A run measured by operation count gets the simulator's time limit as its bound and may not
 * suffer faults (they are scheduled over a duration). A faulty run is always checked. Not
 * thread-safe: one run at a time, on the driving thread.
 */
public final class SimDriver implements RunDriver {
    /** Liveness bound of a simulated run measured by operation count. */
    static final long OPERATION_RUN_LIMIT_NS = SimFabric.DEFAULT_TIME_LIMIT_NS;

    private final SimFabric fabric;
    private final FaultPlan faults;

    /** A driver of runs on {@code fabric} without faults. */
    public SimDriver(SimFabric fabric) {
        this(fabric, FaultPlan.NONE);
    }

    private SimDriver(SimFabric fabric, FaultPlan faults) {
        this.fabric = Objects.requireNonNull(fabric, "fabric");
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /**
     * A driver of runs on {@code fabric}, which must be the simulator.
     *
     * @throws IllegalArgumentException if it is not (only the simulator drives virtual time and faults)
     */
    public static SimDriver of(Fabric fabric) {
        if (!(fabric instanceof SimFabric sim)) {
            throw new IllegalArgumentException("faults and virtual time need the sim fabric, not " + fabric.name());
        }
        return new SimDriver(sim);
    }

    /** This driver, injecting {@code plan}'s faults in every run. */
    public SimDriver withFaults(FaultPlan plan) {
        return new SimDriver(fabric, plan);
    }

    public FaultPlan faults() {
        return faults;
    }

    /** With faults: a protocol without crash recovery may declare a lock broken, and its client then ends. */
    @Override
    public boolean toleratesBrokenLocks() {
        return !faults.isNone();
    }

    @Override
    public Fabric fabric() {
        return fabric;
    }

    /**
     * With faults: the workload checked.
     *
     * @throws IllegalArgumentException with faults, for a workload measured by operation count
     */
    @Override
    public <P> Workload<P> prepare(Workload<P> workload) {
        if (faults.isNone()) {
            return workload;
        }
        if (workload.byOperations()) {
            throw new IllegalArgumentException("a run with faults needs a duration (faults are scheduled over it), "
                    + "not an operation count");
        }
        return workload.checked();
    }

    @Override
    public Driven drive(Run run) {
        Phases phases = run.workload().phases();
        long startNs = run.startNs();
        long horizonNs = phases.warmupNs() + phases.durationNs();
        int perCn = fabric.config().clientsPerComputeNode();
        int usedCns = Math.max(1, Math.min(fabric.config().computeNodes(), (run.threads().size() + perCn - 1) / perCn));
        List<Fault> schedule = faults.isNone() ? List.of()
                : faults.schedule(phases.seed(), run.threads().size(), usedCns, fabric.memoryNodes(), startNs, horizonNs);
        fabric.inject(faults, schedule, run.threads());
        long droppedBefore = fabric.droppedMessages();
        long lastFaultEnd = schedule.stream().mapToLong(Fault::endNs).max().orElse(startNs);
        long baseNs = Workload.addTimes(Math.max(startNs + horizonNs, lastFaultEnd), faults.maxDelayNs());
        FailureModel model = run.failureModel();
        long boundNs = phases.byOperations() ? startNs + OPERATION_RUN_LIMIT_NS
                : Workload.addTimes(baseNs, run.workload().graceNs(model, crashAllowance(perCn)));
        List<SimProcess> processes = run.threads().stream().map(SimProcess.class::cast).toList();
        BooleanSupplier finished = () -> processes.stream().allMatch(SimProcess::finished);
        NicQueueing queueing = null;
        if (run.workload().measuresNicQueueing() && !phases.byOperations() && fabric.memoryNodes() == 1
                && !fabric.runUntil(finished, startNs + phases.warmupNs(), "clients to finish warming up")) {
            fabric.trackMemoryNodeQueueing(true);
            fabric.runUntil(finished, startNs + horizonNs, "clients to finish");
            queueing = fabric.memoryNodeQueueing(0, NicProbe.TOP_WORDS);
            fabric.trackMemoryNodeQueueing(false);
        }
        if (!fabric.runUntil(finished, boundNs, "clients to finish") && !phases.byOperations()
                && model.recoversFromCrash()) {
            runPastLostMessages(run, processes, finished, baseNs, boundNs);
        }
        long now = fabric.observerNanoTime();

        long[] crashedAt = new long[processes.size()];
        long[] gaveUpAt = new long[processes.size()];
        Arrays.fill(crashedAt, -1);
        Arrays.fill(gaveUpAt, -1);
        List<Integer> crashed = new ArrayList<>();
        List<Integer> stuck = new ArrayList<>();
        List<Integer> gaveUp = new ArrayList<>();
        for (int i = 0; i < processes.size(); i++) {
            SimProcess p = processes.get(i);
            RunDriver.Client client = run.clients().get(i);
            if (p.crashed()) {
                crashed.add(i);
                crashedAt[i] = p.crashedAtNs() >= 0 ? p.crashedAtNs() : crashTime(schedule, i, now);
                client.endAt(crashedAt[i]);
            } else if (!p.finished()) {
                stuck.add(i);
                client.endAt(now);
            } else if (client.gaveUp() != null) {
                gaveUp.add(i);
                gaveUpAt[i] = client.gaveUp().atNs();
            }
        }
        // A message lost between live clients is, to the client waiting for it, its peer's crash (RDMA's
        // reliable connections never lose one silently): a protocol that does not recover from a crash
        // (mcs) makes no promise after one either.
        boolean livenessAsserted = (crashed.isEmpty() && fabric.droppedMessages() == droppedBefore)
                || model.recoversFromCrash();
        List<Violation> stuckViolations = new ArrayList<>();
        if (livenessAsserted) {
            for (int i : stuck) {
                stuckViolations.add(new Violation.Stuck(i, run.clients().get(i).lastProgressNs(), now));
            }
            for (int i : gaveUp) {
                stuckViolations.add(new Violation.GaveUp(i, gaveUpAt[i], run.clients().get(i).gaveUp().cause().getMessage()));
            }
        }
        NicProbe nic = null;
        if (queueing != null) {
            Map<Long, String> names = new HashMap<>();
            for (NicQueueing.Word w : queueing.words()) {
                run.describeAddress().apply(w.address()).ifPresent(name -> names.put(w.address(), name));
            }
            nic = new NicProbe(queueing, names);
        }
        return new Simulated(schedule, crashed, stuck, gaveUp, livenessAsserted, stuckViolations,
                new FaultAnalysis(model, schedule, crashedAt, gaveUpAt, faults.maxDelayNs()), nic);
    }

    /**
     * Once the bound has passed with live clients still waiting, in a run of a protocol that
     * recovers: a message lost after a waiting client's last progress may lie on the path of its
     * wait, and the protocol makes up for it within one recovery bound (by its lease recovery when
     * the sender cannot send it again), so each such loss counts in the workload's grace as one
     * more crash. Runs on while that moves the bound; a lock that never recovers is still found,
     * since once every client is blocked no message is lost any more.
     *
     * @param baseNs  the bound without the grace
     * @param boundNs the bound that has passed
     */
    private void runPastLostMessages(Run run, List<SimProcess> processes, BooleanSupplier finished, long baseNs,
                                     long boundNs) {
        FailureModel model = run.failureModel();
        while (true) {
            long waitingSince = Long.MAX_VALUE;
            for (int i = 0; i < processes.size(); i++) {
                if (!processes.get(i).finished() && !processes.get(i).crashed()) {
                    waitingSince = Math.min(waitingSince, run.clients().get(i).lastProgressNs());
                }
            }
            long lost = waitingSince == Long.MAX_VALUE ? 0 : fabric.droppedMessagesSince(waitingSince);
            long extendedNs = Workload.addTimes(baseNs, run.workload().graceNs(model,
                    (int) Math.min(Integer.MAX_VALUE, crashAllowance(fabric.config().clientsPerComputeNode()) + lost)));
            if (extendedNs <= boundNs || fabric.runUntil(finished, extendedNs, "clients to finish")) {
                return;
            }
            boundNs = extendedNs;
        }
    }

    /**
     * The crashes the liveness bound allows for: the client crashes, each compute-node crash as
     * its clients' crashes, and each memory-node restart as one more (the recovery after it).
     */
    private int crashAllowance(int clientsPerCn) {
        long n = faults.crashes() + (long) faults.computeNodeCrashes() * clientsPerCn + faults.memoryNodeRestarts();
        return (int) Math.min(Integer.MAX_VALUE, n);
    }

    private static long crashTime(List<Fault> schedule, int client, long otherwise) {
        return schedule.stream().filter(f -> f.kind() == Fault.Kind.CRASH && f.target() == client)
                .mapToLong(Fault::atNs).min().orElse(otherwise);
    }

    /** What running the clients on the simulator found out, beyond their own measurements. */
    private final class Simulated implements Driven {
        private final List<Fault> schedule;
        private final List<Integer> crashed;
        private final List<Integer> stuck;
        private final List<Integer> gaveUp;
        private final boolean livenessAsserted;
        private final List<Violation> stuckViolations;
        private final FaultAnalysis analysis;
        private final NicProbe nic;

        Simulated(List<Fault> schedule, List<Integer> crashed, List<Integer> stuck, List<Integer> gaveUp,
                  boolean livenessAsserted, List<Violation> stuckViolations, FaultAnalysis analysis, NicProbe nic) {
            this.schedule = schedule;
            this.crashed = crashed;
            this.stuck = stuck;
            this.gaveUp = gaveUp;
            this.livenessAsserted = livenessAsserted;
            this.stuckViolations = stuckViolations;
            this.analysis = analysis;
            this.nic = nic;
        }

        @Override
        public List<Hold> adjust(List<Hold> holds) {
            return analysis.adjust(holds);
        }

        @Override
        public Map<Long, Long> uncertainIncrements() {
            return analysis.uncertainIncrements();
        }

        @Override
        public Outcome finish(CheckResult check, List<Hold> holds) {
            FaultAnalysis.Split split = analysis.classify(check.violations());
            List<FaultOutcome.Recovery> recoveries = analysis.recoveries(holds);
            List<Violation> liveness = new ArrayList<>(stuckViolations);
            liveness.addAll(analysis.slowRecoveries(recoveries));
            FaultOutcome outcome = new FaultOutcome(faults.spec(), schedule, crashed, stuck, gaveUp, livenessAsserted,
                    recoveries, split.hazards(), liveness, fabric.droppedMessages(), fabric.delayedMessages());
            return new Outcome(check.withViolations(split.violations()), outcome, nic);
        }
    }
}
