package io.lockfabric.bench;

import io.lockfabric.check.History;
import io.lockfabric.check.HistoryFile;
import io.lockfabric.check.Hold;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.LockStats;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Runs one protocol under one {@link Workload} of any kind on a fabric and measures it.
 *
 * <p>Each client has its own {@link Endpoint} and {@link Session} (its lock client, opened by the
 * workload's {@link Trial}), both created on the caller's thread in client order, and runs as a
 * {@link ClientThread} started with {@link Fabric#spawn} (a platform thread on a real-time fabric,
 * a simulated process on the simulator, where every time is virtual). The phase boundaries are
 * fixed before the clients start; each client snapshots its endpoint's counters and its lock
 * client's statistics when it crosses into the measured phase and again when it leaves it;
 * latencies go to per-client histograms merged after the run, so nothing is shared on the hot
 * path. The measured phase runs from the first client's crossing to the last client's exit.
 *
 * <p>{@code ops_per_cycle} is the endpoint counters' delta minus what the sessions issued
 * themselves (critical-section READs / WRITEs, the guarded counter), which is reported apart.
 * Every run uses fresh table names unless the runner shares them ({@link #withSharedTable}), so
 * runs on one fabric do not interfere. Whole-run client counts are cross-checked against the
 * memory nodes' own counts. With {@link Workload#check()} the run records its history and the
 * workload checks it.
 *
 * <p>The {@link RunDriver} runs the client threads to their end: on a real-time fabric
 * ({@link RealTimeDriver}) it joins them up to the run's deadline (planned end plus a grace) and
 * ends the stuck ones from outside, or stops the run early on request, and the result says how the
 * run ended ({@link RunResult#runEnd()}); on the simulator ({@code io.lockfabric.bench.sim.SimDriver})
 * it also injects faults, bounds the run's liveness and reads the findings in the light of the
 * faults. The runner itself knows no fabric.
 *
 * <p>Not thread-safe: one run at a time per runner (and per fabric, for the cross-check).
 */
public final class Runner {
    private static final AtomicLong RUN_SEQUENCE = new AtomicLong();

    private final RunDriver driver;
    private final Fabric fabric;
    private final boolean showProgress;
    private final PrintStream progressOut;
    private final Consumer<LockStats> statsObserver;
    private final String sharedTable;
    private final Consumer<List<Hold>> holdObserver;
    private final Consumer<HistoryFile.Run> historyObserver;

    /** A runner through {@code driver} that shows progress on stderr when stderr is a terminal. */
    public Runner(RunDriver driver) {
        this(driver, ProgressDisplay.consoleIsTerminal(), System.err);
    }

    public Runner(RunDriver driver, boolean showProgress, PrintStream progressOut) {
        this(driver, showProgress, progressOut, s -> { }, null, null, null);
    }

    private Runner(RunDriver driver, boolean showProgress, PrintStream progressOut, Consumer<LockStats> statsObserver,
                   String sharedTable, Consumer<List<Hold>> holdObserver, Consumer<HistoryFile.Run> historyObserver) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.fabric = driver.fabric();
        this.showProgress = showProgress;
        this.progressOut = progressOut;
        this.statsObserver = statsObserver;
        this.sharedTable = sharedTable;
        this.holdObserver = holdObserver;
        this.historyObserver = historyObserver;
    }

    /**
     * This runner, handing every lock client's statistics, cumulative over the whole run (warmup
     * included), to {@code observer} once the clients of a run that completed have stopped, in
     * client order: for what a protocol counts beyond the measured phase's sums.
     */
    public Runner withStatsObserver(Consumer<LockStats> observer) {
        return new Runner(driver, showProgress, progressOut, Objects.requireNonNull(observer, "observer"),
                sharedTable, holdObserver, historyObserver);
    }

    /**
     * This runner, recording every run's history (request, grant and release time of each hold,
     * observer time, warmup included) and handing it to {@code observer} once the clients have
     * stopped: for analyses of how a protocol passes a lock on. Unlike a checked run it adds no verb
     * to the critical sections (no guarded counter) and checks nothing, so the run's timing is the
     * unrecorded one's.
     */
    public Runner withHoldObserver(Consumer<List<Hold>> observer) {
        return new Runner(driver, showProgress, progressOut, statsObserver, sharedTable,
                Objects.requireNonNull(observer, "observer"), historyObserver);
    }

    /**
     * This runner, handing the history of every checked run that completed ({@link Workload#check()}:
     * its table, protocol and holds, as a history file keeps them) to {@code observer} after the run's
     * own check: for a merged check with other processes' histories
     * ({@link io.lockfabric.check.CrossProcessChecker}).
     */
    public Runner withHistoryObserver(Consumer<HistoryFile.Run> observer) {
        return new Runner(driver, showProgress, progressOut, statsObserver, sharedTable, holdObserver,
                Objects.requireNonNull(observer, "observer"));
    }

    /**
     * This runner, naming each run's tables {@code <prefix>-<protocol>-<name>} instead of after this
     * process and run: runners in several processes given the same name (and the same workload
     * shape and options) contend for the same locks on one memory node (tcp). Each process's
     * history misses the others' holds: its own check covers its own holds, and a merged check of
     * every process's history ({@link #withHistoryObserver}) covers them all.
     *
     * @throws IllegalArgumentException if {@code name} is not letters, digits, '.', '_' or '-'
     */
    public Runner withSharedTable(String name) {
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("a shared table name is 1 to 64 letters, digits, '.', '_' or '-', got '"
                    + name + "'");
        }
        return new Runner(driver, showProgress, progressOut, statsObserver, name, holdObserver, historyObserver);
    }

    /**
     * Runs {@code protocol} under {@code workload} and returns the measurements.
     *
     * @throws IllegalArgumentException  if the protocol's options are invalid, it cannot run on this
     *                                   fabric, or the driver cannot run the workload
     * @throws BenchmarkFailedException if a client failed (the first failure is the cause)
     */
    public <P> RunResult run(P protocol, Workload<P> workload) {
        workload = driver.prepare(workload);
        Trial trial = workload.trial(protocol, fabric, sharedTable != null);
        // the process id keeps runs of several processes on one (tcp) memory node apart, unless they share
        String table = trial.tablePrefix() + "-" + trial.protocol() + "-" + (sharedTable != null ? sharedTable
                : ProcessHandle.current().pid() + "-" + RUN_SEQUENCE.incrementAndGet());
        History history = workload.check() || holdObserver != null ? new History(fabric::observerNanoTime) : null;
        Phases phases = workload.phases();
        SplittableRandom seeds = new SplittableRandom(phases.seed());
        OpCounterSlots progress = new OpCounterSlots(phases.clients());

        List<Endpoint> endpoints = new ArrayList<>();
        List<Session> sessions = new ArrayList<>();
        ClientWorker.Control control = null;
        try {
            for (int i = 0; i < phases.clients(); i++) {
                Endpoint endpoint = fabric.newEndpoint();
                endpoints.add(endpoint);
                sessions.add(trial.open(i, endpoint, table, history == null ? null : history.recorder(i),
                        seeds.split(), fabric::observerNanoTime));
            }
            long startNs = fabric.observerNanoTime();
            long measureAtNs = startNs + phases.warmupNs();
            long endAtNs = phases.byOperations() ? Long.MAX_VALUE : measureAtNs + phases.durationNs();
            control = new ClientWorker.Control(new ClientWorker.Schedule(measureAtNs, endAtNs),
                    driver.toleratesBrokenLocks());
            List<ClientWorker> workers = new ArrayList<>();
            for (int i = 0; i < phases.clients(); i++) {
                workers.add(new ClientWorker(i, endpoints.get(i), sessions.get(i), phases, fabric::observerNanoTime,
                        progress, control));
            }
            CounterSnapshot sentBefore = sentBy(endpoints);
            CounterSnapshot servedBefore = servedByMemoryNodes();

            ProgressDisplay display = showProgress
                    ? ProgressDisplay.start(trial.label(), () -> fabric.observerNanoTime() - startNs,
                            phases.plannedNs(), progress::total, progressOut)
                    : ProgressDisplay.none();
            RunDriver.Driven driven;
            try {
                List<ClientThread> threads = new ArrayList<>();
                for (int i = 0; i < workers.size(); i++) {
                    threads.add(fabric.spawn(trial.tablePrefix() + "-" + trial.protocol() + "-client-" + i,
                            workers.get(i)));
                }
                driven = driver.drive(new RunDriver.Run(workload, trial.failureModel(), startNs, threads, workers,
                        address -> sessions.getFirst().describeAddress(address)));
            } finally {
                display.close();
            }
            for (ClientWorker w : workers) {
                if (w.failure != null) {
                    throw new BenchmarkFailedException(trial.subject() + ": a client failed: " + w.failure, w.failure);
                }
            }
            CounterCrossCheck crossCheck = new CounterCrossCheck(sentBy(endpoints).minus(sentBefore),
                    servedByMemoryNodes().minus(servedBefore));
            List<Hold> holds = history == null ? List.of() : driven.adjust(history.holds());
            CheckResult check = workload.check() ? trial.check(holds, driven.uncertainIncrements())
                    : CheckResult.DISABLED;
            RunDriver.Outcome outcome = driven.finish(check, holds);
            for (Session s : sessions) {
                statsObserver.accept(s.stats());
            }
            if (holdObserver != null) {
                holdObserver.accept(holds);
            }
            if (historyObserver != null && workload.check()) {
                historyObserver.accept(new HistoryFile.Run(workload.kind(), trial.protocol(), table,
                        trial.strictFencing(), holds));
            }
            return summarize(trial, workload, workers, crossCheck, outcome);
        } finally {
            if (control != null) {
                control.abort();
            }
            for (Session s : sessions) {
                s.close();
            }
            for (Endpoint e : endpoints) {
                e.close();
            }
            if (sharedTable == null) {
                dropTables(trial.tableNames(table));
            }
        }
    }

    /**
     * Drops a finished run's own tables, on a fabric whose memory nodes outlive the run and can drop
     * tables (a {@code serve} memory node), so that runs against a long-lived server leave its
     * memory as they found it. Forced: the tables are this process's, and its endpoints are closed
     * (the server may not have seen their connections go yet). Nothing on fabrics that cannot drop.
     */
    private void dropTables(List<String> names) {
        try {
            for (int mn = 0; mn < fabric.memoryNodes(); mn++) {
                for (String name : names) {
                    fabric.dropTable(mn, name, true);
                }
            }
        } catch (UnsupportedOperationException cannotDrop) {
            // local and sim: the memory node goes with the process
        } catch (RuntimeException unreachable) {
            // the memory node is gone or refuses: the run's result stands; its tables expire with their grace
        }
    }

    private RunResult summarize(Trial trial, Workload<?> workload, List<ClientWorker> workers,
                                CounterCrossCheck crossCheck, RunDriver.Outcome outcome) {
        Histogram acquire = new Histogram(3);
        Histogram operation = new Histogram(3);
        Histogram release = new Histogram(3);
        Histogram hottest = new Histogram(3);
        long ops = 0;
        long issuedReads = 0;
        long issuedWrites = 0;
        long firstStart = Long.MAX_VALUE;
        long lastEnd = Long.MIN_VALUE;
        CounterSnapshot measured = CounterSnapshot.ZERO;
        LockStats stats = LockStats.ZERO;
        Map<Long, Long> opsByGroup = new TreeMap<>();
        Map<Long, LockStats> statsByGroup = new TreeMap<>();
        KindMeasures.Accumulator[] byKind = null;
        for (ClientWorker w : workers) {
            byKind = KindMeasures.Accumulator.merge(byKind, w.byKind);
            LockStats own = w.statsAtEnd.minus(w.statsAtStart);
            stats = stats.plus(own);
            acquire.add(w.acquireNanos);
            operation.add(w.operationNanos);
            release.add(w.releaseNanos);
            hottest.add(w.hottestAcquireNanos);
            ops += w.measuredOps;
            issuedReads += w.issuedReads;
            issuedWrites += w.issuedWrites;
            firstStart = Math.min(firstStart, w.measureStartNs);
            lastEnd = Math.max(lastEnd, w.measureEndNs);
            measured = measured.plus(w.countersAtEnd.minus(w.countersAtStart));
            long group = w.session().group();
            if (group != Session.NO_GROUP) {
                opsByGroup.merge(group, w.measuredOps, Long::sum);
                statsByGroup.merge(group, own, LockStats::plus);
            }
        }
        CounterSnapshot issued = issuedOps(issuedReads, issuedWrites);
        return new RunResult(trial.protocol(), fabric.name(), workload, ops, Math.max(0, lastEnd - firstStart),
                LatencySummary.of(acquire), LatencySummary.of(operation), LatencySummary.of(release),
                LatencySummary.of(hottest), OpsPerCycle.of(measured.minus(issued), ops), OpsPerCycle.of(issued, ops),
                stats, opsByGroup, statsByGroup, outcome.check(), crossCheck, outcome.faults(), outcome.nic(),
                outcome.end(), KindMeasures.Accumulator.summarize(byKind));
    }

    private static CounterSnapshot issuedOps(long reads, long writes) {
        long[] counts = new long[VerbKind.count()];
        counts[VerbKind.READ.ordinal()] = reads;
        counts[VerbKind.WRITE.ordinal()] = writes;
        return new CounterSnapshot(counts, new long[VerbKind.count()]);
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
