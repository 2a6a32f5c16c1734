package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.experiment.ArtifactOptions;
import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Figure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code shiftlock-fig8}: ShiftLock (FAST'25) §4.3, Figure 8: goodput of ShiftLock and its baselines
 * under the Zipf-0.99 WI and RI microbenchmarks (50% / 95% reads, 10 M locks) as the client count grows
 * from 5 to 240 (5 CNs × 1, 4, 8, 16, 24, 32, 40, 48 threads, the artifact's plotting notebook's points).
 *
 * <p>The paper's text: ShiftLock "scales to 80 (WI) or 120 (RI) clients and keeps a stable goodput when
 * the client count further increases", the plateau being the memory node's RNIC. Compared here as the
 * knee: the fewest clients at which ShiftLock reaches {@value #KNEE_SHARE} of its highest goodput over the
 * sweep, within one step of the sweep (40 clients) of the paper's; and the plateau as ShiftLock's goodput
 * at 240 clients over its peak (paper: stable, read as 1.0).
 */
public final class ShiftLockClientCountExperiment implements Experiment {
    public static final String NAME = "shiftlock-fig8";
    static final List<String> PROTOCOLS = List.of("shiftlock", "mcs", "cas", "dslr", "drtm", "rmarw", "rpc");
    static final int[] CLIENTS = {5, 20, 40, 80, 120, 160, 200, 240};
    static final double[] READ_RATIOS = {0.5, 0.95};
    static final double KNEE_SHARE = 0.9;
    static final String KNEE_METRIC = "clients where shiftlock reaches 90% of its peak goodput";
    static final String PLATEAU_METRIC = "shiftlock goodput at the most clients / its peak";
    private static final Band KNEE_BAND = Band.absolute(40);
    private static final Band PLATEAU_BAND = Band.absolute(0.1);

    private final List<String> protocols;
    private final int[] clients;
    private final long locks;
    private final long casWarmupNs;

    /** The figure at its default scale. */
    public ShiftLockClientCountExperiment() {
        this(PROTOCOLS, CLIENTS, SimMicrobench.TESTBED_LOCKS, SimMicrobench.ADAPTIVE_BACKOFF_WARMUP_NS);
    }

    /** A reduced run (tests): these protocols (shiftlock among them), client counts (multiples of 5) and locks. */
    ShiftLockClientCountExperiment(List<String> protocols, int[] clients, long locks, long casWarmupNs) {
        this.protocols = List.copyOf(protocols);
        this.clients = clients.clone();
        this.locks = locks;
        this.casWarmupNs = casWarmupNs;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "ShiftLock (FAST'25) §4.3, Figure 8";
    }

    @Override
    public String description() {
        return "goodput against the client count (5 ... 240), Zipf-0.99 WI and RI, 10 M locks: "
                + String.join(", ", PROTOCOLS);
    }

    /** The goodput table of one workload. */
    static String table(double reads) {
        return "goodput, Mops/s, Zipf " + SimMicrobench.workloadName(reads) + " (Figure 8)";
    }

    @Override
    public List<Figure> figures() {
        List<Figure> out = new ArrayList<>();
        for (double reads : READ_RATIOS) {
            String w = SimMicrobench.workloadName(reads);
            out.add(Figure.of("goodput-" + w.toLowerCase(Locale.ROOT),
                            "ShiftLock Fig. 8: goodput against the client count, Zipf-0.99 " + w, table(reads))
                    .xInRows("clients").y("goodput, Mops/s").build());
        }
        return out;
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        Map<String, RunResult> runs = new LinkedHashMap<>();
        int total = READ_RATIOS.length * clients.length * protocols.size();
        int done = 0;
        for (double reads : READ_RATIOS) {
            for (int n : clients) {
                for (String protocol : protocols) {
                    String key = key(protocol, reads, n);
                    settings.progress(++done, total, key);
                    runs.put(key, ShiftLockSweep.run(protocol, reads, SimMicrobench.ZIPF, locks, n, casWarmupNs,
                            settings));
                }
            }
        }
        List<ExperimentTable> tables = new ArrayList<>();
        for (double reads : READ_RATIOS) {
            List<String> columns = new ArrayList<>();
            columns.add("clients");
            columns.addAll(protocols);
            ExperimentTable.Builder t = new ExperimentTable.Builder(table(reads), columns.toArray(String[]::new));
            for (int n : clients) {
                List<String> row = new ArrayList<>();
                row.add(Integer.toString(n));
                for (String protocol : protocols) {
                    row.add(ShiftLockVerbsExperiment.f2(runs.get(key(protocol, reads, n)).goodput() / 1e6));
                }
                t.row(row.toArray(String[]::new));
            }
            tables.add(t.build());
        }
        List<ExperimentRow> rows = new ArrayList<>();
        StringBuilder d = new StringBuilder();
        for (double reads : READ_RATIOS) {
            String w = "Zipf " + SimMicrobench.workloadName(reads);
            double[] g = goodputs(runs, "shiftlock", reads);
            double peak = 0;
            for (double v : g) {
                peak = Math.max(peak, v);
            }
            int knee = knee(clients, g);
            double plateau = peak == 0 ? 0 : g[g.length - 1] / peak;
            rows.add(new ExperimentRow(w, KNEE_METRIC, reads == 0.5 ? 80 : 120, knee, "clients", KNEE_BAND));
            rows.add(new ExperimentRow(w, PLATEAU_METRIC, 1.0, plateau, "x", PLATEAU_BAND));
            d.append(String.format(Locale.ROOT,
                    "%s: shiftlock goes from %.2f Mops/s with %d clients to a peak of %.2f, reaching 90%% of it at %d "
                            + "clients (paper: scales to %d), and ends at %.2f with %d (%.0f%% of the peak). ",
                    w, g[0] / 1e6, clients[0], peak / 1e6, knee, reads == 0.5 ? 80 : 120, g[g.length - 1] / 1e6,
                    clients[clients.length - 1], plateau * 100));
            int last = clients[clients.length - 1];
            double rival = bestGoodput(runs, reads, last);
            d.append(String.format(Locale.ROOT, "At %d clients the best baseline is %s (%.2f Mops/s): shiftlock %s. ",
                    last, best(runs, reads, last), rival / 1e6,
                    g[g.length - 1] >= rival ? "leads, as in the paper" : "trails it, against the paper"));
        }
        d.append(ShiftLockSweep.outside(rows)).append(' ');
        d.append("The paper reads its plateau as the memory node's RNIC saturating. Ours flattens for another "
                + "reason: the simulated memory node serves about 50 Mops/s of uniform draws (shiftlock-fig9), far "
                + "above these plateaus, so at Zipf 0.99 it is the hottest locks' hand-overs that cap goodput, and "
                + "more clients only queue longer on them (under WI shiftlock even loses a little past its peak). The "
                + "knee's place depends on that, on the default NIC model (not a ConnectX-5 profile) and on the "
                + "sweep's coarse steps (it can only be one of the client counts run). Baselines that retry or poll (cas, "
                + "drtm, rpc) fall behind as clients grow. ");
        int most = clients[clients.length - 1];
        String other = best(runs, 0.5, most);
        if (!"-".equals(other) && bestGoodput(runs, 0.5, most) > runs.get(key("shiftlock", 0.5, most)).goodput()) {
            d.append(ShiftLockSweep.whyBaselineLeads(other, runs.get(key(other, 0.5, most)),
                    runs.get(key("shiftlock", 0.5, most))));
        }
        String setup = String.format(Locale.ROOT,
                settings.simModel(OwnTestbeds.SHIFTLOCK) + ", %s clients on %d CNs, %,d locks, Zipf %.2f, WI (50%% reads) and RI (95%%), cs 0, %s; "
                        + "%s; seed %d",
                clients[0] + " ... " + clients[clients.length - 1], SimMicrobench.TESTBED_COMPUTE_NODES, locks,
                SimMicrobench.ZIPF, ArtifactOptions.SETUP_NOTE,
                ShiftLockSweep.windows(settings, casWarmupNs, protocols.contains("cas")), settings.seed());
        return new ExperimentResult(NAME, reference(), description(), setup, tables, rows, d.toString(),
                System.nanoTime() - wallStart);
    }

    /** The fewest clients at which {@code goodput} reaches {@link #KNEE_SHARE} of its maximum. */
    static int knee(int[] clients, double[] goodput) {
        double peak = 0;
        for (double v : goodput) {
            peak = Math.max(peak, v);
        }
        for (int i = 0; i < goodput.length; i++) {
            if (goodput[i] >= KNEE_SHARE * peak) {
                return clients[i];
            }
        }
        return clients[clients.length - 1];
    }

    private double[] goodputs(Map<String, RunResult> runs, String protocol, double reads) {
        double[] g = new double[clients.length];
        for (int i = 0; i < clients.length; i++) {
            g[i] = runs.get(key(protocol, reads, clients[i])).goodput();
        }
        return g;
    }

    private String best(Map<String, RunResult> runs, double reads, int n) {
        String best = "-";
        double top = -1;
        for (String protocol : protocols) {
            double g = runs.get(key(protocol, reads, n)).goodput();
            if (!"shiftlock".equals(protocol) && g > top) {
                top = g;
                best = protocol;
            }
        }
        return best;
    }

    private double bestGoodput(Map<String, RunResult> runs, double reads, int n) {
        String b = best(runs, reads, n);
        return "-".equals(b) ? 0 : runs.get(key(b, reads, n)).goodput();
    }

    private static String key(String protocol, double reads, int clients) {
        return "Zipf " + SimMicrobench.workloadName(reads) + " " + clients + " clients " + protocol;
    }
}
