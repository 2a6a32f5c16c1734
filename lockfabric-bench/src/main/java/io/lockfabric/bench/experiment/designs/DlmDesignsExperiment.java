package io.lockfabric.bench.experiment.designs;

import io.lockfabric.bench.experiment.OwnTestbeds;
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
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.RpcTransport;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code report-fig1} and {@code report-fig3}: the report {@code rdma-dlm-designs-report}, Figures 1
 * and 3: lock throughput of the server-centric (centralized) lock manager over TCP/IP sockets ("TCP")
 * and over two-sided RDMA SEND/RECV ("S/R"), and (Figure 3) of the client-centric design ("Backoff",
 * §4: a 64-bit word per lock, exclusive by CAS, shared by FAA, retried after a backoff), (a) against the
 * number of clients with 100 items and (b) against the contention rate CR = 1 − N_item/N_client with
 * 40 clients.
 *
 * <p>On the simulator: the server-centric designs are our {@code rpc} protocol (the report's §3 design:
 * per-item FIFO queues, deferred grants) with the simulator's {@link RpcTransport#TCP} or
 * {@link RpcTransport#SEND_RECV} costs on every rpc message; the report's server has 40 cores
 * (§5: "a small cluster of 7 machines, each equipped with 40-core processors"), one thread per client
 * connection, so the simulated memory node gets 40 cores; its handler costs nothing beyond the
 * transport's per-message CPU (which already holds the report's whole per-message cost). The
 * client-centric design is {@code cas-rw} (the report's word layout and verbs) with the report's
 * backoff of 0 ("the back-off of 0 seconds gives the best result", §4.1), and {@code cas} with SMART's
 * truncated exponential backoff as a second client-centric series. Workload: uniform choice of item,
 * exclusive requests, lock then release at once (the report does not give a read share or a critical
 * section); 5 compute nodes (the report used 6 client machines; 5 divides 40).
 *
 * <p>The report's numbers (§3, Figure 1(a)): with 100 items, S/R "tops around at 1.4M locks per second"
 * and TCP "yields only about 40880 locks per second". Figure 3 has no numbers in the text: the
 * client-centric design "outperforms the server centric design, even with RDMA, by a huge margin".
 */
public final class DlmDesignsExperiment implements Experiment {
    /** Which figure. */
    public enum Panel {
        /** Figure 1: the server-centric design over TCP and over SEND/RECV. */
        FIG1("report-fig1", "Figure 1"),
        /** Figure 3: TCP, S/R and the client-centric (backoff) design. */
        FIG3("report-fig3", "Figure 3");

        final String experimentName;
        final String figure;

        Panel(String experimentName, String figure) {
            this.experimentName = experimentName;
            this.figure = figure;
        }
    }

    /** One series of the figures: a protocol with its options on a transport. */
    record Design(String label, String protocol, List<String> options, RpcTransport transport) {
    }

    static final Design TCP = new Design("TCP (rpc)", "rpc", List.of(), RpcTransport.TCP);
    static final Design SEND_RECV = new Design("S/R (rpc)", "rpc", List.of(), RpcTransport.SEND_RECV);
    static final Design BACKOFF = new Design("Backoff (cas-rw, 0 backoff)", "cas-rw",
            List.of("cas-rw.backoff-init-ns=0"), RpcTransport.NATIVE);
    static final Design CAS = new Design("cas (SMART backoff)", "cas", List.of(), RpcTransport.NATIVE);

    static final int[] CLIENTS = {5, 10, 20, 40, 80, 160};
    static final long ITEMS = 100;
    static final int CR_CLIENTS = 40;
    /** Contention rates of panel (b); N_item = 40 (1 − CR): 40, 30, 20, 10, 4, 1 items. */
    static final double[] CONTENTION = {0, 0.25, 0.5, 0.75, 0.9, 0.975};
    static final int COMPUTE_NODES = 5;
    /** §5: the server machine's 40 cores. */
    static final int SERVER_CORES = 40;
    static final long WARMUP_NS = 1_000_000L;
    static final long DURATION_NS = 4_000_000L;
    /** Report §3: S/R "tops around at 1.4M locks per second" with 100 items; compared at 40 clients, its setup. */
    static final double PAPER_SR_PEAK = 1.4e6;
    /** Report §3: TCP "yields only about 40880 locks per second" with 100 items. */
    static final double PAPER_TCP_PEAK = 40_880;
    private static final Band BAND = Band.relative(0.5);
    /** The case of the compared rows ({@code "100 items, 40 clients"}), group 1 the clients. */
    private static final String ROWS_CASE = ITEMS + " items, (\\d+) clients";

    private final Panel panel;
    private final int[] clients;
    private final double[] contention;

    /** The figure at its default scale. */
    public DlmDesignsExperiment(Panel panel) {
        this(panel, CLIENTS, CONTENTION);
    }

    /** A reduced run (tests): these client counts (multiples of 5) and contention rates. */
    DlmDesignsExperiment(Panel panel, int[] clients, double[] contention) {
        this.panel = panel;
        this.clients = clients.clone();
        this.contention = contention.clone();
    }

    @Override
    public String name() {
        return panel.experimentName;
    }

    @Override
    public String reference() {
        return "rdma-dlm-designs-report §3-5, " + panel.figure;
    }

    @Override
    public String description() {
        return (panel == Panel.FIG1 ? "centralized lock manager over TCP and over RDMA SEND/RECV"
                : "centralized lock manager (TCP, S/R) against the client-centric CAS/FAA design")
                + ": throughput against the clients (100 items) and against the contention rate (40 clients)";
    }

    List<Design> designs() {
        return panel == Panel.FIG1 ? List.of(TCP, SEND_RECV) : List.of(TCP, SEND_RECV, BACKOFF, CAS);
    }

    static String clientsTable(Panel panel) {
        return "throughput, Mlocks/s, against the clients, 100 items (" + panel.figure + "(a))";
    }

    static String contentionTable(Panel panel) {
        return "throughput, Mlocks/s, against the contention rate, 40 clients (" + panel.figure + "(b))";
    }

    @Override
    public List<Figure> figures() {
        String n = panel == Panel.FIG1 ? "Report Fig. 1" : "Report Fig. 3";
        return List.of(
                Figure.of("clients", n + "(a): throughput against the clients, 100 items", clientsTable(panel))
                        .xInRows("clients").y("throughput, Mlocks/s").logX().logY()
                        // the report's two stated numbers (§3), where the rows compare them
                        .paper(Figure.PaperSeries.points(SEND_RECV.label(), "S/R throughput", ROWS_CASE))
                        .paper(Figure.PaperSeries.points(TCP.label(), "TCP throughput", ROWS_CASE)).build(),
                Figure.of("contention", n + "(b): throughput against CR = 1 - items/clients, 40 clients",
                        contentionTable(panel)).xInRows("contention rate").y("throughput, Mlocks/s").only("\\(")
                        .logY().build());
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        List<Design> designs = designs();
        int total = designs.size() * (clients.length + contention.length);
        int done = 0;
        Map<String, RunResult> runs = new LinkedHashMap<>();
        for (int n : clients) {
            for (Design d : designs) {
                settings.progress(++done, total, d.label() + ", " + n + " clients, " + ITEMS + " items");
                runs.put(key(d, n, ITEMS), run(d, n, ITEMS, settings));
            }
        }
        for (double cr : contention) {
            long items = items(cr);
            for (Design d : designs) {
                settings.progress(++done, total, d.label() + ", CR " + cr + " (" + items + " items)");
                runs.computeIfAbsent(key(d, CR_CLIENTS, items), k -> run(d, CR_CLIENTS, items, settings));
            }
        }
        List<String> columns = new ArrayList<>();
        columns.add("clients");
        designs.forEach(d -> columns.add(d.label()));
        ExperimentTable.Builder a = new ExperimentTable.Builder(clientsTable(panel), columns.toArray(String[]::new));
        for (int n : clients) {
            List<String> row = new ArrayList<>();
            row.add(Integer.toString(n));
            designs.forEach(d -> row.add(mlocks(runs.get(key(d, n, ITEMS)).goodput())));
            a.row(row.toArray(String[]::new));
        }
        columns.set(0, "contention rate");
        columns.add(1, "items");
        ExperimentTable.Builder b = new ExperimentTable.Builder(contentionTable(panel),
                columns.toArray(String[]::new));
        for (double cr : contention) {
            long items = items(cr);
            List<String> row = new ArrayList<>();
            row.add(String.format(Locale.ROOT, "%.3f", cr).replaceAll("0+$", "").replaceAll("\\.$", ".0"));
            row.add(Long.toString(items));
            designs.forEach(d -> row.add(mlocks(runs.get(key(d, CR_CLIENTS, items)).goodput())));
            b.row(row.toArray(String[]::new));
        }
        int at = closest(CR_CLIENTS);
        double srPeak = runs.get(key(SEND_RECV, at, ITEMS)).goodput();
        double tcpPeak = runs.get(key(TCP, at, ITEMS)).goodput();
        String where = "100 items, " + at + " clients";
        List<ExperimentRow> rows = List.of(
                new ExperimentRow(where, "S/R throughput", PAPER_SR_PEAK / 1e6, srPeak / 1e6, "Mlocks/s", BAND),
                new ExperimentRow(where, "TCP throughput", PAPER_TCP_PEAK / 1e6, tcpPeak / 1e6, "Mlocks/s", BAND));
        String discussion = discussion(runs, designs, srPeak, tcpPeak, rows);
        String setup = String.format(Locale.ROOT,
                settings.simModel(OwnTestbeds.REPORT) + " but a %d-core memory node CPU and rpc transports tcp (%d ns server CPU and %d ns "
                        + "extra latency per message) and send-recv (%d ns, %d ns); %d CNs, clients %s with %d items "
                        + "and %d clients with %s items; uniform, exclusive, cs 0; measured %.0f ms after %.0f ms; "
                        + "seed %d",
                SERVER_CORES, RpcTransport.TCP.serverCpuNsPerMessage(), RpcTransport.TCP.extraOneWayNs(),
                RpcTransport.SEND_RECV.serverCpuNsPerMessage(), RpcTransport.SEND_RECV.extraOneWayNs(), COMPUTE_NODES,
                join(clients), ITEMS, CR_CLIENTS, itemsList(), settings.durationOr(DURATION_NS) / 1e6,
                settings.warmupOr(WARMUP_NS) / 1e6, settings.seed());
        return new ExperimentResult(name(), reference(), description(), setup, List.of(a.build(), b.build()), rows,
                discussion, System.nanoTime() - wallStart);
    }

    private String discussion(Map<String, RunResult> runs, List<Design> designs, double srPeak, double tcpPeak,
                              List<ExperimentRow> rows) {
        StringBuilder d = new StringBuilder();
        d.append(String.format(Locale.ROOT,
                "With 100 items and %d clients (the report's setup: its 40 clients; the text does not say at how "
                        + "many clients its curves top out) S/R runs %.2f Mlocks/s (report: 'tops around at 1.4M') and "
                        + "TCP %.3f (report: about 0.041): S/R leads TCP %.1fx (report: 34x). ",
                closest(CR_CLIENTS), srPeak / 1e6, tcpPeak / 1e6, tcpPeak == 0 ? 0 : srPeak / tcpPeak));
        boolean srAbove = true;
        for (int n : clients) {
            srAbove &= runs.get(key(SEND_RECV, n, ITEMS)).goodput() > runs.get(key(TCP, n, ITEMS)).goodput();
        }
        d.append(srAbove ? "S/R is above TCP at every client count, as in the report. "
                : "S/R is not above TCP at every client count, against the report. ");
        int first = clients[0];
        int last = clients[clients.length - 1];
        if (last > first) {
            double tcpGrowth = growth(runs, TCP, first, last);
            double srGrowth = growth(runs, SEND_RECV, first, last);
            double perRpcNs = 2.0 * RpcTransport.TCP.serverCpuNsPerMessage();
            d.append(String.format(Locale.ROOT,
                    "From %d to %d clients (%.0fx) TCP grows %.1fx and S/R %.1fx. The report's TCP 'tampers off "
                            + "quickly as the server's CPU is overloaded'; ours is bound by its latency (two kernel "
                            + "passes per message) until the %d cores' %.1f M rpcs/s (%.2f Mlocks/s) at %.0f ns of "
                            + "CPU per rpc, so it flattens only near that. ", first, last, (double) last / first,
                    tcpGrowth, srGrowth, SERVER_CORES, SERVER_CORES * 1e3 / perRpcNs, SERVER_CORES * 1e3 / perRpcNs / 2,
                    perRpcNs));
        }
        if (panel == Panel.FIG3) {
            int n = clients[clients.length - 1];
            double backoff = runs.get(key(BACKOFF, n, ITEMS)).goodput();
            double sr = runs.get(key(SEND_RECV, n, ITEMS)).goodput();
            double ratio = sr == 0 ? 0 : backoff / sr;
            d.append(String.format(Locale.ROOT,
                    "The client-centric design (cas-rw, backoff 0) runs %.2f Mlocks/s with %d clients on 100 items, "
                            + "%.1fx S/R: %s. ", backoff / 1e6, n, ratio,
                    backoff <= sr ? "not above S/R, against the report"
                            : ratio >= 2 ? "above both server-centric designs by a wide margin, as the report finds"
                            : "above both server-centric designs, the report's order, but not by its 'huge margin': "
                                    + "with few conflicts both take about two round trips per lock and release "
                                    + "(rpc: acquire and release rpcs; cas-rw: a CAS and a WRITE), and our S/R "
                                    + "server's CPU is cheap and far from busy"));
            double lastCr = contention[contention.length - 1];
            long few = items(lastCr);
            double bHigh = runs.get(key(BACKOFF, CR_CLIENTS, few)).goodput();
            double casHigh = runs.get(key(CAS, CR_CLIENTS, few)).goodput();
            double srHigh = runs.get(key(SEND_RECV, CR_CLIENTS, few)).goodput();
            d.append(String.format(Locale.ROOT,
                    "At CR %.3f (%d item%s for 40 clients) cas-rw with no backoff runs %.3f Mlocks/s, cas with its "
                            + "backoff %.3f and S/R %.3f: %s The report's text does not say how its Backoff curve "
                            + "behaves at high CR. ", lastCr, few, few == 1 ? "" : "s", bHigh / 1e6, casHigh / 1e6,
                    srHigh / 1e6, bHigh >= srHigh ? "the client-centric design keeps its lead."
                            : "here the server's FIFO queue hands a contended lock over in about one and a half round "
                                    + "trips while 40 clients retrying CAS at once queue on the lock's word at the "
                                    + "memory node's NIC, so the client-centric design falls below S/R."));
        }
        d.append(outside(rows)).append(' ');
        d.append("The order agrees (S/R far above TCP), the magnitudes do not: our TCP and S/R costs are the "
                + "report's stated per-message cost (10^4 cycles at 3 GHz, read from its '104 CPU cycles'; see "
                + "RpcTransport) and its kernel share (over 90%), on a 40-core server that is far from busy with 40 "
                + "clients, so both series are bound by latency, and our S/R round trip of a few microseconds gives "
                + "several Mlocks/s. The report's 1.4 M locks/s for 40 clients "
                + "means about 28 us per lock and release, and its 40 880 locks/s about 1 ms: costs its text does not "
                + "break down (a thread per connection, blocking waits, per-queue mutexes, possibly Nagle and delayed "
                + "ACKs on the sockets), which we do not model and do not fit. The TCP/S-R ratio is the part the "
                + "per-message costs explain, and it is the report's direction, smaller than its 34x.");
        return d.toString();
    }

    private static double growth(Map<String, RunResult> runs, Design d, int from, int to) {
        double a = runs.get(key(d, from, ITEMS)).goodput();
        return a == 0 ? 0 : runs.get(key(d, to, ITEMS)).goodput() / a;
    }

    private int closest(int target) {
        int best = clients[0];
        for (int n : clients) {
            if (Math.abs(n - target) < Math.abs(best - target)) {
                best = n;
            }
        }
        return best;
    }

    /** N_item = 40 (1 − CR), rounded, at least 1. */
    static long items(double cr) {
        return Math.max(1, Math.round(CR_CLIENTS * (1 - cr)));
    }

    /** One run on a fresh simulated cluster with {@code design}'s transport. */
    static RunResult run(Design design, int clients, long items, ExperimentSettings settings) {
        int cns = clients % COMPUTE_NODES == 0 ? COMPUTE_NODES : 1;
        SimConfig cluster = settings.onTestbed(OwnTestbeds.REPORT, SimConfig.defaults().toBuilder()).computeNodes(cns).clientsPerComputeNode(clients / cns)
                .mnCpuCores(SERVER_CORES).rpcServiceNs(0).rpcTransport(design.transport()).seed(settings.seed())
                .build();
        PointWorkload workload = PointWorkload.builder().clients(clients).locks(items).zipf(0).readRatio(0).cs(0)
                .warmupNs(settings.warmupOr(WARMUP_NS)).durationNs(settings.durationOr(DURATION_NS))
                .seed(settings.seed()).options(ProtocolOptions.parse(design.options())).build();
        try (SimFabric fabric = new SimFabric(cluster)) {
            return new Runner(new SimDriver(fabric), false, settings.progressOut())
                    .run(LockProtocols.byName(design.protocol()), workload);
        }
    }

    private static String key(Design d, int clients, long items) {
        return d.label() + " " + clients + " clients " + items + " items";
    }

    static String mlocks(double perSecond) {
        return String.format(Locale.ROOT, perSecond >= 1e6 ? "%.2f" : "%.3f", perSecond / 1e6);
    }

    private static String join(int[] values) {
        List<String> s = new ArrayList<>();
        for (int v : values) {
            s.add(Integer.toString(v));
        }
        return String.join(", ", s);
    }

    private String itemsList() {
        List<String> s = new ArrayList<>();
        for (double cr : contention) {
            s.add(Long.toString(items(cr)));
        }
        return String.join(", ", s);
    }

    static String outside(List<ExperimentRow> rows) {
        List<ExperimentRow> out = rows.stream().filter(r -> !r.withinBand()).toList();
        if (out.isEmpty()) {
            return "Every compared number is within its band.";
        }
        return "Outside their bands: " + String.join("; ", out.stream().map(r -> String.format(Locale.ROOT,
                "%s (paper %.3f, ours %.3f %s)", r.metric(), r.paper(), r.sim(), r.unit())).toList()) + ".";
    }
}
