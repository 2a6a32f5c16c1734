package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;

import io.lockfabric.bench.Runner;
import io.lockfabric.bench.experiment.shiftlock.IdealCasOracle;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.TruncatedExponentialBackoff;
import io.lockfabric.protocols.LockProtocols;
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
 * the memory node's NIC over the measured window exactly, so clients still finishing their last
 * operation do not blur them: acquisitions are the release CAS received, and the share of retries
 * is (masked CAS received − acquisitions) / (all CAS received), as the artifact reads it off the
 * NIC's atomic-request counter, which counts the release CAS too.
 *
 * <p>{@code cas} is measured as the artifact measures it: over a whole 10 s run from the start.
 * Its backoff cap starts at the initial backoff and doubles at most once per 64 completed
 * acquisitions of a client ({@link TruncatedExponentialBackoff}); on one lock shared by 240
 * clients that takes seconds, during which the clients retry almost as {@code cas-nb} does. The
 * run's average mixes that storm with the steady state after it. The other two cases have no
 * transient worth the name and are measured over 50 ms after 5 ms.
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

    private static final int PROFILE_BINS = 10;
    private static final Case BACKOFF = new Case("cas (SMART backoff)", f -> LockProtocols.byName("cas"), 141.4, 87.1,
            0L, 10_000_000_000L);
    private static final List<Case> CASES = List.of(
            new Case("ideal (no retries)", IdealCasOracle::new, 278.3, 0, 5_000_000L, 50_000_000L),
            new Case("cas-nb (retry at once)", f -> LockProtocols.byName("cas-nb"), 15.5, 99.4, 5_000_000L,
                    50_000_000L),
            BACKOFF);

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
        return testbed(ExperimentSettings.defaults().withSeed(seed));
    }

    /** The simulated testbed of {@code settings}: the §4.1 topology on the testbed the cases run on. */
    static SimConfig testbed(ExperimentSettings settings) {
        return settings.onTestbed(OwnTestbeds.SHIFTLOCK, SimConfig.defaults().toBuilder()).computeNodes(COMPUTE_NODES)
                .clientsPerComputeNode(CLIENTS_PER_COMPUTE_NODE).seed(settings.seed()).build();
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        List<ExperimentRow> rows = new ArrayList<>();
        List<String> windows = new ArrayList<>();
        ExperimentTable profile = null;
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
            if (c == BACKOFF) {
                profile = profile(c, m);
            }
            windows.add(String.format(Locale.ROOT, "%s %s after %s", c.label().split(" ")[0], millis(duration),
                    millis(warmup)));
        }
        String setup = String.format(Locale.ROOT,
                settings.simModel(OwnTestbeds.SHIFTLOCK) + ", %d CNs x %d clients, 1 lock, cs 0; measured %s; seed %d", COMPUTE_NODES,
                CLIENTS_PER_COMPUTE_NODE, String.join(", ", windows), settings.seed());
        List<ExperimentTable> tables = profile == null ? List.of() : List.of(profile);
        return new ExperimentResult(NAME, reference(), description(), setup, tables, rows, DISCUSSION,
                System.nanoTime() - wallStart);
    }

    private static final String DISCUSSION = """
            The cas case is averaged over all of its 10 s, as the artifact measures it (goodput = \
            acquisitions / run time; retries from the NIC's atomic counter, release CAS included). \
            The profile shows why that average depends on the run's length: for seconds the clients \
            retry almost as cas-nb does while their backoff caps climb (at most one doubling per 64 \
            acquisitions of a client, and 64 acquisitions of one lock shared by 240 clients take about \
            a second); then the sim settles above the ideal oracle, because a CAS already on its way \
            lands right after a release. Had the testbed's storm lasted as long as the sim's, its \
            steady state would lie below its ideal: under load its holder keeps the lock longer than \
            the sim's, which pays only a reply and a release crossing the network. The model has no \
            mechanism for that, so the 10 s average lands above the band. The paper gives neither the \
            run's length (its artifact's scripts use 10 s) nor how long its storm lasted; the last \
            column shows what shorter runs of the sim would report.""";


    private static ExperimentTable profile(Case c, Measured m) {
        ExperimentTable.Builder t = new ExperimentTable.Builder(c.label() + " over its run", "from", "to",
                "goodput Kops/s", "retries among CAS received %", "goodput of a run ending here Kops/s");
        double acquisitions = 0; // Kops/s x ns, summed over the bins so far
        for (Measured.Bin b : m.bins()) {
            acquisitions += b.goodputKops() * (b.toNs() - b.fromNs());
            t.row(span(b.fromNs()), span(b.toNs()), String.format(Locale.ROOT, "%.1f", b.goodputKops()),
                    String.format(Locale.ROOT, "%.1f", b.retryPercent()),
                    String.format(Locale.ROOT, "%.1f", acquisitions / b.toNs()));
        }
        return t.build();
    }

    /**
     * A case's goodput and share of retried CAS over its measured window, counted by the memory
     * node's NIC, and the same over each tenth of the window.
     */
    private record Measured(double goodputKops, double retryPercent, List<Bin> bins) {
        record Bin(long fromNs, long toNs, double goodputKops, double retryPercent) {
        }

        static Bin of(CounterSnapshot from, CounterSnapshot to, long fromNs, long toNs) {
            CounterSnapshot window = to.minus(from);
            long acquisitions = window.ops(VerbKind.CAS); // one release CAS each
            long attempts = window.ops(VerbKind.MCAS);
            long received = attempts + acquisitions;
            double goodput = acquisitions * NANOS_PER_SECOND / (toNs - fromNs) / KOPS;
            double retries = received == 0 ? 0 : Math.max(0, attempts - acquisitions) * PERCENT / received;
            return new Bin(fromNs, toNs, goodput, retries);
        }
    }

    private Measured measure(Case c, ExperimentSettings settings, long warmupNs, long durationNs) {
        SimConfig testbed = testbed(settings);
        PointWorkload workload = PointWorkload.builder().clients(testbed.clients()).locks(1).zipf(0)
                .readRatio(0).cs(0).warmupNs(warmupNs).durationNs(durationNs).seed(settings.seed()).build();
        try (SimFabric fabric = new SimFabric(testbed)) {
            CounterSnapshot[] at = new CounterSnapshot[PROFILE_BINS + 1];
            long start = fabric.simulation().now() + warmupNs;
            for (int k = 0; k <= PROFILE_BINS; k++) {
                int bin = k;
                fabric.simulation().schedule(start + durationNs * k / PROFILE_BINS,
                        () -> at[bin] = fabric.memoryNodeCounters(0));
            }
            new Runner(new SimDriver(fabric), settings.showProgress(), settings.progressOut())
                    .run(c.protocol().apply(fabric), workload);
            if (at[PROFILE_BINS] == null) { // every client ended exactly at the window's end, before its snapshot
                at[PROFILE_BINS] = fabric.memoryNodeCounters(0);
            }
            List<Measured.Bin> bins = new ArrayList<>();
            for (int k = 0; k < PROFILE_BINS; k++) {
                bins.add(Measured.of(at[k], at[k + 1], durationNs * k / PROFILE_BINS,
                        durationNs * (k + 1) / PROFILE_BINS));
            }
            Measured.Bin whole = Measured.of(at[0], at[PROFILE_BINS], 0, durationNs);
            return new Measured(whole.goodputKops(), whole.retryPercent(), bins);
        }
    }

    /** A point of the profile: whole seconds as seconds, else milliseconds to a tenth. */
    private static String span(long ns) {
        if (ns == 0) {
            return "0 ms";
        }
        return ns % 1_000_000_000L == 0 ? ns / 1_000_000_000L + " s" : String.format(Locale.ROOT, "%.1f ms", ns / 1e6);
    }

    private static String millis(long ns) {
        return String.format(Locale.ROOT, "%.0f ms", ns / 1e6);
    }
}
