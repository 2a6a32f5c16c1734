package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.bench.experiment.ArtifactOptions;
import io.lockfabric.bench.experiment.ExperimentSettings;

import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.check.Hold;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.LockStats;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.NicQueueing;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One run of the DecLock (paper §6.2) microbenchmark on the simulated testbed: clients on
 * {@code computeNodes} compute nodes each lock one of {@code locks} (Zipf {@code zipf}), shared with
 * probability {@code readRatio}, do {@code cs} remote operations on the lock's 8-byte object (READs
 * when shared, WRITEs when exclusive) and release. Default simulator model, one memory node, a fresh
 * cluster per run. The paper's defaults: 8 CNs × 32 clients, 100 000 locks, Zipf 0.99, 50% reads,
 * cs 1.
 *
 * @param options        protocol options as {@code protocol.key=value} pairs
 * @param cnLatencyRatio the CN-to-CN network's latency over the CN-to-MN one
 *                       ({@link SimConfig#cnLatencyRatio()}; 1: one switch, the paper's testbed)
 * @param locality       share of operations on a lock of the client's own compute node (the DecLock
 *                       artifact's {@code MICROBENCH_LOCALITY}; {@link PointWorkload#locality()}); 0 by default
 */
record DecLockMicrobench(String protocol, List<String> options, double readRatio, double zipf, long locks,
                         int computeNodes, int clientsPerComputeNode, int cs, long warmupNs, long durationNs,
                         double cnLatencyRatio, double locality) {
    static final int TESTBED_COMPUTE_NODES = 8;
    static final int TESTBED_CLIENTS_PER_CN = 32;
    static final long TESTBED_LOCKS = 100_000L;
    static final double ZIPF = 0.99;
    static final double READ_RATIO = 0.5;
    static final int CS = 1;
    /** Paper §6.2: cs ∈ {0, 1, 2, 4, 8, 16, 32} remote operations in the critical section. */
    static final int[] CS_SWEEP = {0, 1, 2, 4, 8, 16, 32};

    /** The paper's CASLock (a reader-writer CAS/FAA word), DSLR+, ShiftLock. */
    static final String CASLOCK = "cas-rw";
    static final String DSLR = "dslr";
    static final String SHIFTLOCK = "shiftlock";
    /** DecLock's flat CQL lock and its two hierarchical variants (branch {@code declock}). */
    static final String CQL = "cql";
    static final String DECLOCK_TF = "declock-tf";
    static final String DECLOCK_PF = "declock-pf";
    static final List<String> DECLOCKS = List.of(DECLOCK_TF, DECLOCK_PF, CQL);
    /** The hierarchical DecLock's option: compute nodes, which sizes its queue. */
    static final String CNS_OPTION = "cns";
    static final String TIMEOUT_OPTION = "timeout-ns";
    /**
     * The DecLock acquisition timeout in these runs. A timeout resets the lock, so it must exceed
     * the longest wait of a live FIFO queue: a waiter behind all 255 others on the hottest lock at
     * cs 32 (about 80 us a hold) waits some 20 ms, and with the protocol's 10 ms default the
     * hottest lock's waiters timed out and reset it. The paper does not give its timeout.
     */
    static final String DECLOCK_TIMEOUT = "50ms";

    DecLockMicrobench {
        options = List.copyOf(options);
    }

    /** The paper's default workload (cs 1) for {@code protocol}. */
    static DecLockMicrobench testbed(String protocol, long warmupNs, long durationNs) {
        return new DecLockMicrobench(protocol, List.of(), READ_RATIO, ZIPF, TESTBED_LOCKS, TESTBED_COMPUTE_NODES,
                TESTBED_CLIENTS_PER_CN, CS, warmupNs, durationNs, 1, 0);
    }

    /** True if {@code protocol} is registered in this build (the DecLock protocols may not be yet). */
    static boolean available(String protocol) {
        return LockProtocols.names().contains(protocol);
    }

    /** True if {@code protocol} is registered and reads option {@code option}. */
    static boolean hasOption(String protocol, String option) {
        return ArtifactOptions.hasOption(protocol, option);
    }

    /** The registered ones of {@code protocols}, in order. */
    static List<String> availableOf(List<String> protocols) {
        return protocols.stream().filter(DecLockMicrobench::available).toList();
    }

    /** The ones of {@code protocols} not registered, in order. */
    static List<String> missingOf(List<String> protocols) {
        return protocols.stream().filter(p -> !available(p)).toList();
    }

    DecLockMicrobench withOptions(List<String> pairs) {
        return new DecLockMicrobench(protocol, pairs, readRatio, zipf, locks, computeNodes, clientsPerComputeNode, cs,
                warmupNs, durationNs, cnLatencyRatio, locality);
    }

    DecLockMicrobench withClients(int cns, int perCn) {
        return new DecLockMicrobench(protocol, options, readRatio, zipf, locks, cns, perCn, cs, warmupNs, durationNs,
                cnLatencyRatio, locality);
    }

    DecLockMicrobench withCs(int value) {
        return new DecLockMicrobench(protocol, options, readRatio, zipf, locks, computeNodes, clientsPerComputeNode,
                value, warmupNs, durationNs, cnLatencyRatio, locality);
    }

    DecLockMicrobench withReadRatio(double value) {
        return new DecLockMicrobench(protocol, options, value, zipf, locks, computeNodes, clientsPerComputeNode, cs,
                warmupNs, durationNs, cnLatencyRatio, locality);
    }

    DecLockMicrobench withLocks(long value) {
        return new DecLockMicrobench(protocol, options, readRatio, zipf, value, computeNodes, clientsPerComputeNode, cs,
                warmupNs, durationNs, cnLatencyRatio, locality);
    }

    DecLockMicrobench withZipf(double value) {
        return new DecLockMicrobench(protocol, options, readRatio, value, locks, computeNodes, clientsPerComputeNode,
                cs, warmupNs, durationNs, cnLatencyRatio, locality);
    }

    /** On a network whose CN-to-CN latency is {@code ratio} times the CN-to-MN one (DecLock Fig. 18). */
    DecLockMicrobench withCnLatencyRatio(double ratio) {
        return new DecLockMicrobench(protocol, options, readRatio, zipf, locks, computeNodes, clientsPerComputeNode,
                cs, warmupNs, durationNs, ratio, locality);
    }

    /** With a share {@code value} of operations on the client's own compute node's locks (Fig. 12, locality). */
    DecLockMicrobench withLocality(double value) {
        return new DecLockMicrobench(protocol, options, readRatio, zipf, locks, computeNodes, clientsPerComputeNode,
                cs, warmupNs, durationNs, cnLatencyRatio, value);
    }

    int clients() {
        return computeNodes * clientsPerComputeNode;
    }

    /** Runs on a fresh simulated cluster seeded with {@code settings.seed()}, with its windows overridable. */
    RunResult run(ExperimentSettings settings) {
        return run(settings, c -> { });
    }

    /**
     * As {@link #run(ExperimentSettings)}, handing every lock client's statistics (whole run) to
     * {@code observer} after the run.
     */
    RunResult run(ExperimentSettings settings, Consumer<LockStats> observer) {
        return run(settings, observer, null);
    }

    /**
     * What a probed run saw beyond its {@link RunResult}: every hold (request, grant and release
     * start, observer time), and the memory node's NIC over the whole run (warmup included).
     */
    static final class Probe {
        final List<Hold> holds = new ArrayList<>();
        NicQueueing nic = new NicQueueing(0, 0, 0, 0, 0, List.of());
        int nicUnits;
        long elapsedNs;

        /** Share of the memory node's NIC processing time in use over the run. */
        double nicUtilization() {
            return nic.utilization(nicUnits, elapsedNs);
        }

        /** Mean queueing of a verb at the memory node's NIC (for a unit, then for its word), ns. */
        double nicWaitPerVerbNs() {
            return nic.unitWaitPerVerbNs() + nic.wordWaitPerVerbNs();
        }
    }

    /**
     * As {@link #run(ExperimentSettings, Consumer)}, also filling {@code probe} (if not null) with
     * the run's history and the memory node's NIC queueing; recording adds no verb, so the run is
     * the unprobed one.
     */
    RunResult run(ExperimentSettings settings, Consumer<LockStats> observer, Probe probe) {
        SimConfig.Builder clusterBuilder = settings.onTestbed(OwnTestbeds.DECLOCK, SimConfig.defaults().toBuilder())
                .computeNodes(computeNodes)
                .clientsPerComputeNode(clientsPerComputeNode).seed(settings.seed());
        if (cnLatencyRatio != 1) {
            clusterBuilder.cnLatencyRatio(cnLatencyRatio);
        }
        SimConfig cluster = clusterBuilder.build();
        PointWorkload.Builder workloadBuilder = PointWorkload.builder().clients(clients()).locks(locks).zipf(zipf)
                .readRatio(readRatio).cs(cs).warmupNs(settings.warmupOr(warmupNs))
                .durationNs(settings.durationOr(durationNs)).seed(settings.seed())
                .options(ProtocolOptions.parse(runOptions()));
        if (locality > 0) {
            workloadBuilder.locality(locality, computeNodes);
        }
        PointWorkload workload = workloadBuilder.build();
        try (SimFabric fabric = new SimFabric(cluster)) {
            Runner runner = new Runner(new SimDriver(fabric), false, settings.progressOut())
                    .withStatsObserver(observer);
            if (probe == null) {
                return runner.run(LockProtocols.byName(protocol), workload);
            }
            long startNs = fabric.observerNanoTime();
            fabric.trackMemoryNodeQueueing(true);
            RunResult r = runner.withHoldObserver(probe.holds::addAll).run(LockProtocols.byName(protocol), workload);
            probe.nic = fabric.memoryNodeQueueing(0, 0);
            probe.nicUnits = cluster.nicUnits();
            probe.elapsedNs = fabric.observerNanoTime() - startNs;
            return r;
        }
    }

    /**
     * The options the run uses: these, plus unless set {@code protocol.cns=computeNodes} for a
     * protocol that sizes its queue by the compute nodes (the hierarchical DecLock: the table
     * cannot learn the topology), {@code protocol.timeout-ns=}{@value #DECLOCK_TIMEOUT} for the
     * DecLock protocols (see {@link #DECLOCK_TIMEOUT}), and the artifacts' settings
     * ({@link ArtifactOptions}).
     */
    List<String> runOptions() {
        List<String> out = new ArrayList<>(options);
        if (hasOption(protocol, CNS_OPTION)) {
            ArtifactOptions.addUnlessSet(out, protocol, CNS_OPTION, Integer.toString(computeNodes));
        }
        if (DECLOCKS.contains(protocol) && hasOption(protocol, TIMEOUT_OPTION)) {
            ArtifactOptions.addUnlessSet(out, protocol, TIMEOUT_OPTION, DECLOCK_TIMEOUT);
        }
        return ArtifactOptions.decLock(protocol, out);
    }

    /** One line on the testbed: topology, locks, distribution, reads, windows, seed, plus {@code extra}. */
    static String setup(ExperimentSettings settings, String extra, long warmupNs, long durationNs) {
        return String.format(Locale.ROOT,
                settings.simModel(OwnTestbeds.DECLOCK) + ", %d CNs x %d clients, %,d locks, Zipf %.2f, %.0f%% reads, %s; DecLock timeout-ns=%s, "
                        + "declock cns = the run's CNs, %s; measured %.0f ms after %.0f ms; seed %d",
                TESTBED_COMPUTE_NODES, TESTBED_CLIENTS_PER_CN, TESTBED_LOCKS, ZIPF, READ_RATIO * 100, extra,
                DECLOCK_TIMEOUT, ArtifactOptions.DECLOCK_SETUP_NOTE,
                settings.durationOr(durationNs) / 1e6, settings.warmupOr(warmupNs) / 1e6, settings.seed());
    }

    /**
     * The CQL lock's refetch READs per release (paper §6.4, Fig. 15 left): every release READs the
     * queue once, batched with its FAA; every further READ re-fetches an entry not yet written, or
     * (rarely: once per client and member it had not seen, mostly in the warmup) reads the member
     * list to learn whom to notify. Only meaningful for {@code cql} (the hierarchical variants also prefetch the queue to learn the
     * earliest remote timestamp).
     */
    static double refetchesPerRelease(RunResult r) {
        return r.lockOpsPerCycle().get(VerbKind.READ) - 1;
    }

    /** Retries per measured operation (the protocol's own count). */
    static double retriesPerOp(RunResult r) {
        return r.measuredOps() == 0 ? 0 : (double) r.retries() / r.measuredOps();
    }

    /** Clients that never finished their last operation (starved past the run's liveness bound). */
    static int stuckClients(RunResult r) {
        return r.faults().stuckClients().size();
    }

    static String mops(RunResult r) {
        return String.format(Locale.ROOT, "%.3f", r.goodput() / 1e6);
    }

    static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static String f3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** {@code "missing: a, b (not registered in this build)"}, or empty when none is. */
    static String missingNote(List<String> protocols) {
        List<String> missing = new ArrayList<>(missingOf(protocols));
        return missing.isEmpty() ? "" : "Not run, not registered in this build: " + String.join(", ", missing) + ". ";
    }
}
