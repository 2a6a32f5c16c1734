package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;

import io.lockfabric.bench.LatencySummary;
import io.lockfabric.bench.RunResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code declock-fig14}: DecLock §6.3, Figure 14: ownership-transfer policies of the hierarchical
 * lock, judged by the acquire latency (p50, p99) of the most contended lock (lock 0) under the
 * write-only (WO, 0% reads), write-intensive (WI, 50%) and read-mostly (RM, 90%) microbenchmark
 * (8 CNs × 32 clients, 100 000 locks, Zipf 0.99, cs 1). Cases: no hierarchy ({@code cql}),
 * remote-prefer, local-prefer and local-bound (at most 4 consecutive local handovers), all three
 * phase-fair ({@code declock-pf}), and the timestamp policy task-fair ({@code declock-tf}, TS-TF)
 * and phase-fair ({@code declock-pf}, TS-PF).
 *
 * <p>The paper gives one number: against the other policies, the timestamp mechanism cuts the
 * hottest lock's median and p99 acquire latency by up to 66.7% and 70.8%. Its qualitative findings
 * (local-prefer starves remote waiters in WO; local-bound falls behind TS-PF as reads grow;
 * remote-prefer is like no hierarchy in WO and RM) are checked in the discussion against our numbers.
 */
public final class DecLockPolicyExperiment implements Experiment {
    public static final String NAME = "declock-fig14";
    /** Read shares of WO, WI, RM. */
    static final double[] READ_RATIOS = {0, 0.5, 0.9};
    static final String POLICY_OPTION = "policy";

    /** One case of the figure: a protocol and its policy (null: the protocol has no policy). */
    record Case(String label, String protocol, String policy) {
        List<String> options() {
            return policy == null ? List.of() : List.of(protocol + "." + POLICY_OPTION + "=" + policy);
        }

        boolean runnable() {
            return policy == null ? DecLockMicrobench.available(protocol)
                    : DecLockMicrobench.hasOption(protocol, POLICY_OPTION);
        }

        boolean timestamp() {
            return "timestamp".equals(policy);
        }
    }

    static final List<Case> CASES = List.of(
            new Case("no hierarchy", DecLockMicrobench.CQL, null),
            new Case("remote-prefer", DecLockMicrobench.DECLOCK_PF, "remote-prefer"),
            new Case("local-prefer", DecLockMicrobench.DECLOCK_PF, "local-prefer"),
            new Case("local-bound", DecLockMicrobench.DECLOCK_PF, "local-bound"),
            new Case("TS-TF", DecLockMicrobench.DECLOCK_TF, "timestamp"),
            new Case("TS-PF", DecLockMicrobench.DECLOCK_PF, "timestamp"));
    private static final long WARMUP_NS = 2_000_000L;
    private static final long DURATION_NS = 10_000_000L;
    private static final Band SHARE_BAND = Band.absolute(15);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "DecLock §6.3, Figure 14";
    }

    @Override
    public String description() {
        return "hottest lock's acquire p50/p99 under WO/WI/RM for the hierarchical policies (no hierarchy, "
                + "remote-prefer, local-prefer, local-bound, TS-TF, TS-PF), 8 CNs x 32 clients, Zipf 0.99, cs 1";
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        List<Case> cases = CASES.stream().filter(Case::runnable).toList();
        List<Case> missing = CASES.stream().filter(c -> !c.runnable()).toList();
        Map<String, RunResult> runs = new LinkedHashMap<>();
        int total = cases.size() * READ_RATIOS.length;
        int done = 0;
        for (double reads : READ_RATIOS) {
            for (Case c : cases) {
                settings.progress(++done, total, key(c, reads));
                runs.put(key(c, reads), DecLockMicrobench.testbed(c.protocol(), WARMUP_NS, DURATION_NS)
                        .withReadRatio(reads).withOptions(c.options()).run(settings));
            }
        }
        List<String> columns = new ArrayList<>();
        columns.add("policy");
        for (double reads : READ_RATIOS) {
            columns.add(workload(reads));
        }
        ExperimentTable.Builder hot = new ExperimentTable.Builder(
                "hottest lock's acquire latency p50 / p99, us (Figure 14)", columns.toArray(String[]::new));
        ExperimentTable.Builder all = new ExperimentTable.Builder(
                "all locks: acquire p50 / p99, us; goodput Mops/s", columns.toArray(String[]::new));
        for (Case c : cases) {
            List<String> h = new ArrayList<>(List.of(c.label()));
            List<String> a = new ArrayList<>(List.of(c.label()));
            for (double reads : READ_RATIOS) {
                RunResult r = runs.get(key(c, reads));
                h.add(latency(r.hottestLockAcquireLatency()));
                a.add(latency(r.acquireLatency()) + "; " + DecLockMicrobench.mops(r));
            }
            hot.row(h.toArray(String[]::new));
            all.row(a.toArray(String[]::new));
        }
        List<ExperimentRow> rows = new ArrayList<>();
        List<Case> timestamp = cases.stream().filter(Case::timestamp).toList();
        List<Case> others = cases.stream().filter(c -> !c.timestamp()).toList();
        if (!timestamp.isEmpty() && !others.isEmpty()) {
            Cut p50 = bestCut(runs, timestamp, others, true);
            Cut p99 = bestCut(runs, timestamp, others, false);
            rows.add(new ExperimentRow(p50.where(), "hottest-lock p50 cut by timestamp", 66.7, p50.percent(), "%",
                    SHARE_BAND));
            rows.add(new ExperimentRow(p99.where(), "hottest-lock p99 cut by timestamp", 70.8, p99.percent(), "%",
                    SHARE_BAND));
        }
        String setup = DecLockMicrobench.setup(settings, "cs 1, reads as the columns (WO 0%, WI 50%, RM 90%)",
                WARMUP_NS, DURATION_NS);
        return new ExperimentResult(NAME, reference(), description(), setup, List.of(hot.build(), all.build()), rows,
                discussion(runs, cases, missing), System.nanoTime() - wallStart);
    }

    private static String discussion(Map<String, RunResult> runs, List<Case> cases, List<Case> missing) {
        StringBuilder sb = new StringBuilder();
        if (!missing.isEmpty()) {
            sb.append("Not run (protocol not registered, or without option '").append(POLICY_OPTION).append("'): ")
                    .append(String.join(", ", missing.stream().map(c -> c.label() + " (" + c.protocol() + ")")
                            .toList()))
                    .append(". ");
        }
        Case tsPf = find(cases, "TS-PF");
        Case localPrefer = find(cases, "local-prefer");
        Case localBound = find(cases, "local-bound");
        Case flat = find(cases, "no hierarchy");
        if (tsPf != null && localPrefer != null) {
            sb.append(String.format(Locale.ROOT,
                    "WO: local-prefer's hottest-lock p99 is %.0f us against TS-PF's %.0f us (the paper: local-prefer "
                            + "starves remote waiters there). ",
                    p99(runs, localPrefer, 0), p99(runs, tsPf, 0)));
        }
        if (tsPf != null && localBound != null) {
            sb.append(String.format(Locale.ROOT,
                    "Local-bound / TS-PF hottest-lock p50: WO %.2f, WI %.2f, RM %.2f (the paper: the gap widens as "
                            + "reads grow). ",
                    ratio(runs, localBound, tsPf, 0), ratio(runs, localBound, tsPf, 0.5),
                    ratio(runs, localBound, tsPf, 0.9)));
        }
        if (tsPf != null && flat != null) {
            sb.append(String.format(Locale.ROOT,
                    "TS-PF / no hierarchy hottest-lock p99: WO %.2f, WI %.2f, RM %.2f (the paper: below 1 at every "
                            + "read ratio). ",
                    p99(runs, tsPf, 0) / Math.max(1e-9, p99(runs, flat, 0)),
                    p99(runs, tsPf, 0.5) / Math.max(1e-9, p99(runs, flat, 0.5)),
                    p99(runs, tsPf, 0.9) / Math.max(1e-9, p99(runs, flat, 0.9))));
            if (p99(runs, tsPf, 0.9) > p99(runs, flat, 0.9)) {
                // an explanation from the protocol, not a per-mode measurement (the runs do not split
                // the hottest lock's latency by mode)
                sb.append("Where TS-PF's p99 is above no hierarchy's, the tail is likely its writers': phase-fair "
                        + "admits every waiting reader of a node into the phase a reader opens (and new readers "
                        + "join it while no earlier remote waiter is known), so a writer on the hottest lock waits "
                        + "out a reader phase on each node ahead of it, where the flat queue serves it in FIFO "
                        + "order; the paper's DecLock-PF bounds this better than ours (its p99 stays below no "
                        + "hierarchy's). ");
            }
        }
        Case tsTf = find(cases, "TS-TF");
        if (tsPf != null && tsTf != null) {
            sb.append(String.format(Locale.ROOT,
                    "TS-PF / TS-TF hottest-lock p50: WI %.2f, RM %.2f (the paper: TS-PF lower in WI and RM). ",
                    ratio(runs, tsPf, tsTf, 0.5), ratio(runs, tsPf, tsTf, 0.9)));
        }
        if (!runs.isEmpty()) {
            RunResult any = runs.values().iterator().next();
            sb.append(String.format(Locale.ROOT,
                    "Lock 0 took %.1f%% of the operations (%d acquisitions in the first run's window): its waiters "
                            + "queue behind up to 255 others, and its p99 rests on that many samples.",
                    any.measuredOps() == 0 ? 0 : 100.0 * any.hottestLockAcquireLatency().count() / any.measuredOps(),
                    any.hottestLockAcquireLatency().count()));
        }
        return sb.toString();
    }

    private record Cut(double percent, String where) {
    }

    /** The largest cut of a timestamp case against another case, over the workloads. */
    private static Cut bestCut(Map<String, RunResult> runs, List<Case> timestamp, List<Case> others, boolean median) {
        double best = Double.NEGATIVE_INFINITY;
        String where = "";
        for (double reads : READ_RATIOS) {
            for (Case ts : timestamp) {
                for (Case o : others) {
                    LatencySummary t = runs.get(key(ts, reads)).hottestLockAcquireLatency();
                    LatencySummary b = runs.get(key(o, reads)).hottestLockAcquireLatency();
                    double theirs = median ? b.p50Us() : b.p99Us();
                    double ours = median ? t.p50Us() : t.p99Us();
                    double cut = theirs == 0 ? 0 : 100 * (1 - ours / theirs);
                    if (cut > best) {
                        best = cut;
                        where = workload(reads) + " " + ts.label() + " vs " + o.label();
                    }
                }
            }
        }
        return new Cut(best, where);
    }

    private static Case find(List<Case> cases, String label) {
        return cases.stream().filter(c -> c.label().equals(label)).findFirst().orElse(null);
    }

    private static double p99(Map<String, RunResult> runs, Case c, double reads) {
        return runs.get(key(c, reads)).hottestLockAcquireLatency().p99Us();
    }

    private static double ratio(Map<String, RunResult> runs, Case a, Case b, double reads) {
        double d = runs.get(key(b, reads)).hottestLockAcquireLatency().p50Us();
        return d == 0 ? 0 : runs.get(key(a, reads)).hottestLockAcquireLatency().p50Us() / d;
    }

    private static String latency(LatencySummary s) {
        return s.count() == 0 ? "-" : String.format(Locale.ROOT, "%.1f / %.0f", s.p50Us(), s.p99Us());
    }

    static String workload(double reads) {
        return reads == 0 ? "WO" : reads == 0.5 ? "WI" : reads == 0.9 ? "RM"
                : String.format(Locale.ROOT, "%.0f%% reads", reads * 100);
    }

    private static String key(Case c, double reads) {
        return workload(reads) + " " + c.label();
    }
}
