package io.lockfabric.bench;

import io.lockfabric.check.GuardedCounters;
import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.MutualExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockStats;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the {@link MicroBenchConfig} workload of one protocol on a fabric and measures it.
 *
 * <p>Each of the N clients is a platform thread with its own {@link Endpoint} and
 * {@link LockClient}, both created on the caller's thread and handed over at thread start. The
 * clients start together, run the warmup, and each one snapshots its endpoint's counters when it
 * crosses into the measured phase and again when it leaves it; latencies go to per-thread
 * histograms merged after the run, so nothing is shared on the hot path. The measured phase runs
 * from the first client's crossing to the last client's exit.
 *
 * <p>{@code ops_per_cycle} is the endpoint counters' delta minus what the runner itself issued in
 * critical sections (data READs / WRITEs and the guarded counter's READ + WRITE), which is
 * reported apart. Every run uses fresh table names, so runs on one fabric do not interfere.
 * Whole-run client counts are cross-checked against the memory nodes' own counts.
 *
 * <p>Not thread-safe: one run at a time per runner (and per fabric, for the cross-check).
 */
public final class Runner {
    /** Size of the data object next to each lock that the critical section reads or writes. */
    public static final int DATA_OBJECT_BYTES = 8;
    static final String DATA_TABLE_PROTOCOL = "bench-data";

    private static final AtomicLong RUN_SEQUENCE = new AtomicLong();

    private final Fabric fabric;
    private final boolean showProgress;
    private final PrintStream progressOut;

    /** A runner that shows progress on stderr when stderr is a terminal. */
    public Runner(Fabric fabric) {
        this(fabric, ProgressDisplay.consoleIsTerminal(), System.err);
    }

    public Runner(Fabric fabric, boolean showProgress, PrintStream progressOut) {
        this.fabric = fabric;
        this.showProgress = showProgress;
        this.progressOut = progressOut;
    }

    /** Start gate and abort flag shared by the clients of one run. */
    static final class RunControl {
        private final CountDownLatch go = new CountDownLatch(1);
        private volatile ClientWorker.Schedule schedule;
        private volatile boolean aborted;

        void release(ClientWorker.Schedule s) {
            schedule = s;
            go.countDown();
        }

        ClientWorker.Schedule awaitStart() throws InterruptedException {
            go.await();
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
        LockOptions options = config.options().forProtocol(protocol);
        String table = "bench-" + protocol.name() + "-" + RUN_SEQUENCE.incrementAndGet();
        TableSpec dataSpec = new TableSpec(table + "-data", DATA_TABLE_PROTOCOL, config.locks(),
                config.locks() * DATA_OBJECT_BYTES);
        TableSpec guardSpec = GuardedCounters.tableSpec(table + "-guard", config.locks());
        History history = config.check() ? new History(fabric::observerNanoTime) : null;
        ZipfGenerator zipf = new ZipfGenerator(config.locks(), config.zipf());
        SplittableRandom seeds = new SplittableRandom(config.seed());
        OpCounterSlots progress = new OpCounterSlots(config.clients());
        RunControl control = new RunControl();

        List<Endpoint> endpoints = new ArrayList<>();
        List<LockClient> clients = new ArrayList<>();
        List<ClientWorker> workers = new ArrayList<>();
        Table guard = null;
        try {
            for (int i = 0; i < config.clients(); i++) {
                Endpoint endpoint = fabric.newEndpoint();
                endpoints.add(endpoint);
                LockClient client = protocol.open(endpoint, table, config.locks(), options);
                clients.add(client);
                Table data = endpoint.openTable(dataSpec);
                guard = config.check() ? endpoint.openTable(guardSpec) : null;
                workers.add(new ClientWorker(i, endpoint, client, data, guard,
                        history == null ? null : history.recorder(i), zipf, seeds.split(), config,
                        fabric::observerNanoTime, progress, control));
            }
            CounterSnapshot sentBefore = sentBy(endpoints);
            CounterSnapshot servedBefore = servedByMemoryNodes();

            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < workers.size(); i++) {
                Thread t = new Thread(workers.get(i), "bench-" + protocol.name() + "-client-" + i);
                t.start();
                threads.add(t);
            }
            long startNs = fabric.observerNanoTime();
            long measureAtNs = startNs + config.warmupNs();
            long endAtNs = config.byOperations() ? Long.MAX_VALUE : measureAtNs + config.durationNs();
            long plannedNs = config.byOperations() ? 0 : config.warmupNs() + config.durationNs();
            ProgressDisplay display = showProgress
                    ? ProgressDisplay.start(protocol.name(), () -> fabric.observerNanoTime() - startNs, plannedNs,
                            progress::total, progressOut)
                    : ProgressDisplay.none();
            try {
                control.release(new ClientWorker.Schedule(measureAtNs, endAtNs));
                joinAll(threads, control);
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
            CheckResult check = history == null ? CheckResult.DISABLED : check(protocol, history, guard);
            return summarize(protocol, config, workers, check, crossCheck);
        } finally {
            control.abort();
            for (LockClient c : clients) {
                c.close();
            }
            for (Endpoint e : endpoints) {
                e.close();
            }
        }
    }

    private RunResult summarize(LockProtocol protocol, MicroBenchConfig config, List<ClientWorker> workers,
                                CheckResult check, CounterCrossCheck crossCheck) {
        Histogram acquire = new Histogram(3);
        Histogram operation = new Histogram(3);
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
                stats.retries(), stats.aborts(), stats.resets(), check, crossCheck);
    }

    private static CounterSnapshot runnerOps(long reads, long writes) {
        long[] counts = new long[VerbKind.count()];
        counts[VerbKind.READ.ordinal()] = reads;
        counts[VerbKind.WRITE.ordinal()] = writes;
        return new CounterSnapshot(counts, new long[VerbKind.count()]);
    }

    private CheckResult check(LockProtocol protocol, History history, Table guard) {
        List<Hold> holds = history.holds();
        List<Violation> violations = new ArrayList<>(MutualExclusionChecker.overlaps(holds));
        if (protocol.strictFencing()) {
            violations.addAll(MutualExclusionChecker.fencing(holds));
        }
        Map<Long, Long> expected = MutualExclusionChecker.exclusiveGrantsPerLock(holds);
        try (Endpoint verifier = fabric.newEndpoint()) {
            violations.addAll(GuardedCounters.verify(verifier.queuePair(guard.memoryNode()), guard, expected));
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

    private static void joinAll(List<Thread> threads, RunControl control) {
        boolean interrupted = false;
        for (Thread t : threads) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                    control.abort();
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
