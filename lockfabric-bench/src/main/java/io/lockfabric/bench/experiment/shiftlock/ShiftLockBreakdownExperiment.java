package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.bench.experiment.ArtifactOptions;
import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Figure;
import io.lockfabric.bench.experiment.Figure.PaperSeries;

import io.lockfabric.bench.RunResult;
import io.lockfabric.lock.LatencyBreakdown;
import io.lockfabric.lock.LatencyBreakdown.Item;
import io.lockfabric.lock.LatencyBreakdown.Part;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code shiftlock-table3}: ShiftLock (FAST'25) §4.6, Table 3: where ShiftLock's acquisitions and
 * releases spend their time (averages per operation, µs) at 5 … 240 clients (spread over 5 CNs),
 * Zipf-0.99 WI and RI, 10 M locks. Items (Table 2): writer acquire IA (the MCAS that enters the
 * queue), NP (SEND to the predecessor), WP (waiting for its handover), WR (READs waiting for earlier
 * readers); reader acquire IA and WW (READs waiting for the lock to pass to readers); release IA and
 * NS (waiting for a successor's Successor message and notifying it). Every cell is printed next to
 * the paper's; the comparisons are the initial atomic at 5 and 240 clients (the memory node NIC's
 * latency under load) and the waits at 240.
 *
 * <p>Then Table 4: the same items for every baseline at 240 clients, each timed by the protocol itself
 * in its open statistics ({@link LatencyBreakdown}): the spinning locks' initial atomic (IA) and
 * retries with backoff and polling (RT), the queue locks' notify and wait items, next to shiftlock's.
 * The paper's Table 4 has shiftlock, CAS-B ({@code cas}), CAS-NB ({@code cas-nb}) and DSLR under WI
 * and shiftlock and DSLR under RI; every one of its numbers of 1 us or more is compared. The other
 * baselines ({@code cas-rw}, {@code mcs}, {@code rmarw}, {@code drtm}, {@code rpc}) are ours alone;
 * the mutexes ({@code cas}, {@code cas-nb}, {@code mcs}) run WI only (a shared request is exclusive
 * for them, so RI would repeat it). The Table 3 part's tables and rows come first, unchanged.
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
    /** Table 4 under WI: the paper's (cas, cas-nb, dslr), then every other baseline. */
    static final List<String> TABLE4_WI = List.of("cas", "cas-nb", "dslr", "cas-rw", "mcs", "rmarw", "drtm", "rpc");
    /** Table 4 under RI: the paper's (dslr), then the other reader-writer baselines. */
    static final List<String> TABLE4_RI = List.of("dslr", "cas-rw", "rmarw", "drtm", "rpc");
    /** Table 4's columns: each a set of items of one part, summed. */
    private static final Column4[] COLUMNS4 = {
            new Column4(Part.WRITER_ACQUIRE, "IA", Item.IA),
            new Column4(Part.WRITER_ACQUIRE, "NP+WP+WR", Item.NP, Item.WP, Item.WR),
            new Column4(Part.WRITER_ACQUIRE, "RT", Item.RT),
            new Column4(Part.READER_ACQUIRE, "IA", Item.IA), new Column4(Part.READER_ACQUIRE, "WW", Item.WW),
            new Column4(Part.READER_ACQUIRE, "RT", Item.RT), new Column4(Part.RELEASE, "IA", Item.IA),
            new Column4(Part.RELEASE, "NS", Item.NS)};
    private static final double NA = Double.NaN;
    /** Table 4, WI: the paper's rows (NaN: "-"), columns as {@link #COLUMNS4}. */
    private static final java.util.SequencedMap<String, double[]> PAPER4_WI = paper4(
            "shiftlock", new double[]{2.50, 42.95, NA, 2.47, 2.87, NA, 2.51, 0.34},
            "cas", new double[]{2.48, NA, 37.23, 2.48, NA, 37.23, 2.34, NA},
            "cas-nb", new double[]{38.50, NA, 412.98, 38.50, NA, 412.98, 37.92, NA},
            "dslr", new double[]{7.76, NA, 75.36, 7.76, NA, 74.86, 7.73, NA});
    /** Table 4, RI. */
    private static final java.util.SequencedMap<String, double[]> PAPER4_RI = paper4(
            "shiftlock", new double[]{7.96, 15.21, NA, 7.01, 1.70, NA, 7.09, 0.23},
            "dslr", new double[]{3.47, NA, 18.01, 3.46, NA, 20.26, 3.51, NA});
    private static final long WARMUP_NS = 2_000_000L;
    private static final long DURATION_NS = 10_000_000L;
    private static final Band BAND = Band.relative(0.25);

    private final int[] clients;
    private final long locks;
    private final List<String> table4Wi;
    private final List<String> table4Ri;

    /** Tables 3 and 4 at their default scale. */
    public ShiftLockBreakdownExperiment() {
        this(CLIENTS, SimMicrobench.TESTBED_LOCKS, TABLE4_WI, TABLE4_RI);
    }

    /**
     * A reduced run (tests): Table 3 at these client counts (a subset of {@link #CLIENTS}, ascending), Table 4
     * at the last of them, on {@code locks} locks, with these baselines.
     */
    ShiftLockBreakdownExperiment(int[] clients, long locks, List<String> table4Wi, List<String> table4Ri) {
        for (int c : clients) {
            paperRow(c);
        }
        this.clients = clients.clone();
        this.locks = locks;
        this.table4Wi = List.copyOf(table4Wi);
        this.table4Ri = List.copyOf(table4Ri);
    }

    /** The row of {@code clients} in the paper's Table 3. */
    private static int paperRow(int clients) {
        for (int i = 0; i < CLIENTS.length; i++) {
            if (CLIENTS[i] == clients) {
                return i;
            }
        }
        throw new IllegalArgumentException(clients + " clients: Table 3 has no such row");
    }

    private record Column(Part part, Item item) {
        String label() {
            return part.label() + " " + item;
        }
    }

    private record Column4(Part part, String name, Item... items) {
        String label() {
            return part.label() + " " + name;
        }

        double us(LatencyBreakdown b) {
            double ns = 0;
            for (Item i : items) {
                ns += b.averageNs(part, i);
            }
            return ns / 1e3;
        }
    }

    private static java.util.SequencedMap<String, double[]> paper4(Object... lockThenCells) {
        LinkedHashMap<String, double[]> m = new LinkedHashMap<>();
        for (int i = 0; i < lockThenCells.length; i += 2) {
            m.put((String) lockThenCells[i], (double[]) lockThenCells[i + 1]);
        }
        return java.util.Collections.unmodifiableSequencedMap(m);
    }

    /** The title of Table 4's part for one workload (paper / sim cells). */
    static String table4(String workload) {
        return "Table 4, Zipf " + workload + ", 240 clients: paper / sim, us per operation";
    }

    /** The title of Table 4's every-baseline table for one workload (ours only). */
    static String table4All(String workload) {
        return "Table 4, every baseline, Zipf " + workload + ", 240 clients: sim, us per operation";
    }

    @Override
    public List<Figure> figures() {
        List<Figure> out = new ArrayList<>(List.of(breakdown("WI", "Acq \\(W\\)", "writer acquire"),
                breakdown("WI", "Acq \\(R\\)|Rel", "reader acquire, release"),
                breakdown("RI", "Acq \\(W\\)", "writer acquire"),
                breakdown("RI", "Acq \\(R\\)|Rel", "reader acquire, release")));
        for (String w : List.of("WI", "RI")) {
            Figure.Builder f = Figure.of("table4-" + w.toLowerCase(Locale.ROOT),
                            "ShiftLock Table 4: latency breakdown by lock, Zipf " + w + ", 240 clients (log)",
                            table4All(w)).xInRows("lock").y("us per operation (log)").logY();
            for (Column4 c : COLUMNS4) {
                f.paper(PaperSeries.fromRows(c.label(), c.label(), "Table 4 " + w + " (\\S+)"));
            }
            out.add(f.build());
        }
        return out;
    }

    /** ShiftLock Table 3 as lines over clients, the paper's cells dashed. */
    private static Figure breakdown(String workload, String columns, String what) {
        return Figure.of("table3-" + workload.toLowerCase(Locale.ROOT) + "-"
                                + (what.startsWith("writer") ? "writer" : "reader-release"),
                        "ShiftLock Table 3: latency breakdown, Zipf " + workload + ", " + what,
                        "Zipf " + workload + ": paper / sim")
                .xInRows("clients").y("us per operation").only("^(" + columns + ")").part(1).paperPart(0).build();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "ShiftLock (FAST'25) §4.6, Tables 3 and 4";
    }

    @Override
    public String description() {
        return "shiftlock's latency breakdown (IA, NP, WP, WR, WW, NS; us per operation) at 5 ... 240 clients, "
                + "Zipf-0.99 WI and RI, 10 M locks; Table 4: every baseline's breakdown at 240 clients";
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        List<ExperimentTable> tables = new ArrayList<>();
        List<ExperimentRow> rows = new ArrayList<>();
        int total = 2 * clients.length + table4Wi.size() + table4Ri.size();
        int done = 0;
        Map<String, LatencyBreakdown> at240 = new LinkedHashMap<>();
        for (double reads : new double[]{0.5, 0.95}) {
            String workload = SimMicrobench.workloadName(reads);
            double[][] paper = reads == 0.5 ? PAPER_WI : PAPER_RI;
            List<String> columns = new ArrayList<>();
            columns.add("clients");
            for (Column c : COLUMNS) {
                columns.add(c.label());
            }
            List<List<String>> cells = new ArrayList<>();
            for (int k = 0; k < clients.length; k++) {
                int i = paperRow(clients[k]);
                settings.progress(++done, total, workload + " " + CLIENTS[i] + " clients");
                RunResult r = SimMicrobench.testbed("shiftlock", reads, SimMicrobench.ZIPF, WARMUP_NS, DURATION_NS)
                        .withLocks(locks).withClients(CLIENTS[i]).run(settings);
                LatencyBreakdown b = LatencyBreakdown.of(r.stats());
                if (b.isEmpty()) {
                    throw new IllegalStateException("shiftlock reported no latency breakdown");
                }
                if (k == clients.length - 1) {
                    at240.put(workload + " shiftlock", b);
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
        int last = clients[clients.length - 1];
        for (double reads : new double[]{0.5, 0.95}) {
            String workload = SimMicrobench.workloadName(reads);
            for (String protocol : reads == 0.5 ? table4Wi : table4Ri) {
                settings.progress(++done, total, "Table 4 " + workload + " " + protocol);
                RunResult r = SimMicrobench.testbed(protocol, reads, SimMicrobench.ZIPF, WARMUP_NS, DURATION_NS)
                        .withOptions(ShiftLockMicrobenchExperiment.ARTIFACT_OPTIONS).withLocks(locks).withClients(last)
                        .run(settings);
                LatencyBreakdown b = LatencyBreakdown.of(r.stats());
                if (b.isEmpty() && r.measuredOps() > 0) {
                    throw new IllegalStateException(protocol + " reported no latency breakdown");
                }
                at240.put(workload + " " + protocol, b);
            }
        }
        List<ExperimentRow> rows4 = new ArrayList<>();
        for (String workload : List.of("WI", "RI")) {
            Map<String, double[]> paper = workload.equals("WI") ? PAPER4_WI : PAPER4_RI;
            List<String> columns = new ArrayList<>();
            columns.add("lock");
            for (Column4 c : COLUMNS4) {
                columns.add(c.label());
            }
            List<List<String>> cells = new ArrayList<>();
            for (Map.Entry<String, double[]> e : paper.entrySet()) {
                LatencyBreakdown b = at240.get(workload + " " + e.getKey());
                List<String> row = new ArrayList<>();
                row.add(e.getKey());
                for (int j = 0; j < COLUMNS4.length; j++) {
                    double p = e.getValue()[j];
                    double sim = COLUMNS4[j].us(b);
                    row.add(Double.isNaN(p) ? String.format(Locale.ROOT, "- / %.2f", sim)
                            : String.format(Locale.ROOT, "%.2f / %.2f", p, sim));
                    if (!Double.isNaN(p) && p >= 1) {
                        rows4.add(new ExperimentRow("Table 4 " + workload + " " + e.getKey(), COLUMNS4[j].label(), p,
                                sim, "us", BAND));
                    }
                }
                cells.add(row);
            }
            tables.add(new ExperimentTable(table4(workload), columns, cells));
            List<List<String>> all = new ArrayList<>();
            for (Map.Entry<String, LatencyBreakdown> e : at240.entrySet()) {
                if (!e.getKey().startsWith(workload + " ")) {
                    continue;
                }
                List<String> row = new ArrayList<>();
                row.add(e.getKey().substring(workload.length() + 1));
                for (Column4 c : COLUMNS4) {
                    row.add(String.format(Locale.ROOT, "%.2f", c.us(e.getValue())));
                }
                all.add(row);
            }
            tables.add(new ExperimentTable(table4All(workload), columns, all));
        }
        rows.addAll(rows4);
        String setup = String.format(Locale.ROOT,
                settings.simModel(OwnTestbeds.SHIFTLOCK) + ", %d CNs, %,d locks, Zipf %.2f, cs 0, %s; measured %.0f ms after %.0f ms; seed %d",
                SimMicrobench.TESTBED_COMPUTE_NODES, locks, SimMicrobench.ZIPF,
                ArtifactOptions.SETUP_NOTE, settings.durationOr(DURATION_NS) / 1e6, settings.warmupOr(WARMUP_NS) / 1e6,
                settings.seed());
        return new ExperimentResult(NAME, reference(), description(), setup, tables, rows, discussion4(at240, rows4),
                System.nanoTime() - wallStart);
    }

    /** Table 4's ending: the paper's claims and ours. */
    private static String discussion4(Map<String, LatencyBreakdown> at240, List<ExperimentRow> rows4) {
        double slIa = COLUMNS4[0].us(at240.get("WI shiftlock"));
        double nbIa = COLUMNS4[0].us(at240.get("WI cas-nb"));
        double dslrIa = COLUMNS4[0].us(at240.get("WI dslr"));
        double slIaRi = COLUMNS4[0].us(at240.get("RI shiftlock"));
        double dslrIaRi = COLUMNS4[0].us(at240.get("RI dslr"));
        double slWwRi = COLUMNS4[4].us(at240.get("RI shiftlock"));
        double dslrWaitRi = COLUMNS4[5].us(at240.get("RI dslr"));
        StringBuilder d = new StringBuilder(String.format(Locale.ROOT, "Table 4 (240 clients): the paper finds that "
                        + "retries slow every lock's atomics down, since the NIC serializes atomics on one address: "
                        + "CAS-NB's CAS is 15.39x shiftlock's and DSLR's FAA 3.10x under WI; ours %.2fx and %.2fx. "
                        + "Under RI shiftlock's 16-byte atomic is 2.29x DSLR's FAA (ours %.2fx), and shiftlock's "
                        + "readers wait 91.6%% less than DSLR's (ours %.1f%% less: WW %.2f us against DSLR's reader RT "
                        + "%.2f us). ", nbIa / slIa, dslrIa / slIa, slIaRi / dslrIaRi,
                (1 - slWwRi / dslrWaitRi) * 100, slWwRi, dslrWaitRi));
        long in = rows4.stream().filter(ExperimentRow::withinBand).count();
        d.append(String.format(Locale.ROOT, "%d of the %d compared cells are within 25%% of the paper's. ", in,
                rows4.size()));
        d.append("Where not: dslr's FAA and waits are shorter than the paper's because our dslr READs the lock far "
                + "less often while it waits than the ShiftLock artifact's DSLR did (shiftlock-fig6: READs per cycle), "
                + "so fewer verbs queue on the hot word; under RI every atomic is shorter than the testbed's, where "
                + "readers polling at a high goodput loaded the memory node's ConnectX-5 (the paper's 3.13x rise of "
                + "IA from 5 to 240 clients), which the simulator's default NIC model does not reproduce. The "
                + "baselines the paper leaves out are timed the same way, for comparison.");
        return d.toString();
    }
}
