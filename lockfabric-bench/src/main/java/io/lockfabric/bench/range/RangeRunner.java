package io.lockfabric.bench.range;

import io.lockfabric.bench.BenchmarkFailedException;
import io.lockfabric.bench.LatencySummary;
import io.lockfabric.bench.OpCounterSlots;
import io.lockfabric.bench.OpsPerCycle;
import io.lockfabric.bench.ProgressDisplay;
import io.lockfabric.bench.ZipfGenerator;
import io.lockfabric.check.History;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Hold;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.sim.NicQueueing;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Runs the {@link RangeBenchConfig} workload of one range protocol on a fabric and measures it,
 * the range counterpart of {@link io.lockfabric.bench.Runner}: each client has its own endpoint and
 * range lock client (created on the caller's thread) and runs as a {@link ClientThread} from
 * {@link Fabric#spawn} (a platform thread on the local fabric, a simulated process in virtual time
 * on the sim fabric). Phase boundaries are fixed before the clients start; each client snapshots
 * its endpoint counters and {@link io.lockfabric.lock.LockStats} when it crosses into and out of
 * the measured phase. Every run records the whole history and
 * checks it with {@link RangeExclusionChecker}. On the simulator, clients not done by the end of the
 * measured phase plus a slack (or the simulator's time limit, for an operation-count run) are
 * reported as stuck violations. Each run uses a fresh table name unless the runner shares one
 * ({@link #withSharedTable}). Not thread-safe.
 */
public final class RangeRunner {
    /** Slack after the planned end of a simulated run before unfinished clients count as stuck. */
    static final long LIVENESS_SLACK_NS = 50_000_000L;

    private static final AtomicLong RUN_SEQUENCE = new AtomicLong();

    private final Fabric fabric;
    private final boolean showProgress;
    private final PrintStream progressOut;
    private final String sharedTable;

    /** A runner that shows progress on stderr when stderr is a terminal. */
    public RangeRunner(Fabric fabric) {
        this(fabric, ProgressDisplay.consoleIsTerminal(), System.err);
    }

    public RangeRunner(Fabric fabric, boolean showProgress, PrintStream progressOut) {
        this(fabric, showProgress, progressOut, null);
    }

    private RangeRunner(Fabric fabric, boolean showProgress, PrintStream progressOut, String sharedTable) {
        this.fabric = fabric;
        this.showProgress = showProgress;
        this.progressOut = progressOut;
        this.sharedTable = sharedTable;
    }

    /**
     * This runner, naming each run's range lock table {@code rbench-<protocol>-<name>} instead of
     * after this process and run: runners in several processes given the same name (and the same
     * N and options) contend for one range lock on one memory node (tcp). Range exclusion is still
     * checked, but among this process's holds only: the other processes' holds are not in its
     * history, so a clean check says less than on a table of its own.
     *
     * @throws IllegalArgumentException if {@code name} is not 1 to 64 letters, digits, '.', '_' or '-'
     */
    public RangeRunner withSharedTable(String name) {
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("a shared table name is 1 to 64 letters, digits, '.', '_' or '-', got '"
                    + name + "'");
        }
        return new RangeRunner(fabric, showProgress, progressOut, name);
    }

    /**
     * Runs {@code protocol} on {@code config}.
     *
     * @throws IllegalArgumentException if the options are invalid for the protocol
     * @throws BenchmarkFailedException if a client failed (the first failure is the cause)
     */
    public RangeRunResult run(RangeLockProtocol protocol, RangeBenchConfig config) {
        LockOptions options = config.optionsFor(protocol);
        // the process id keeps runs of several processes on one (tcp) memory node apart, unless they share
        String table = sharedTable != null ? "rbench-" + protocol.name() + "-" + sharedTable
                : "rbench-" + protocol.name() + "-" + ProcessHandle.current().pid() + "-" + RUN_SEQUENCE.incrementAndGet();
        History history = new History(fabric::observerNanoTime);
        Map<Long, ZipfGenerator> borders = new HashMap<>();
        for (long l : config.sizes()) {
            borders.put(l, new ZipfGenerator(config.units() - l + 1, config.zipf()));
        }
        SplittableRandom seeds = new SplittableRandom(config.seed());
        OpCounterSlots progress = new OpCounterSlots(config.clients());
        List<Endpoint> endpoints = new ArrayList<>();
        List<RangeLockClient> clients = new ArrayList<>();
        RangeWorker.Control control = null;
        try {
            for (int i = 0; i < config.clients(); i++) {
                Endpoint endpoint = fabric.newEndpoint();
                endpoints.add(endpoint);
                clients.add(protocol.open(endpoint, table, options));
            }
            long startNs = fabric.observerNanoTime();
            long measureAtNs = startNs + config.warmupNs();
            long endAtNs = config.byOperations() ? Long.MAX_VALUE : measureAtNs + config.durationNs();
            control = new RangeWorker.Control(measureAtNs, endAtNs);
            List<RangeWorker> workers = new ArrayList<>();
            for (int i = 0; i < config.clients(); i++) {
                long size = config.sizeOf(i);
                workers.add(new RangeWorker(i, endpoints.get(i), clients.get(i), history.recorder(i),
                        borders.get(size), size, seeds.split(), config, fabric::observerNanoTime, progress, control));
            }
            long plannedNs = config.byOperations() ? 0 : config.warmupNs() + config.durationNs();
            String label = protocol.name() + " L=" + config.sizeName();
            ProgressDisplay display = showProgress
                    ? ProgressDisplay.start(label, () -> fabric.observerNanoTime() - startNs, plannedNs,
                            progress::total, progressOut)
                    : ProgressDisplay.none();
            List<Violation> stuck = new ArrayList<>();
            NicQueueing[] queueing = new NicQueueing[1];
            try {
                List<ClientThread> threads = new ArrayList<>();
                for (int i = 0; i < workers.size(); i++) {
                    threads.add(fabric.spawn("rbench-" + protocol.name() + "-client-" + i, workers.get(i)));
                }
                if (fabric instanceof SimFabric sim) {
                    stuck = simulate(sim, config, startNs, threads, workers, queueing);
                } else {
                    threads.forEach(ClientThread::join);
                }
            } finally {
                display.close();
            }
            for (RangeWorker w : workers) {
                if (w.failure != null) {
                    throw new BenchmarkFailedException("range protocol " + protocol.name() + ": a client failed: "
                            + w.failure, w.failure);
                }
            }
            List<Hold> holds = history.holds();
            List<Violation> violations = new ArrayList<>(RangeExclusionChecker.violations(holds));
            violations.addAll(stuck);
            Map<Long, String> names = new HashMap<>();
            if (queueing[0] != null) {
                for (NicQueueing.Word w : queueing[0].words()) {
                    clients.get(0).describeAddress(w.address()).ifPresent(name -> names.put(w.address(), name));
                }
            }
            return summarize(protocol, config, workers, holds.size(), violations, queueing[0], names);
        } finally {
            if (control != null) {
                control.abort();
            }
            for (RangeLockClient c : clients) {
                c.close();
            }
            for (Endpoint e : endpoints) {
                e.close();
            }
        }
    }

    /**
     * Runs the simulation to the end; for a timed run, tracks the memory node's queueing over the
     * measured phase into {@code queueing[0]} (only observing: the run is the same).
     */
    private static List<Violation> simulate(SimFabric sim, RangeBenchConfig config, long startNs,
                                            List<ClientThread> threads, List<RangeWorker> workers,
                                            NicQueueing[] queueing) {
        long boundNs = config.byOperations() ? startNs + SimFabric.DEFAULT_TIME_LIMIT_NS
                : startNs + config.warmupNs() + config.durationNs() + LIVENESS_SLACK_NS;
        List<SimProcess> processes = threads.stream().map(SimProcess.class::cast).toList();
        BooleanSupplier finished = () -> processes.stream().allMatch(SimProcess::finished);
        if (!config.byOperations() && sim.memoryNodes() == 1) {
            if (!sim.runUntil(finished, startNs + config.warmupNs(), "range clients to finish warming up")) {
                sim.trackMemoryNodeQueueing(true);
                sim.runUntil(finished, startNs + config.warmupNs() + config.durationNs(), "range clients to finish");
                queueing[0] = sim.memoryNodeQueueing(0, RangeMechanism.TOP_WORDS);
                sim.trackMemoryNodeQueueing(false);
            }
        }
        sim.runUntil(finished, boundNs, "range clients to finish");
        long now = sim.observerNanoTime();
        List<Violation> stuck = new ArrayList<>();
        for (int i = 0; i < processes.size(); i++) {
            if (!processes.get(i).finished()) {
                workers.get(i).endFromOutside(now);
                stuck.add(new Violation.Stuck(i, workers.get(i).lastProgressNs, now));
            }
        }
        return stuck;
    }

    private RangeRunResult summarize(RangeLockProtocol protocol, RangeBenchConfig config, List<RangeWorker> workers,
                                     long holdsChecked, List<Violation> violations, NicQueueing nic,
                                     Map<Long, String> wordNames) {
        Histogram acquire = new Histogram(3);
        Histogram operation = new Histogram(3);
        long ops = 0;
        long firstStart = Long.MAX_VALUE;
        long lastEnd = Long.MIN_VALUE;
        CounterSnapshot measured = CounterSnapshot.ZERO;
        LockStats stats = LockStats.ZERO;
        Map<Long, LockStats> statsBySize = new TreeMap<>();
        Map<Long, Long> bySize = new TreeMap<>();
        for (RangeWorker w : workers) {
            acquire.add(w.acquireNanos);
            operation.add(w.operationNanos);
            ops += w.measuredOps;
            bySize.merge(w.size(), w.measuredOps, Long::sum);
            firstStart = Math.min(firstStart, w.measureStartNs);
            lastEnd = Math.max(lastEnd, w.measureEndNs);
            measured = measured.plus(w.countersAtEnd.minus(w.countersAtStart));
            LockStats own = w.statsAtEnd.minus(w.statsAtStart);
            stats = stats.plus(own);
            statsBySize.merge(w.size(), own, LockStats::plus);
        }
        return new RangeRunResult(protocol.name(), fabric.name(), config, ops, Math.max(0, lastEnd - firstStart),
                bySize, LatencySummary.of(acquire), LatencySummary.of(operation), OpsPerCycle.of(measured, ops),
                stats, holdsChecked, violations, new RangeMechanism(statsBySize, nic, wordNames));
    }
}
