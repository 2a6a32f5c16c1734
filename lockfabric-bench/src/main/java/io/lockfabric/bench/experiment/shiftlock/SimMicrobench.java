package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.bench.experiment.ArtifactOptions;
import io.lockfabric.bench.experiment.ExperimentSettings;

import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.List;
import java.util.Locale;

/**
 * One run of the ShiftLock (FAST'25) §4.2 microbenchmark on the simulated testbed: clients on
 * {@code computeNodes} compute nodes acquire a lock drawn uniform or Zipf from {@code locks} and
 * release it at once (no critical section), a share {@code readRatio} of them shared. Default
 * simulator model, one memory node, a fresh cluster per run.
 *
 * @param options protocol options as {@code protocol.key=value} pairs, run with the artifacts'
 *                settings ({@link ArtifactOptions}) where these do not set them
 */
record SimMicrobench(String protocol, List<String> options, double readRatio, double zipf, long locks,
                     int computeNodes, int clientsPerComputeNode, long warmupNs, long durationNs) {
    /** ShiftLock §4.1: 5 compute nodes × 48 clients, 10 M locks. */
    static final int TESTBED_COMPUTE_NODES = 5;
    static final int TESTBED_CLIENTS_PER_CN = 48;
    static final long TESTBED_LOCKS = 10_000_000L;
    static final double ZIPF = 0.99;

    /**
     * {@code cas} starts with every client's backoff cap at its initial value and adapts it at most
     * once per 64 acquisitions of a client: it spends its first hundred-odd milliseconds collapsing
     * as {@code cas-nb} does (clients pile up on the hottest locks, where each waits long for its
     * turn, so adapts slowly) and needs this long to reach its steady state (at 150 ms a Zipf-0.99
     * WI run still collapses, at 300 ms and 1 s it runs at 5.1 and 4.6 Mops/s), where the paper's
     * 10 s runs spend nearly all their time.
     */
    static final long ADAPTIVE_BACKOFF_WARMUP_NS = 300_000_000L;

    SimMicrobench {
        options = List.copyOf(options);
    }

    /**
     * The testbed's 240 clients on 10 M locks; {@code cas} warms up for at least
     * {@link #ADAPTIVE_BACKOFF_WARMUP_NS}.
     */
    static SimMicrobench testbed(String protocol, double readRatio, double zipf, long warmupNs, long durationNs) {
        long warmup = "cas".equals(protocol) ? Math.max(warmupNs, ADAPTIVE_BACKOFF_WARMUP_NS) : warmupNs;
        return new SimMicrobench(protocol, List.of(), readRatio, zipf, TESTBED_LOCKS, TESTBED_COMPUTE_NODES,
                TESTBED_CLIENTS_PER_CN, warmup, durationNs);
    }

    SimMicrobench withOptions(List<String> pairs) {
        return new SimMicrobench(protocol, pairs, readRatio, zipf, locks, computeNodes, clientsPerComputeNode,
                warmupNs, durationNs);
    }

    SimMicrobench withLocks(long count) {
        return new SimMicrobench(protocol, options, readRatio, zipf, count, computeNodes, clientsPerComputeNode,
                warmupNs, durationNs);
    }

    /** {@code clients} spread evenly over the testbed's compute nodes (a multiple of their number). */
    SimMicrobench withClients(int clients) {
        if (clients % TESTBED_COMPUTE_NODES != 0) {
            throw new IllegalArgumentException(clients + " clients do not spread evenly over "
                    + TESTBED_COMPUTE_NODES + " compute nodes");
        }
        return new SimMicrobench(protocol, options, readRatio, zipf, locks, TESTBED_COMPUTE_NODES,
                clients / TESTBED_COMPUTE_NODES, warmupNs, durationNs);
    }

    int clients() {
        return computeNodes * clientsPerComputeNode;
    }

    /** Runs on a fresh simulated cluster seeded with {@code settings.seed()}, with its windows overridable. */
    RunResult run(ExperimentSettings settings) {
        return run(settings, 0);
    }

    /**
     * As {@link #run(ExperimentSettings)}, each client skipping its release with probability
     * {@code skipRelease} (ShiftLock's Figure 13 fault, {@link PointWorkload#skipRelease()}).
     */
    RunResult run(ExperimentSettings settings, double skipRelease) {
        SimConfig cluster = settings.onTestbed(OwnTestbeds.SHIFTLOCK, SimConfig.defaults().toBuilder()).computeNodes(computeNodes)
                .clientsPerComputeNode(clientsPerComputeNode).seed(settings.seed()).build();
        PointWorkload workload = PointWorkload.builder().clients(clients()).locks(locks).zipf(zipf)
                .readRatio(readRatio).cs(0).warmupNs(settings.warmupOr(warmupNs))
                .durationNs(settings.durationOr(durationNs)).seed(settings.seed())
                .options(ProtocolOptions.parse(ArtifactOptions.shiftLock(protocol, options))).skipRelease(skipRelease).build();
        try (SimFabric fabric = new SimFabric(cluster)) {
            return new Runner(new SimDriver(fabric), false, settings.progressOut()).run(LockProtocols.byName(protocol),
                    workload);
        }
    }

    /**
     * One line on what ran on the testbed: topology, locks, {@code workload}, options, windows (and
     * {@code cas}'s longer warmup), seed.
     */
    static String testbedSetup(ExperimentSettings settings, String workload, List<String> options, long warmupNs,
                                long durationNs) {
        long warmup = settings.warmupOr(warmupNs);
        return String.format(Locale.ROOT,
                settings.simModel(OwnTestbeds.SHIFTLOCK) + ", %d CNs x %d clients, %,d locks, %s, cs 0%s, %s; measured %.0f ms after %.0f ms "
                        + "(cas: %.0f ms, its backoff adapts); seed %d",
                TESTBED_COMPUTE_NODES, TESTBED_CLIENTS_PER_CN, TESTBED_LOCKS, workload,
                options.isEmpty() ? "" : ", options " + String.join(" ", options), ArtifactOptions.SETUP_NOTE,
                settings.durationOr(durationNs) / 1e6,
                warmup / 1e6, Math.max(warmup, ADAPTIVE_BACKOFF_WARMUP_NS) / 1e6, settings.seed());
    }

    /** {@code WO}, {@code WI}, {@code RI}, {@code RO} or the read share in percent. */
    static String workloadName(double readRatio) {
        if (readRatio == 0) {
            return "WO";
        } else if (readRatio == 0.5) {
            return "WI";
        } else if (readRatio == 0.95) {
            return "RI";
        } else if (readRatio == 1) {
            return "RO";
        }
        return String.format(Locale.ROOT, "%.0f%% reads", readRatio * 100);
    }

    /** {@code Zipf} or {@code Unif.}, as the paper labels the two lock distributions. */
    static String distributionName(double zipf) {
        return zipf == 0 ? "Unif." : "Zipf";
    }
}
