package io.lockfabric.bench.experiment;

import io.lockfabric.bench.MicroBenchConfig;
import io.lockfabric.bench.Runner;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockProtocols;
import io.lockfabric.sim.IdealCasOracle;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * {@code shiftlock-2.3}: the retry experiment of ShiftLock (FAST'25) §2.3, the calibration target
 * of the simulator's defaults ({@link SimConfig}). On the §4.1 testbed (one memory node, 5 compute
 * nodes × 48 clients, ConnectX-5), 240 clients contend for one CAS lock, each acquiring it and
 * releasing it at once, in three cases:
 * <ul>
 *   <li>ideal, no retries: {@link IdealCasOracle} (waiters woken exactly when the lock is free, so
 *       no CAS fails): 278.3 Kops/s;</li>
 *   <li>{@code cas-nb}, a failed CAS retried at once: 15.5 Kops/s, 99.4% of the CAS received by the
 *       memory node being retries;</li>
 *   <li>{@code cas}, SMART's truncated exponential backoff: 141.4 Kops/s, 87.1% retries.</li>
 * </ul>
 * Each case runs on a fresh simulated cluster with the default {@link SimConfig} (topology set to
 * the testbed's) through the {@link Runner}. Goodput and the share of retried CAS are counted on
 * the memory node's NIC over the measured window exactly (releases, one WRITE per acquisition, and
 * masked CAS received), so clients still finishing their last operation do not blur them. Each
 * case's warmup covers its start-up transient: {@code cas} starts with every backoff at its initial
 * value and spends its first tens of milliseconds retrying almost as {@code cas-nb} does, until the
 * backoff has adapted.
 *
 * <p>Bands: ±25% on goodput, ±5 percentage points on the share of retries.
 */
public final class ShiftLockRetryExperiment implements Experiment {
    public static final String NAME = "shiftlock-2.3";
    public static final int COMPUTE_NODES = 5;
    public static final int CLIENTS_PER_COMPUTE_NODE = 48;
    static final Band GOODPUT_BAND = Band.relative(0.25);
    static final Band RETRY_SHARE_BAND = Band.absolute(5);
    private static final double KOPS = 1e3;
    private static final double PERCENT = 100;
    private static final double NANOS_PER_SECOND = 1e9;

    /** One configuration of the experiment and the paper's numbers for it. */
    private record Case(String label, Function<SimFabric, LockProtocol> protocol, double paperGoodputKops,
                        double paperRetryPercent, long warmupNs, long durationNs) {
    }

    private static final List<Case> CASES = List.of(
            new Case("ideal (no retries)", IdealCasOracle::new, 278.3, 0, 5_000_000L, 50_000_000L),
            new Case("cas-nb (retry at once)", f -> LockProtocols.byName("cas-nb"), 15.5, 99.4, 5_000_000L,
                    50_000_000L),
            new Case("cas (SMART backoff)", f -> LockProtocols.byName("cas"), 141.4, 87.1, 150_000_000L,
                    100_000_000L));

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "ShiftLock (FAST'25) §2.3";
    }

    @Override
    public String description() {
        return "240 clients (5 CNs x 48) on one CAS lock, acquire then release at once: goodput and share of "
                + "retried CAS, ideal vs cas-nb vs cas with SMART backoff";
    }

    /** The simulated testbed: the default model with the §4.1 topology. */
    public static SimConfig testbed(long seed) {
        return SimConfig.defaults().toBuilder().computeNodes(COMPUTE_NODES)
                .clientsPerComputeNode(CLIENTS_PER_COMPUTE_NODE).seed(seed).build();
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        List<ExperimentRow> rows = new ArrayList<>();
        List<String> windows = new ArrayList<>();
        for (int i = 0; i < CASES.size(); i++) {
            Case c = CASES.get(i);
            long warmup = settings.warmupOr(c.warmupNs());
            long duration = settings.durationOr(c.durationNs());
            if (settings.showProgress()) {
                settings.progressOut().printf("[%d/%d] %s%n", i + 1, CASES.size(), c.label());
            }
            Measured m = measure(c, settings, warmup, duration);
            rows.add(new ExperimentRow(c.label(), "goodput", c.paperGoodputKops(), m.goodputKops(), "Kops/s",
                    GOODPUT_BAND));
            rows.add(new ExperimentRow(c.label(), "retries among CAS received", c.paperRetryPercent(), m.retryPercent(),
                    "%", RETRY_SHARE_BAND));
            windows.add(String.format(Locale.ROOT, "%s %s after %s", c.label().split(" ")[0], millis(duration),
                    millis(warmup)));
        }
        String setup = String.format(Locale.ROOT,
                "sim defaults, %d CNs x %d clients, 1 lock, cs 0; measured %s; seed %d", COMPUTE_NODES,
                CLIENTS_PER_COMPUTE_NODE, String.join(", ", windows), settings.seed());
        return new ExperimentResult(NAME, reference(), description(), setup, rows, System.nanoTime() - wallStart);
    }

    /** A case's goodput and share of retried CAS over its measured window, counted by the memory node's NIC. */
    private record Measured(double goodputKops, double retryPercent) {
    }

    private Measured measure(Case c, ExperimentSettings settings, long warmupNs, long durationNs) {
        SimConfig testbed = testbed(settings.seed());
        MicroBenchConfig workload = MicroBenchConfig.builder().clients(testbed.clients()).locks(1).zipf(0)
                .readRatio(0).cs(0).warmupNs(warmupNs).durationNs(durationNs).seed(settings.seed()).build();
        try (SimFabric fabric = new SimFabric(testbed)) {
            CounterSnapshot[] at = new CounterSnapshot[2];
            long start = fabric.simulation().now();
            fabric.simulation().schedule(start + warmupNs, () -> at[0] = fabric.memoryNodeCounters(0));
            fabric.simulation().schedule(start + warmupNs + durationNs, () -> at[1] = fabric.memoryNodeCounters(0));
            new Runner(fabric, settings.showProgress(), settings.progressOut())
                    .run(c.protocol().apply(fabric), workload);
            if (at[1] == null) { // every client ended exactly at the window's end, before its snapshot
                at[1] = fabric.memoryNodeCounters(0);
            }
            CounterSnapshot window = at[1].minus(at[0]);
            long acquisitions = window.ops(VerbKind.WRITE);
            long cas = window.ops(VerbKind.MCAS);
            double goodput = acquisitions * NANOS_PER_SECOND / durationNs / KOPS;
            double retries = cas == 0 ? 0 : Math.max(0, cas - acquisitions) * PERCENT / cas;
            return new Measured(goodput, retries);
        }
    }

    private static String millis(long ns) {
        return String.format(Locale.ROOT, "%.0f ms", ns / 1e6);
    }
}
