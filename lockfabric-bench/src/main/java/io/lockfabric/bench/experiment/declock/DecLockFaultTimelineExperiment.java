package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Figure;
import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.check.Hold;
import io.lockfabric.fabric.Durations;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code declock-fig16-timeline}: DecLock §6.6 "Fault Tolerance", Figure 16 (right): the lock
 * throughput over time while one compute node and then the memory node fail, under low contention
 * (one client on each of 8 CNs) and high contention (16 clients on each), the microbenchmark's
 * workload (100 000 locks, Zipf 0.99, 50% reads, cs 1) on {@code declock-tf}.
 *
 * <p>The faults are the simulator's ({@link FaultPlan}): {@code cn-crash@T1:7} stops every client of
 * compute node 7 at once, holding what they hold (the CQL recovers from it by its timeout and reset,
 * §4.4); {@code mn-restart@T2:LEN:0} takes the lock tables' memory node away for LEN with its memory
 * lost, after which every client reconnects, waits a lease for the holders of the lost generation and
 * starts over on the zeroed locks (Appendix B; see {@code CqlEngine}). The critical sections' data
 * lives on a second memory node, which does not fail, so the checker's guarded counters stay
 * meaningful across the restart. Every run is checked (mutual exclusion and fencing across both
 * faults).
 *
 * <p>The timeline is goodput per bin of virtual time: the releases (completed operations) that fall
 * in each bin, from the run's history; time runs from the start of the run, warmup included.
 *
 * <p>The paper gives no numbers on the figure's axes in its text; it says: low contention, "the lock
 * throughput quickly stabilizes at around 88% of the original throughput after 1 CN fails"; high
 * contention, "the throughput remains unchanged after the failure"; "When the MN fails, all
 * operations pause and the lock throughput drops to 0 ops until the MN recovers." Those three are
 * the rows compared; the paper's dashed series are those levels applied to our own pre-crash level
 * (the paper's own absolute values are read off nothing: its plot is not in the text we have).
 */
public final class DecLockFaultTimelineExperiment implements Experiment {
    public static final String NAME = "declock-fig16-timeline";
    static final String PROTOCOL = DecLockMicrobench.DECLOCK_TF;
    static final String TABLE = "goodput over time (Figure 16 right)";
    static final String LEVELS = "levels by phase";
    static final double PAPER_LOW_KEPT = 0.88;
    static final double PAPER_HIGH_KEPT = 1.0;
    static final double PAPER_OUTAGE = 0.0;
    private static final Band KEPT_BAND = Band.absolute(0.1);

    /**
     * The scenario: topology, workload size, fault times (after the run's start) and the protocol's
     * timeout and lease (the lease is how long the clients wait for the lost generation's holders).
     */
    record Scenario(int computeNodes, int lowPerCn, int highPerCn, long locks, long warmupNs, long durationNs,
                    long binNs, long cnCrashNs, long mnFailNs, long mnOutageNs, String timeout, String lease,
                    long settleNs) {
        /** The paper's testbed, on a timeline of 40 ms. */
        static final Scenario TESTBED = new Scenario(8, 1, 16, DecLockMicrobench.TESTBED_LOCKS, 2_000_000L,
                38_000_000L, 1_000_000L, 12_000_000L, 24_000_000L, 4_000_000L, "2ms", "4ms", 3_000_000L);

        int crashedCn() {
            return computeNodes - 1;
        }

        FaultPlan faults() {
            return FaultPlan.parse("cn-crash@" + Durations.format(cnCrashNs) + ":" + crashedCn() + ",mn-restart@"
                    + Durations.format(mnFailNs) + ":" + Durations.format(mnOutageNs) + ":0");
        }

        long endNs() {
            return warmupNs + durationNs;
        }
    }

    /** One configuration's run: its result and goodput per bin (Mops/s) from the run's start. */
    record Timeline(String label, RunResult result, double[] mops) {
        /**
         * Median goodput over bins [fromNs, toNs) of the timeline: the level it stabilizes at, the
         * dip of a recovery aside.
         */
        double median(long fromNs, long toNs, long binNs) {
            int a = (int) (fromNs / binNs);
            int b = (int) Math.min(mops.length, toNs / binNs);
            if (b <= a) {
                return 0;
            }
            double[] sorted = java.util.Arrays.copyOfRange(mops, a, b);
            java.util.Arrays.sort(sorted);
            return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                    : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        }

        /** Mean goodput over bins [fromNs, toNs) of the timeline. */
        double mean(long fromNs, long toNs, long binNs) {
            int a = (int) (fromNs / binNs);
            int b = (int) Math.min(mops.length, toNs / binNs);
            double sum = 0;
            for (int i = a; i < b; i++) {
                sum += mops[i];
            }
            return b > a ? sum / (b - a) : 0;
        }
    }

    private final Scenario scenario;

    public DecLockFaultTimelineExperiment() {
        this(Scenario.TESTBED);
    }

    DecLockFaultTimelineExperiment(Scenario scenario) {
        this.scenario = scenario;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "DecLock §6.6, Figure 16 (right)";
    }

    @Override
    public String description() {
        return "goodput timeline of " + PROTOCOL + " through a compute-node crash and a memory-node restart (reset of "
                + "every lock), low (" + scenario.computeNodes + "x" + scenario.lowPerCn + ") and high ("
                + scenario.computeNodes + "x" + scenario.highPerCn + ") contention";
    }

    @Override
    public List<Figure> figures() {
        return List.of(Figure.of("timeline", "DecLock Fig. 16 (right): goodput through a CN and an MN failure", TABLE)
                .xInRows("time (ms)").y("goodput (Mops/s)").series("low Mops/s", "high Mops/s").lines()
                .paper(Figure.PaperSeries.fromTable("low", "low, paper's levels", 0))
                .paper(Figure.PaperSeries.fromTable("high", "high, paper's levels", 0)).build());
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        Scenario s = scenario;
        String setup = String.format(Locale.ROOT, settings.simModel(OwnTestbeds.DECLOCK)
                        + " + a second memory node for the data, %d CNs x %d "
                        + "(low) or x %d (high) clients, %,d locks, Zipf %.2f, %.0f%% reads, cs 1, %s timeout-ns=%s "
                        + "lease-ns=%s cns=%d; faults %s (after the run's start); %.0f ms after %.0f ms warmup, bins of "
                        + "%s; seed %d", s.computeNodes, s.lowPerCn, s.highPerCn, s.locks, DecLockMicrobench.ZIPF,
                DecLockMicrobench.READ_RATIO * 100, PROTOCOL, s.timeout, s.lease, s.computeNodes, s.faults().spec(),
                s.durationNs / 1e6, s.warmupNs / 1e6, Durations.format(s.binNs), settings.seed());
        if (!DecLockMicrobench.available(PROTOCOL)) {
            return new ExperimentResult(NAME, reference(), description(), setup, List.of(), List.of(),
                    "Not run: " + PROTOCOL + " is not registered in this build; no number is reported.",
                    System.nanoTime() - wallStart);
        }
        settings.progress(1, 2, "low contention");
        Timeline low = timeline(settings, "low", s.lowPerCn);
        settings.progress(2, 2, "high contention");
        Timeline high = timeline(settings, "high", s.highPerCn);

        double lowPre = low.median(s.warmupNs, s.cnCrashNs, s.binNs);
        double highPre = high.median(s.warmupNs, s.cnCrashNs, s.binNs);
        ExperimentTable.Builder t = new ExperimentTable.Builder(TABLE, "time (ms)", "low Mops/s", "high Mops/s",
                "low, paper's levels", "high, paper's levels");
        for (int i = 0; i < low.mops.length; i++) {
            long at = i * s.binNs;
            t.row(DecLockMicrobench.f1((at + s.binNs / 2.0) / 1e6), DecLockMicrobench.f3(low.mops[i]),
                    DecLockMicrobench.f3(high.mops[i]), paperLevel(at, lowPre, PAPER_LOW_KEPT),
                    paperLevel(at, highPre, PAPER_HIGH_KEPT));
        }
        Levels lowLevels = levels(low);
        Levels highLevels = levels(high);
        ExperimentTable.Builder l = new ExperimentTable.Builder(LEVELS + " (Mops/s: median of the bins in each "
                + "phase, mean while the MN is down)",
                "contention", "before the CN crash", "after the CN crash", "MN down", "after the MN is back",
                "back to 90% after", "kept after CN crash", "checked");
        for (Levels v : List.of(lowLevels, highLevels)) {
            l.row(v.label, DecLockMicrobench.f3(v.pre), DecLockMicrobench.f3(v.afterCn), DecLockMicrobench.f3(v.outage),
                    DecLockMicrobench.f3(v.afterMn), v.recoveryNs < 0 ? "never" : Durations.format(v.recoveryNs),
                    String.format(Locale.ROOT, "%.0f%%", 100 * v.kept()), v.result.correct()
                            ? "ok" : v.result.violations().size() + " violations");
        }
        List<ExperimentRow> rows = List.of(
                new ExperimentRow("low contention", "goodput kept after 1 of 8 CNs fails", PAPER_LOW_KEPT,
                        lowLevels.kept(), "ratio", KEPT_BAND),
                new ExperimentRow("high contention", "goodput kept after 1 of 8 CNs fails", PAPER_HIGH_KEPT,
                        highLevels.kept(), "ratio", KEPT_BAND),
                new ExperimentRow("low contention", "goodput while the MN is down, of the level before",
                        PAPER_OUTAGE, lowLevels.outage / Math.max(1e-9, lowLevels.afterCn), "ratio", KEPT_BAND),
                new ExperimentRow("high contention", "goodput while the MN is down, of the level before",
                        PAPER_OUTAGE, highLevels.outage / Math.max(1e-9, highLevels.afterCn), "ratio", KEPT_BAND));
        return new ExperimentResult(NAME, reference(), description(), setup, List.of(t.build(), l.build()), rows,
                discussion(lowLevels, highLevels), System.nanoTime() - wallStart);
    }

    /** The paper's level at time {@code at} from our pre-crash level {@code pre}: "-" where the text gives none. */
    private String paperLevel(long at, double pre, double kept) {
        Scenario s = scenario;
        if (at < s.warmupNs) {
            return "-";
        }
        if (at < s.cnCrashNs) {
            return DecLockMicrobench.f3(pre);
        }
        if (at < s.mnFailNs) {
            return DecLockMicrobench.f3(pre * kept);
        }
        if (at < s.mnFailNs + s.mnOutageNs) {
            return DecLockMicrobench.f3(PAPER_OUTAGE);
        }
        return "-";
    }

    /** The phases' mean levels of one timeline. */
    record Levels(String label, RunResult result, double pre, double afterCn, double outage, double afterMn,
                  long recoveryNs) {
        double kept() {
            return pre == 0 ? 0 : afterCn / pre;
        }
    }

    Levels levels(Timeline t) {
        Scenario s = scenario;
        long back = s.mnFailNs + s.mnOutageNs;
        double pre = t.median(s.warmupNs, s.cnCrashNs, s.binNs);
        double afterCn = t.median(s.cnCrashNs + s.settleNs, s.mnFailNs, s.binNs);
        double outage = t.mean(s.mnFailNs, back, s.binNs);
        long recovery = -1;
        for (int i = (int) (back / s.binNs); i < t.mops.length; i++) {
            if (t.mops[i] >= 0.9 * afterCn) {
                recovery = Math.max(0, i * s.binNs - back);
                break;
            }
        }
        double afterMn = recovery < 0 ? 0 : t.median(back + recovery, s.endNs(), s.binNs);
        return new Levels(t.label, t.result, pre, afterCn, outage, afterMn, recovery);
    }

    /** Runs one configuration with the scenario's faults and bins its releases. */
    Timeline timeline(ExperimentSettings settings, String label, int perCn) {
        Scenario s = scenario;
        SimConfig cluster = settings.onTestbed(OwnTestbeds.DECLOCK, SimConfig.defaults().toBuilder())
                .computeNodes(s.computeNodes).clientsPerComputeNode(perCn)
                .memoryNodes(2).seed(settings.seed()).build();
        List<String> options = new ArrayList<>(DecLockMicrobench.testbed(PROTOCOL, s.warmupNs, s.durationNs)
                .withClients(s.computeNodes, perCn)
                .withOptions(List.of(PROTOCOL + ".timeout-ns=" + s.timeout, PROTOCOL + ".lease-ns=" + s.lease))
                .runOptions());
        PointWorkload workload = PointWorkload.builder().clients(s.computeNodes * perCn).locks(s.locks)
                .zipf(DecLockMicrobench.ZIPF).readRatio(DecLockMicrobench.READ_RATIO).cs(DecLockMicrobench.CS)
                .warmupNs(s.warmupNs).durationNs(s.durationNs).seed(settings.seed())
                .options(ProtocolOptions.parse(options)).build();
        List<Hold> holds = new ArrayList<>();
        RunResult r;
        long startNs;
        try (SimFabric fabric = new SimFabric(cluster)) {
            startNs = fabric.observerNanoTime();
            r = new Runner(SimDriver.of(fabric).withFaults(s.faults()), false, settings.progressOut())
                    .withHoldObserver(holds::addAll).run(LockProtocols.byName(PROTOCOL), workload);
        }
        return new Timeline(label, r, bins(holds, startNs, new HashSet<>(r.faults().crashedClients())));
    }

    /**
     * Goodput per bin, Mops/s: the holds released in each bin from {@code startNs} over the run; a
     * crashed client's hold cut at its crash is not a completed operation.
     */
    double[] bins(List<Hold> holds, long startNs, Set<Integer> crashed) {
        Scenario s = scenario;
        int n = (int) ((s.endNs() + s.binNs - 1) / s.binNs);
        long[] counts = new long[n];
        long cnCrashAt = startNs + s.cnCrashNs;
        for (Hold h : holds) {
            if (h.releasedAt() == Hold.NEVER || (crashed.contains(h.client()) && h.releasedAt() >= cnCrashAt)) {
                continue;
            }
            long at = h.releasedAt() - startNs;
            if (at >= 0 && at < (long) n * s.binNs) {
                counts[(int) (at / s.binNs)]++;
            }
        }
        double[] mops = new double[n];
        for (int i = 0; i < n; i++) {
            mops[i] = counts[i] / (s.binNs / 1e3) ; // ops per bin / (bin in ms * 1000) = Mops/s
        }
        return mops;
    }

    private String discussion(Levels low, Levels high) {
        Scenario s = scenario;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Low contention: %.3f Mops/s before compute node %d crashes at %.0f ms, "
                        + "%.0f%% of it after (paper: about 88%%, one client in eight gone); ", low.pre, s.crashedCn(),
                s.cnCrashNs / 1e6, 100 * low.kept()));
        sb.append(String.format(Locale.ROOT, "high contention: %.3f Mops/s before, %.0f%% after (paper: unchanged). ",
                high.pre, 100 * high.kept()));
        sb.append(Math.abs(low.kept() - PAPER_LOW_KEPT) <= 0.1 && Math.abs(high.kept() - PAPER_HIGH_KEPT) <= 0.1
                ? "Both agree with the paper: with one client per node the goodput follows the clients (7 of 8), "
                + "and with 16 per node the surviving 112 clients keep the hot locks as busy as 128 did. "
                : "The levels after the crash do not both agree with the paper's (see the rows). ");
        sb.append(String.format(Locale.ROOT, "The memory node fails at %.0f ms for %.0f ms: goodput drops to %.3f "
                        + "(low) and %.3f (high) Mops/s while it is down (paper: 0). ", s.mnFailNs / 1e6,
                s.mnOutageNs / 1e6, low.outage, high.outage));
        sb.append(String.format(Locale.ROOT, "It comes back %s (low) and %s (high) after the node is back, to %.0f%% "
                        + "and %.0f%% of the level before the outage. ", low.recoveryNs < 0 ? "never" : "within "
                        + Durations.format(low.recoveryNs + s.binNs), high.recoveryNs < 0 ? "never" : "within "
                        + Durations.format(high.recoveryNs + s.binNs),
                100 * low.afterMn / Math.max(1e-9, low.afterCn), 100 * high.afterMn / Math.max(1e-9, high.afterCn)));
        sb.append("Why: after the restart every client reconnects and then waits one lease (lease-ns=").append(s.lease)
                .append(") from when it learned of the failure before its next lock operation: the restart lost the "
                        + "queues and member lists that say who holds what, so instead of Appendix B's per-lock "
                        + "reset (signal every client, wait for the holders' answers) each client waits out the "
                        + "longest a holder of the lost generation may hold; then the zeroed table is every lock "
                        + "reset at once and the clients register again. Every wait looks at the failure detector, so "
                        + "the clients learn of the failure within a signal poll (50 us) of it: goodput is zero from "
                        + "the failure until the later of the node's return and about a lease after the failure (here "
                        + "both are 4 ms). The paper's text says only that throughput is 0 \"until the MN recovers\" "
                        + "and gives no recovery time; its clients can ask its coordinator, which knows every client, "
                        + "instead of waiting a lease. ");
        sb.append("The CN crash costs the locks its clients held or waited for a timeout (timeout-ns=")
                .append(s.timeout).append(") each: a waiter behind the dead node's CQL entry or grant times out and "
                + "resets the lock, not waiting for the dead clients (their SENDs fail); the levels are the phases' "
                + "medians, so that dip is left out as the paper's \"quickly stabilizes\" does. ");
        boolean clean = low.result.correct() && high.result.correct();
        sb.append(clean ? "Both runs are checked: no overlapping grant and no fencing-token inversion across the "
                + "crash and the restart (tokens carry the memory node's generation). "
                : "A run found violations: see the levels table. ");
        sb.append("The paper's runs last seconds and fail the nodes by hand; ours are shortened to a ")
                .append(String.format(Locale.ROOT, "%.0f", s.endNs() / 1e6))
                .append(" ms virtual timeline (timeout and lease shortened alike), so only the shape is compared.");
        return sb.toString();
    }
}
