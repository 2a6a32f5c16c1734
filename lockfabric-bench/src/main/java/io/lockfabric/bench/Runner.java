package io.lockfabric.bench;

import io.lockfabric.check.GuardedCounters;
import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.MutualExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockStats;
import io.lockfabric.sim.Fault;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Runs the {@link MicroBenchConfig} workload of one protocol on a fabric and measures it.
 *
 * <p>Each of the N clients has its own {@link Endpoint} and {@link LockClient}, both created on the
 * caller's thread, and runs as a {@link ClientThread} started with {@link Fabric#spawn}: a platform
 * thread on the local fabric, a simulated process on the sim fabric, where every time is virtual.
 * The phase boundaries are fixed before the clients start; each client snapshots its endpoint's
 * counters when it crosses into the measured phase and again when it leaves it; latencies go to
 * per-client histograms merged after the run, so nothing is shared on the hot path. The measured
 * phase runs from the first client's crossing to the last client's exit.
 *
 * <p>The data objects (and guarded counters) live on the last memory node: with several memory
 * nodes, critical-section verbs and lock verbs go to different NICs.
 *
 * <p>{@code ops_per_cycle} is the endpoint counters' delta minus what the runner itself issued in
 * critical sections (data READs / WRITEs and the guarded counter's READ + WRITE), which is
 * reported apart. Every run uses fresh table names, so runs on one fabric do not interfere.
 * Whole-run client counts are cross-checked against the memory nodes' own counts.
 *
 * <p>On the sim fabric a run may suffer the faults of a {@link FaultPlan} ({@link #withFaults}),
 * scheduled from the workload's seed over warmup plus duration. It then always checks (history,
 * guarded counters), runs until every live client is done or a liveness bound passes (the end of
 * the duration or of the last pause, whichever is later, plus a slack and, for protocols that
 * recover from crashes, their recovery bound once per crash), and reports crashes, stuck clients, recovery times and lease hazards in a
 * {@link FaultOutcome}.
 *
 * <p>Not thread-safe: one run at a time per runner (and per fabric, for the cross-check).
 */
public final class Runner {
    /** Size of the data object next to each lock that the critical section reads or writes. */
    public static final int DATA_OBJECT_BYTES = 8;
    static final String DATA_TABLE_PROTOCOL = "bench-data";
    /** Slack added to a simulated run's liveness bound, beyond its pauses and recovery bound. */
    static final long LIVENESS_SLACK_NS = 20_000_000L;
    /** Liveness bound of a simulated run measured by operation count. */
    static final long OPERATION_RUN_LIMIT_NS = SimFabric.DEFAULT_TIME_LIMIT_NS;

    private static final AtomicLong RUN_SEQUENCE = new AtomicLong();

    private final Fabric fabric;
    private final boolean showProgress;
    private final PrintStream progressOut;
    private final FaultPlan faults;
    private final Consumer<LockClient> clientObserver;
    private final String sharedTable;
    private final Consumer<List<Hold>> holdObserver;

    /** A runner that shows progress on stderr when stderr is a terminal. */
    public Runner(Fabric fabric) {
        this(fabric, ProgressDisplay.consoleIsTerminal(), System.err);
    }

    public Runner(Fabric fabric, boolean showProgress, PrintStream progressOut) {
        this(fabric, showProgress, progressOut, FaultPlan.NONE, c -> { }, null, null);
    }

    private Runner(Fabric fabric, boolean showProgress, PrintStream progressOut, FaultPlan faults,
                   Consumer<LockClient> clientObserver, String sharedTable, Consumer<List<Hold>> holdObserver) {
        this.fabric = fabric;
        this.showProgress = showProgress;
        this.progressOut = progressOut;
        this.faults = faults;
        this.clientObserver = clientObserver;
        this.sharedTable = sharedTable;
        this.holdObserver = holdObserver;
    }

    /**
     * This runner, injecting {@code plan}'s faults in every run.
     *
     * @throws IllegalArgumentException if the fabric is not the simulator (only it can inject faults)
     */
    public Runner withFaults(FaultPlan plan) {
        if (!plan.isNone() && !(fabric instanceof SimFabric)) {
            throw new IllegalArgumentException("faults can only be injected on the sim fabric, not " + fabric.name());
        }
        return new Runner(fabric, showProgress, progressOut, plan, clientObserver, sharedTable, holdObserver);
    }

    /**
     * This runner, handing every lock client of a run that completed to {@code observer} once the
     * clients have stopped and before they are closed: for measurements a protocol keeps on its
     * client beyond {@link LockClient#stats()} (cumulative over warmup and measured phase).
     */
    public Runner withClientObserver(Consumer<LockClient> observer) {
        return new Runner(fabric, showProgress, progressOut, faults, Objects.requireNonNull(observer, "observer"),
                sharedTable, holdObserver);
    }

    /**
     * This runner, recording every run's history (request, grant and release time of each hold,
     * observer time, warmup included) and handing it to {@code observer} once the clients have
     * stopped: for analyses of how a protocol passes a lock on. Unlike a checked run
     * ({@link MicroBenchConfig#check()}) it adds no verb to the critical sections (no guarded
     * counter) and checks nothing, so the run's timing is the unrecorded one's.
     */
    public Runner withHoldObserver(Consumer<List<Hold>> observer) {
        return new Runner(fabric, showProgress, progressOut, faults, clientObserver, sharedTable,
                Objects.requireNonNull(observer, "observer"));
    }

    /**
     * This runner, naming each run's tables {@code bench-<protocol>-<name>} instead of after this
     * process and run: runners in several processes given the same name (and the same lock count
     * and options) contend for the same locks on one memory node (tcp). A run then cannot be
     * checked ({@link MicroBenchConfig#check()}): its history would miss the other processes' holds
     * while its guarded counters count their increments.
     *
     * @throws IllegalArgumentException if {@code name} is not letters, digits, '.', '_' or '-'
     */
    public Runner withSharedTable(String name) {
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("a shared table name is 1 to 64 letters, digits, '.', '_' or '-', got '"
                    + name + "'");
        }
        return new Runner(fabric, showProgress, progressOut, faults, clientObserver, name, holdObserver);
    }

    /** The clients' phase boundaries and abort flag, shared by the clients of one run. */
    static final class RunControl {
        private final ClientWorker.Schedule schedule;
        private volatile boolean aborted;

        RunControl(ClientWorker.Schedule schedule) {
            this.schedule = schedule;
        }

        ClientWorker.Schedule schedule() {
            return schedule;
        }

        void abort() {
            aborted = true;
        }

        boolean aborted() {
            return aborted;
        }
    }

    /**
     * Runs {@code protocol} on {@code config} and returns the measurements.
     *
     * @throws IllegalArgumentException  if the protocol's options are invalid or it cannot run on this fabric
     * @throws BenchmarkFailedException if a client failed (the first failure is the cause)
     */
    public RunResult run(LockProtocol protocol, MicroBenchConfig config) {
        if (!faults.isNone()) {
            if (config.byOperations()) {
                throw new IllegalArgumentException("a run with faults needs a duration (faults are scheduled over it), "
                        + "not an operation count");
            }
            config = config.withCheck(true);
        }
        LockOptions options = config.options().forProtocol(protocol);
        FailureModel failureModel = protocol.failureModel(options);
        if (sharedTable != null && config.check()) {
            throw new IllegalArgumentException("a run on shared tables cannot be checked: other processes' holds are "
                    + "not in this one's history");
        }
        // the process id keeps runs of several processes on one (tcp) memory node apart, unless they share
        String table = sharedTable != null ? "bench-" + protocol.name() + "-" + sharedTable
                : "bench-" + protocol.name() + "-" + ProcessHandle.current().pid() + "-" + RUN_SEQUENCE.incrementAndGet();
        int dataNode = fabric.memoryNodes() - 1;
        TableSpec dataSpec = new TableSpec(table + "-data", DATA_TABLE_PROTOCOL, config.locks(),
                config.locks() * DATA_OBJECT_BYTES).onMemoryNode(dataNode);
        TableSpec guardSpec = GuardedCounters.tableSpec(table + "-guard", config.locks()).onMemoryNode(dataNode);
        History history = config.check() || holdObserver != null ? new History(fabric::observerNanoTime) : null;
        ZipfGenerator zipf = new ZipfGenerator(config.locks(), config.zipf());
        SplittableRandom seeds = new SplittableRandom(config.seed());
        OpCounterSlots progress = new OpCounterSlots(config.clients());

        List<Endpoint> endpoints = new ArrayList<>();
        List<LockClient> clients = new ArrayList<>();
        List<Table> dataTables = new ArrayList<>();
        RunControl control = null;
        Table guard = null;
        try {
            for (int i = 0; i < config.clients(); i++) {
                Endpoint endpoint = fabric.newEndpoint();
                endpoints.add(endpoint);
                clients.add(protocol.open(endpoint, table, config.locks(), options));
                dataTables.add(endpoint.openTable(dataSpec));
                guard = config.check() ? endpoint.openTable(guardSpec) : null;
            }
            long startNs = fabric.observerNanoTime();
            long measureAtNs = startNs + config.warmupNs();
            long endAtNs = config.byOperations() ? Long.MAX_VALUE : measureAtNs + config.durationNs();
            control = new RunControl(new ClientWorker.Schedule(measureAtNs, endAtNs));
            List<ClientWorker> workers = new ArrayList<>();
            for (int i = 0; i < config.clients(); i++) {
                workers.add(new ClientWorker(i, endpoints.get(i), clients.get(i), dataTables.get(i), guard,
                        history == null ? null : history.recorder(i), zipf, seeds.split(), config,
                        fabric::observerNanoTime, progress, control));
            }
            CounterSnapshot sentBefore = sentBy(endpoints);
            CounterSnapshot servedBefore = servedByMemoryNodes();

            long plannedNs = config.byOperations() ? 0 : config.warmupNs() + config.durationNs();
            ProgressDisplay display = showProgress
                    ? ProgressDisplay.start(protocol.name(), () -> fabric.observerNanoTime() - startNs, plannedNs,
                            progress::total, progressOut)
                    : ProgressDisplay.none();
            List<ClientThread> threads = new ArrayList<>();
            Simulated simulated = null;
            try {
                for (int i = 0; i < workers.size(); i++) {
                    threads.add(fabric.spawn("bench-" + protocol.name() + "-client-" + i, workers.get(i)));
                }
                if (fabric instanceof SimFabric sim) {
                    simulated = simulate(sim, config, failureModel, startNs, threads, workers);
                } else {
                    threads.forEach(ClientThread::join);
                }
            } finally {
                display.close();
            }
            for (ClientWorker w : workers) {
                if (w.failure != null) {
                    throw new BenchmarkFailedException("protocol " + protocol.name() + ": a client failed: "
                            + w.failure, w.failure);
                }
            }
            CounterCrossCheck crossCheck = new CounterCrossCheck(sentBy(endpoints).minus(sentBefore),
                    servedByMemoryNodes().minus(servedBefore));
            FaultAnalysis analysis = simulated == null ? null : simulated.analysis;
            List<Hold> holds = history == null ? List.of()
                    : analysis == null ? history.holds() : analysis.adjust(history.holds());
            CheckResult check = !config.check() ? CheckResult.DISABLED
                    : check(protocol, holds, guard, analysis == null ? Map.of() : analysis.uncertainIncrements());
            FaultOutcome outcome = FaultOutcome.NONE;
            if (simulated != null) {
                FaultAnalysis.Split split = analysis.classify(check.violations());
                check = check.withViolations(split.violations());
                List<FaultOutcome.Recovery> recoveries = analysis.recoveries(holds);
                List<Violation> liveness = new ArrayList<>(simulated.stuckViolations);
                liveness.addAll(analysis.slowRecoveries(recoveries));
                outcome = new FaultOutcome(faults.spec(), simulated.schedule, simulated.crashed, simulated.stuck,
                        simulated.livenessAsserted, recoveries, split.hazards(), liveness,
                        simulated.fabric.droppedMessages(), simulated.fabric.delayedMessages());
            }
            clients.forEach(clientObserver);
            if (holdObserver != null) {
                holdObserver.accept(holds);
            }
            return summarize(protocol, config, workers, check, crossCheck, outcome);
        } finally {
            if (control != null) {
                control.abort();
            }
            for (LockClient c : clients) {
                c.close();
            }
            for (Endpoint e : endpoints) {
                e.close();
            }
        }
    }

    /** What running the clients on the simulator found out, beyond their own measurements. */
    private record Simulated(SimFabric fabric, List<Fault> schedule, List<Integer> crashed, List<Integer> stuck,
                             boolean livenessAsserted, List<Violation> stuckViolations, FaultAnalysis analysis) {
    }

    /**
     * Injects the faults, runs the simulation until every live client is done or the liveness
     * bound passes, and ends the measurements of clients that never finished.
     */
    private Simulated simulate(SimFabric sim, MicroBenchConfig config, FailureModel model, long startNs,
                               List<ClientThread> threads, List<ClientWorker> workers) {
        long horizonNs = config.warmupNs() + config.durationNs();
        List<Fault> schedule = faults.isNone() ? List.of()
                : faults.schedule(config.seed(), threads.size(), fabric.memoryNodes(), startNs, horizonNs);
        sim.inject(faults, schedule, threads);
        long lastFaultEnd = schedule.stream().mapToLong(Fault::endNs).max().orElse(startNs);
        long boundNs = config.byOperations() ? startNs + OPERATION_RUN_LIMIT_NS
                : Math.max(startNs + horizonNs, lastFaultEnd) + LIVENESS_SLACK_NS + faults.maxDelayNs()
                + (model.recoversFromCrash() ? model.recoveryBoundNs() * Math.max(1, faults.crashes()) : 0);
        List<SimProcess> processes = threads.stream().map(SimProcess.class::cast).toList();
        sim.runUntil(() -> processes.stream().allMatch(SimProcess::finished), boundNs, "clients to finish");
        long now = sim.observerNanoTime();

        long[] crashedAt = new long[processes.size()];
        Arrays.fill(crashedAt, -1);
        List<Integer> crashed = new ArrayList<>();
        List<Integer> stuck = new ArrayList<>();
        for (int i = 0; i < processes.size(); i++) {
            SimProcess p = processes.get(i);
            if (p.crashed()) {
                crashed.add(i);
                crashedAt[i] = crashTime(schedule, i, now);
                workers.get(i).endFromOutside(crashedAt[i]);
            } else if (!p.finished()) {
                stuck.add(i);
                workers.get(i).endFromOutside(now);
            }
        }
        boolean livenessAsserted = crashed.isEmpty() || model.recoversFromCrash();
        List<Violation> stuckViolations = new ArrayList<>();
        if (livenessAsserted) {
            for (int i : stuck) {
                stuckViolations.add(new Violation.Stuck(i, workers.get(i).lastProgressNs, now));
            }
        }
        return new Simulated(sim, schedule, crashed, stuck, livenessAsserted, stuckViolations,
                new FaultAnalysis(model, schedule, crashedAt));
    }

    private static long crashTime(List<Fault> schedule, int client, long otherwise) {
        return schedule.stream().filter(f -> f.kind() == Fault.Kind.CRASH && f.target() == client)
                .mapToLong(Fault::atNs).min().orElse(otherwise);
    }

    private RunResult summarize(LockProtocol protocol, MicroBenchConfig config, List<ClientWorker> workers,
                                CheckResult check, CounterCrossCheck crossCheck, FaultOutcome outcome) {
        Histogram acquire = new Histogram(3);
        Histogram operation = new Histogram(3);
        Histogram release = new Histogram(3);
        Histogram hottest = new Histogram(3);
        long ops = 0;
        long csReads = 0;
        long csWrites = 0;
        long firstStart = Long.MAX_VALUE;
        long lastEnd = Long.MIN_VALUE;
        CounterSnapshot measured = CounterSnapshot.ZERO;
        LockStats stats = LockStats.ZERO;
        for (ClientWorker w : workers) {
            stats = stats.plus(w.statsAtEnd.minus(w.statsAtStart));
            acquire.add(w.acquireNanos);
            operation.add(w.operationNanos);
            release.add(w.releaseNanos);
            hottest.add(w.hottestAcquireNanos);
            ops += w.measuredOps;
            csReads += w.csReads;
            csWrites += w.csWrites;
            firstStart = Math.min(firstStart, w.measureStartNs);
            lastEnd = Math.max(lastEnd, w.measureEndNs);
            measured = measured.plus(w.countersAtEnd.minus(w.countersAtStart));
        }
        CounterSnapshot runnerIssued = runnerOps(csReads, csWrites);
        return new RunResult(protocol.name(), fabric.name(), config, ops, Math.max(0, lastEnd - firstStart),
                LatencySummary.of(acquire), LatencySummary.of(operation),
                OpsPerCycle.of(measured.minus(runnerIssued), ops), OpsPerCycle.of(runnerIssued, ops),
                stats, check, crossCheck, outcome, LatencySummary.of(release), LatencySummary.of(hottest));
    }

    private static CounterSnapshot runnerOps(long reads, long writes) {
        long[] counts = new long[VerbKind.count()];
        counts[VerbKind.READ.ordinal()] = reads;
        counts[VerbKind.WRITE.ordinal()] = writes;
        return new CounterSnapshot(counts, new long[VerbKind.count()]);
    }

    private CheckResult check(LockProtocol protocol, List<Hold> holds, Table guard, Map<Long, Long> uncertain) {
        List<Violation> violations = new ArrayList<>(MutualExclusionChecker.overlaps(holds));
        if (protocol.strictFencing()) {
            violations.addAll(MutualExclusionChecker.fencing(holds));
        }
        Map<Long, Long> expected = MutualExclusionChecker.exclusiveGrantsPerLock(holds);
        try (Endpoint verifier = fabric.newEndpoint()) {
            violations.addAll(GuardedCounters.verify(verifier.queuePair(guard.memoryNode()), guard, expected,
                    uncertain));
        }
        long exclusive = expected.values().stream().mapToLong(Long::longValue).sum();
        return new CheckResult(true, holds.size(), exclusive, protocol.strictFencing(), violations);
    }

    private static CounterSnapshot sentBy(List<Endpoint> endpoints) {
        return CounterSnapshot.sum(endpoints.stream().map(Endpoint::counters).toList());
    }

    private CounterSnapshot servedByMemoryNodes() {
        CounterSnapshot total = CounterSnapshot.ZERO;
        for (int mn = 0; mn < fabric.memoryNodes(); mn++) {
            total = total.plus(fabric.memoryNodeCounters(mn));
        }
        return total;
    }
}
