package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.experiment.ArtifactOptions;
import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;

import io.lockfabric.bench.RunResult;
import io.lockfabric.lock.shiftlock.LatencyBreakdown;
import io.lockfabric.lock.shiftlock.LatencyBreakdown.Item;
import io.lockfabric.lock.shiftlock.LatencyBreakdown.Part;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code shiftlock-table3}: ShiftLock (FAST'25) §4.6, Table 3: where ShiftLock's acquisitions and
 * releases spend their time (averages per operation, µs) at 5 … 240 clients (spread over 5 CNs),
 * Zipf-0.99 WI and RI, 10 M locks. Items (Table 2): writer acquire IA (the MCAS that enters the
 * queue), NP (SEND to the predecessor), WP (waiting for its handover), WR (READs waiting for earlier
 * readers); reader acquire IA and WW (READs waiting for the lock to pass to readers); release IA and
 * NS (waiting for a successor's Successor message and notifying it). Every cell is printed next to
 * the paper's; the comparisons are the initial atomic at 5 and 240 clients (the memory node NIC's
 * latency under load) and the waits at 240.
 */
public final class ShiftLockBreakdownExperiment implements Experiment {
    public static final String NAME = "shiftlock-table3";
    static final int[] CLIENTS = {5, 20, 40, 80, 120, 160, 200, 240};
    private static final Column[] COLUMNS = {
            new Column(Part.WRITER_ACQUIRE, Item.IA), new Column(Part.WRITER_ACQUIRE, Item.NP),
            new Column(Part.WRITER_ACQUIRE, Item.WP), new Column(Part.WRITER_ACQUIRE, Item.WR),
            new Column(Part.READER_ACQUIRE, Item.IA), new Column(Part.READER_ACQUIRE, Item.WW),
            new Column(Part.RELEASE, Item.IA), new Column(Part.RELEASE, Item.NS)};
    /** Table 3, WI (rows: clients as {@link #CLIENTS}; columns as {@link #COLUMNS}). */
    private static final double[][] PAPER_WI = {
            {2.05, 0.01, 0.01, 0.01, 2.03, 0.01, 2.05, 0.02},
            {2.24, 0.07, 0.10, 0.05, 2.22, 0.20, 2.25, 0.10},
            {2.27, 0.15, 0.25, 0.07, 2.25, 0.78, 2.27, 0.18},
            {2.41, 0.23, 1.88, 0.09, 2.38, 2.00, 2.39, 0.28},
            {2.41, 0.22, 10.14, 0.09, 2.38, 2.14, 2.40, 0.29},
            {2.43, 0.22, 19.51, 0.09, 2.40, 2.32, 2.42, 0.31},
            {2.49, 0.23, 31.75, 0.09, 2.46, 2.63, 2.49, 0.33},
            {2.50, 0.23, 42.63, 0.09, 2.47, 2.87, 2.51, 0.34}};
    /** Table 3, RI. */
    private static final double[][] PAPER_RI = {
            {2.41, 0.09, 0.37, 0.32, 2.32, 0.00, 2.29, 0.00},
            {2.49, 0.11, 0.22, 1.24, 2.41, 0.01, 2.38, 0.00},
            {2.64, 0.25, 0.50, 2.09, 2.49, 0.04, 2.46, 0.02},
            {3.60, 0.70, 1.83, 3.57, 2.68, 0.24, 2.69, 0.08},
            {5.14, 1.02, 3.48, 4.45, 3.44, 0.59, 3.48, 0.14},
            {5.91, 1.07, 4.18, 4.97, 4.52, 0.87, 4.58, 0.18},
            {6.96, 1.13, 5.23, 5.83, 5.79, 1.21, 5.87, 0.21},
            {7.84, 1.18, 7.03, 6.57, 6.95, 1.66, 7.03, 0.24}};
    private static final long WARMUP_NS = 2_000_000L;
    private static final long DURATION_NS = 10_000_000L;
    private static final Band BAND = Band.relative(0.25);

    private record Column(Part part, Item item) {
        String label() {
            return part.label() + " " + item;
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "ShiftLock (FAST'25) §4.6, Table 3";
    }

    @Override
    public String description() {
        return "shiftlock's latency breakdown (IA, NP, WP, WR, WW, NS; us per operation) at 5 ... 240 clients, "
                + "Zipf-0.99 WI and RI, 10 M locks";
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        List<ExperimentTable> tables = new ArrayList<>();
        List<ExperimentRow> rows = new ArrayList<>();
        int total = 2 * CLIENTS.length;
        int done = 0;
        for (double reads : new double[]{0.5, 0.95}) {
            String workload = SimMicrobench.workloadName(reads);
            double[][] paper = reads == 0.5 ? PAPER_WI : PAPER_RI;
            List<String> columns = new ArrayList<>();
            columns.add("clients");
            for (Column c : COLUMNS) {
                columns.add(c.label());
            }
            List<List<String>> cells = new ArrayList<>();
            for (int i = 0; i < CLIENTS.length; i++) {
                settings.progress(++done, total, workload + " " + CLIENTS[i] + " clients");
                RunResult r = SimMicrobench.testbed("shiftlock", reads, SimMicrobench.ZIPF, WARMUP_NS, DURATION_NS)
                        .withClients(CLIENTS[i]).run(settings);
                LatencyBreakdown b = LatencyBreakdown.of(r.stats());
                if (b.isEmpty()) {
                    throw new IllegalStateException("shiftlock reported no latency breakdown");
                }
                List<String> row = new ArrayList<>();
                row.add(Integer.toString(CLIENTS[i]));
                for (int j = 0; j < COLUMNS.length; j++) {
                    double sim = b.averageNs(COLUMNS[j].part(), COLUMNS[j].item()) / 1e3;
                    row.add(String.format(Locale.ROOT, "%.2f / %.2f", paper[i][j], sim));
                    boolean compared = COLUMNS[j].item() == Item.IA ? i == 0 || i == CLIENTS.length - 1
                            : i == CLIENTS.length - 1 && paper[i][j] >= 1;
                    if (compared) {
                        rows.add(new ExperimentRow(workload + " " + CLIENTS[i] + " clients", COLUMNS[j].label(),
                                paper[i][j], sim, "us", BAND));
                    }
                }
                cells.add(row);
            }
            tables.add(new ExperimentTable("Zipf " + workload + ": paper / sim, us per operation", columns, cells));
        }
        String setup = String.format(Locale.ROOT,
                "sim defaults, %d CNs, %,d locks, Zipf %.2f, cs 0, %s; measured %.0f ms after %.0f ms; seed %d",
                SimMicrobench.TESTBED_COMPUTE_NODES, SimMicrobench.TESTBED_LOCKS, SimMicrobench.ZIPF,
                ArtifactOptions.SETUP_NOTE, settings.durationOr(DURATION_NS) / 1e6, settings.warmupOr(WARMUP_NS) / 1e6,
                settings.seed());
        return new ExperimentResult(NAME, reference(), description(), setup, tables, rows, "",
                System.nanoTime() - wallStart);
    }
}
