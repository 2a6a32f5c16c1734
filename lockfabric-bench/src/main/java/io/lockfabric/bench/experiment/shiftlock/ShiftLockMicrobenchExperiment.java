package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.experiment.ArtifactOptions;
import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;

import io.lockfabric.bench.RunResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code shiftlock-fig4}: ShiftLock (FAST'25) §4.2, Figures 4 and 5: goodput and acquire latency
 * (p50, p99) of ShiftLock and its baselines on the microbenchmark (acquire, release at once) under
 * the WO / WI / RI / RO workloads (0 / 50 / 95 / 100% reads), locks drawn uniform or Zipf-0.99 from
 * 10 M, 240 clients (5 CNs × 48).
 *
 * <p>The paper gives its figures' values only as plots; its text gives ratios, compared here: under
 * Zipf WI and RI, ShiftLock's goodput is 1.65× and 1.27× MCS's, 3.62× and 1.26× RMA-RW's; under
 * uniform workloads DrTM's and RMA-RW's p99 latencies are 1.99× and 2.26× ShiftLock's (compared on
 * uniform WI).
 */
public final class ShiftLockMicrobenchExperiment implements Experiment {
    public static final String NAME = "shiftlock-fig4";
    static final List<String> PROTOCOLS = List.of("shiftlock", "cas", "dslr", "mcs", "drtm", "rmarw", "rpc");
    static final double[] READ_RATIOS = {0, 0.5, 0.95, 1};
    static final double[] ZIPFS = {0, SimMicrobench.ZIPF};
    /** The ShiftLock artifact's settings of the baselines ({@link ArtifactOptions}). */
    static final List<String> ARTIFACT_OPTIONS = ArtifactOptions.SHIFTLOCK_BASELINES;
    private static final long WARMUP_NS = 2_000_000L;
    private static final long DURATION_NS = 10_000_000L;
    private static final Band RATIO_BAND = Band.relative(0.25);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "ShiftLock (FAST'25) §4.2, Figures 4-5";
    }

    @Override
    public String description() {
        return "goodput and acquire p50/p99 on WO/WI/RI/RO x uniform/Zipf-0.99, 240 clients, 10 M locks: "
                + String.join(", ", PROTOCOLS);
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        Map<String, RunResult> runs = new LinkedHashMap<>();
        int total = PROTOCOLS.size() * READ_RATIOS.length * ZIPFS.length;
        int done = 0;
        for (double zipf : ZIPFS) {
            for (double reads : READ_RATIOS) {
                for (String protocol : PROTOCOLS) {
                    String key = key(protocol, reads, zipf);
                    settings.progress(++done, total, key);
                    runs.put(key, SimMicrobench.testbed(protocol, reads, zipf, WARMUP_NS, DURATION_NS)
                            .withOptions(ARTIFACT_OPTIONS).run(settings));
                }
            }
        }
        List<ExperimentTable> tables = new ArrayList<>();
        tables.add(matrix("goodput, Mops/s (Figure 4)", runs, r -> ShiftLockVerbsExperiment.f2(r.goodput() / 1e6)));
        tables.add(matrix("acquire latency p50 / p99, us (Figure 5)", runs,
                r -> String.format(Locale.ROOT, "%.1f/%.0f", r.acquireLatency().p50Us(), r.acquireLatency().p99Us())));
        List<ExperimentRow> rows = new ArrayList<>();
        double zipf = SimMicrobench.ZIPF;
        rows.add(ratio("Zipf WI", "goodput shiftlock / mcs", 1.65, goodput(runs, "shiftlock", 0.5, zipf),
                goodput(runs, "mcs", 0.5, zipf)));
        rows.add(ratio("Zipf RI", "goodput shiftlock / mcs", 1.27, goodput(runs, "shiftlock", 0.95, zipf),
                goodput(runs, "mcs", 0.95, zipf)));
        rows.add(ratio("Zipf WI", "goodput shiftlock / rmarw", 3.62, goodput(runs, "shiftlock", 0.5, zipf),
                goodput(runs, "rmarw", 0.5, zipf)));
        rows.add(ratio("Zipf RI", "goodput shiftlock / rmarw", 1.26, goodput(runs, "shiftlock", 0.95, zipf),
                goodput(runs, "rmarw", 0.95, zipf)));
        rows.add(ratio("Unif. WI", "p99 drtm / shiftlock", 1.99, p99(runs, "drtm", 0.5, 0), p99(runs, "shiftlock", 0.5, 0)));
        rows.add(ratio("Unif. WI", "p99 rmarw / shiftlock", 2.26, p99(runs, "rmarw", 0.5, 0),
                p99(runs, "shiftlock", 0.5, 0)));
        String setup = SimMicrobench.testbedSetup(settings, "WO/WI/RI/RO x uniform/Zipf 0.99", ARTIFACT_OPTIONS,
                WARMUP_NS, DURATION_NS);
        return new ExperimentResult(NAME, reference(), description(), setup, tables, rows, "",
                System.nanoTime() - wallStart);
    }

    private interface Cell {
        String of(RunResult r);
    }

    /** Rows: protocols; columns: the workloads under each distribution. */
    private static ExperimentTable matrix(String title, Map<String, RunResult> runs, Cell cell) {
        List<String> columns = new ArrayList<>();
        columns.add("protocol");
        for (double zipf : ZIPFS) {
            for (double reads : READ_RATIOS) {
                columns.add(SimMicrobench.distributionName(zipf) + " " + SimMicrobench.workloadName(reads));
            }
        }
        List<List<String>> cells = new ArrayList<>();
        for (String protocol : PROTOCOLS) {
            List<String> row = new ArrayList<>();
            row.add(protocol);
            for (double zipf : ZIPFS) {
                for (double reads : READ_RATIOS) {
                    row.add(cell.of(runs.get(key(protocol, reads, zipf))));
                }
            }
            cells.add(row);
        }
        return new ExperimentTable(title, columns, cells);
    }

    private static ExperimentRow ratio(String caseName, String metric, double paper, double numerator,
                                       double denominator) {
        return new ExperimentRow(caseName, metric, paper, denominator == 0 ? 0 : numerator / denominator, "x",
                RATIO_BAND);
    }

    private static double goodput(Map<String, RunResult> runs, String protocol, double reads, double zipf) {
        return runs.get(key(protocol, reads, zipf)).goodput();
    }

    private static double p99(Map<String, RunResult> runs, String protocol, double reads, double zipf) {
        return runs.get(key(protocol, reads, zipf)).acquireLatency().p99Us();
    }

    private static String key(String protocol, double reads, double zipf) {
        return SimMicrobench.distributionName(zipf) + " " + SimMicrobench.workloadName(reads) + " " + protocol;
    }
}
