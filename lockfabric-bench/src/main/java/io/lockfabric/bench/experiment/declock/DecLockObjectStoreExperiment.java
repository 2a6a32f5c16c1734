package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.apps.objstore.ObjectTrace;
import io.lockfabric.bench.NicProbe;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.objstore.ObjectStoreReport;
import io.lockfabric.bench.objstore.ObjectStoreWorkload;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code declock-fig17}: DecLock §6.6, Figure 17 (left), the object store: throughput and p99 of
 * gets and sets as clients grow, for CASLock ({@code cas}), DSLR ({@code dslr}), ShiftLock and
 * DecLock (its phase-fair variant, as the paper runs both applications), on both Twitter traces
 * (small: 414 B, 65% gets; large: 9 213 B, 89% gets), on the simulated testbed (up to 8 CNs × 32
 * clients, one MN). The store's values live on the memory node and are READ and WRITTEN whole under
 * their object's lock ({@link ObjectStoreWorkload}); every get is checked whole.
 *
 * <p>The paper gives its plot's values only as ratios in the text: DecLock reaches up to 35.60× the
 * throughput of CASLock, 3.33× DSLR+'s and 1.48× ShiftLock's, and cuts p99 by up to 98.8%, 30.3%
 * and 79.7%. It does not give the object count or θ: {@value #OBJECTS} objects (about 95 MB of
 * values on the large trace) and Zipf {@value ObjectTrace#DEFAULT_THETA}, its microbenchmark's.
 * Each run also reports the memory node's NIC utilisation over the measured phase (the simulator's
 * {@link NicProbe}), which is what the paper says explains the collapse.
 *
 * <p>Built to be merged with the Sherman panel: {@link #panel} returns this panel's tables, rows
 * (cases named {@code objstore <trace> ...}) and discussion, which a combined experiment appends to
 * its own; {@link #cluster} is the one place the simulated testbed is made (where a NIC bandwidth
 * model would be switched on).
 */
public final class DecLockObjectStoreExperiment implements Experiment {
    public static final String NAME = "declock-fig17";
    /** Fig. 17's lock mechanisms: CASLock, DSLR, ShiftLock, DecLock (phase-fair, as §6.6 runs it). */
    static final List<String> PROTOCOLS = List.of("cas", DecLockMicrobench.DSLR, DecLockMicrobench.SHIFTLOCK,
            DecLockMicrobench.DECLOCK_PF);
    static final String DECLOCK = DecLockMicrobench.DECLOCK_PF;
    static final long OBJECTS = 10_000;
    /** (CNs, clients per CN): one CN, then scaling out to the testbed's 8. */
    static final int[][] POINTS = {{1, 8}, {1, 32}, {2, 32}, {4, 32}, {8, 32}};
    /** Long enough for the bulk load of the small trace's 10 000 objects (4 MB) before measuring. */
    private static final long WARMUP_NS = 10_000_000L;
    /**
     * The large trace's warmup: its 10 000 objects are about 95 MB, which client 0 WRITEs in 256 KiB
     * pieces one after another over the memory node's 100 Gb/s link (about 15 ms of virtual time, each
     * piece also holding a NIC unit for its bytes), so the measured phase starts after the load.
     */
    private static final long LARGE_WARMUP_NS = 30_000_000L;
    private static final long DURATION_NS = 5_000_000L;
    private static final Band RATIO_BAND = Band.relative(0.5);
    private static final Band P99_BAND = Band.absolute(25);

    private final long objects;
    private final int[][] points;
    /** The right half of Fig. 17, run after the object store; null for the object-store panel alone. */
    private final DecLockShermanExperiment sherman;

    /** Both halves of Fig. 17 at the paper's scale: the object store, then the Sherman B+-tree. */
    public DecLockObjectStoreExperiment() {
        this(OBJECTS, POINTS, new DecLockShermanExperiment());
    }

    /** A reduced scale (tests): fewer objects, other points, the object-store panel alone. */
    DecLockObjectStoreExperiment(long objects, int[][] points) {
        this(objects, points, null);
    }

    /** A reduced scale with a Sherman panel of its own (or none: null). */
    DecLockObjectStoreExperiment(long objects, int[][] points, DecLockShermanExperiment sherman) {
        this.objects = objects;
        this.points = points;
        this.sherman = sherman;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return sherman == null ? "DecLock §6.6, Figure 17 (left: object store)"
                : "DecLock §6.6, Figure 17 (left: object store; right: Sherman B+-tree)";
    }

    @Override
    public String description() {
        return "object store on the Twitter traces (small 414 B / 65% gets, large 9 213 B / 89% gets), " + objects
                + " objects, Zipf 0.99, clients 1x8 .. 8x32: throughput, p99 and MN NIC utilisation of "
                + String.join(", ", PROTOCOLS) + (sherman == null ? "" : "; then " + sherman.description());
    }

    @Override
    public boolean selectsProtocols() {
        return true;
    }

    /** This panel's measurements and comparisons, for this experiment or a combined Fig. 17. */
    public record Panel(String setup, List<ExperimentTable> tables, List<ExperimentRow> rows, String discussion) {
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        Panel p = panel(settings);
        if (sherman == null) {
            return new ExperimentResult(NAME, reference(), description(), p.setup(), p.tables(), p.rows(), p.discussion(),
                    System.nanoTime() - wallStart);
        }
        ExperimentResult tree = sherman.run(settings);
        List<ExperimentTable> tables = new ArrayList<>(p.tables());
        for (ExperimentTable t : tree.tables()) {
            tables.add(new ExperimentTable(SHERMAN_TABLES + t.title(), t.columns(), t.cells()));
        }
        List<ExperimentRow> rows = new ArrayList<>(p.rows());
        rows.addAll(tree.rows());
        return new ExperimentResult(NAME, reference(), description(),
                "object store: " + p.setup() + "\nSherman B+-tree: " + tree.setup(), tables, rows,
                "Object store. " + p.discussion() + "\n\nSherman B+-tree. " + tree.discussion(), System.nanoTime() - wallStart);
    }

    /** The title prefix of the Sherman panel's tables in the combined result. */
    static final String SHERMAN_TABLES = "Sherman B+-tree, ";

    /** Fig. 17's panels: throughput and p99 against clients per trace; the B+-tree's goodput and p99 per workload. */
    @Override
    public List<io.lockfabric.bench.experiment.Figure> figures() {
        List<io.lockfabric.bench.experiment.Figure> out = new ArrayList<>();
        for (String trace : List.of("small", "large")) {
            out.add(io.lockfabric.bench.experiment.Figure.of("objstore-" + trace + "-throughput",
                            "DecLock Fig. 17 (left): object store, " + trace + " trace, throughput",
                            "object store, " + trace + " trace: throughput")
                    .xInColumns("CNs x clients per CN").y("throughput, Kops/s").lines().build());
            out.add(io.lockfabric.bench.experiment.Figure.of("objstore-" + trace + "-p99",
                            "DecLock Fig. 17 (left): object store, " + trace + " trace, p99 latency",
                            "object store, " + trace + " trace: operation latency p99")
                    .xInColumns("CNs x clients per CN").y("p99, us (log)").logY().lines().build());
        }
        if (sherman != null) {
            for (String mix : List.of("update-only", "update-heavy", "search-mostly")) {
                out.add(io.lockfabric.bench.experiment.Figure.of("sherman-" + mix,
                                "DecLock Fig. 17 (right): Sherman B+-tree, " + mix + ", goodput", SHERMAN_TABLES + "goodput")
                        .xInColumns("CNs x clients per CN").y("goodput, Mops/s").only("^" + mix + " ").lines().build());
            }
        }
        return out;
    }

    /** The simulated testbed of {@code cns} × {@code perCn} clients and one memory node. */
    static SimConfig cluster(int cns, int perCn, ExperimentSettings settings) {
        long seed = settings.seed();
        return settings.onTestbed(OwnTestbeds.DECLOCK, SimConfig.defaults().toBuilder()).computeNodes(cns).clientsPerComputeNode(perCn).seed(seed)
                .mnLinkGbps(SimConfig.DECLOCK_TESTBED_MN_LINK_GBPS).build();
    }

    /** Runs every (trace, point, protocol) and compares with the paper. */
    public Panel panel(ExperimentSettings settings) {
        List<String> protocols = DecLockMicrobench.availableOf(settings.protocols().isEmpty() ? PROTOCOLS
                : settings.protocols());
        List<ObjectTrace> traces = List.of(ObjectTrace.small(objects, ObjectTrace.DEFAULT_THETA),
                ObjectTrace.large(objects, ObjectTrace.DEFAULT_THETA));
        long warmup = settings.warmupOr(WARMUP_NS);
        long largeWarmup = settings.warmupOr(LARGE_WARMUP_NS);
        long duration = settings.durationOr(DURATION_NS);
        Map<String, RunResult> runs = new LinkedHashMap<>();
        Map<String, double[]> nic = new LinkedHashMap<>();
        int total = traces.size() * points.length * protocols.size();
        int done = 0;
        for (ObjectTrace t : traces) {
            for (int[] point : points) {
                for (String protocol : protocols) {
                    String key = key(t, protocol, point);
                    settings.progress(++done, total, "objstore " + key);
                    SimConfig cluster = cluster(point[0], point[1], settings);
                    ObjectStoreWorkload w = new ObjectStoreWorkload(new Phases(cluster.clients(), duration, 0,
                            t == traces.getLast() ? largeWarmup : warmup,
                            settings.seed()), t, false, true, ProtocolOptions.parse(runOptions(protocol, point[0])));
                    try (SimFabric fabric = new SimFabric(cluster)) {
                        RunResult r = new Runner(new SimDriver(fabric), false, settings.progressOut())
                                .run(LockProtocols.byName(protocol), w);
                        runs.put(key, r);
                        nic.put(key, r.nic() == null ? new double[] {Double.NaN, Double.NaN, Double.NaN}
                                : new double[] {r.nic().queueing().unitBusyFraction(),
                                        r.nic().queueing().linkOutboundBusyFraction(),
                                        r.nic().queueing().linkInboundBusyFraction()});
                    }
                }
            }
        }
        List<ExperimentTable> tables = new ArrayList<>();
        String[] columns = columns();
        for (ObjectTrace t : traces) {
            ExperimentTable.Builder goodput = new ExperimentTable.Builder("object store, " + t.name()
                    + " trace: throughput, Kops/s", columns);
            ExperimentTable.Builder p99 = new ExperimentTable.Builder("object store, " + t.name()
                    + " trace: operation latency p99, us", columns);
            ExperimentTable.Builder util = new ExperimentTable.Builder("object store, " + t.name()
                    + " trace: MN NIC units busy % / MN link out % / in % / lock verbs per op / retries per op", columns);
            for (String protocol : protocols) {
                List<String> g = new ArrayList<>(List.of(protocol));
                List<String> l = new ArrayList<>(List.of(protocol));
                List<String> u = new ArrayList<>(List.of(protocol));
                for (int[] point : points) {
                    RunResult r = runs.get(key(t, protocol, point));
                    g.add(String.format(Locale.ROOT, "%.1f", r.goodput() / 1e3));
                    l.add(DecLockMicrobench.f1(r.operationLatency().p99Us()));
                    double[] n = nic.get(key(t, protocol, point));
                    u.add(String.format(Locale.ROOT, "%.0f%% / %.0f%% / %.0f%% / %.2f / %.2f", 100 * n[0], 100 * n[1],
                            100 * n[2], r.lockOpsPerCycle().oneSided(), DecLockMicrobench.retriesPerOp(r)));
                }
                goodput.row(g.toArray(String[]::new));
                p99.row(l.toArray(String[]::new));
                util.row(u.toArray(String[]::new));
            }
            tables.add(goodput.build());
            tables.add(p99.build());
            tables.add(util.build());
        }
        List<ExperimentRow> rows = new ArrayList<>();
        if (protocols.contains(DECLOCK)) {
            Object[][] paper = {{"cas", "CASLock", 35.60, 98.8}, {DecLockMicrobench.DSLR, "DSLR+", 3.33, 30.3},
                    {DecLockMicrobench.SHIFTLOCK, "ShiftLock", 1.48, 79.7}};
            for (Object[] p : paper) {
                String other = (String) p[0];
                if (!protocols.contains(other)) {
                    continue;
                }
                rows.add(new ExperimentRow("objstore, max over traces and clients", "throughput DecLock / " + p[1],
                        (Double) p[2], maxRatio(runs, traces, other), "x", RATIO_BAND));
                rows.add(new ExperimentRow("objstore, max over traces and clients", "p99 DecLock lower than " + p[1]
                        + " by", (Double) p[3], maxP99Cut(runs, traces, other), "%", P99_BAND));
            }
        }
        String setup = String.format(Locale.ROOT, "simulated testbed: %s clients (CNs x clients per CN), 1 MN; %d objects, "
                        + "Zipf %.2f; %s warmup (%s on the large trace; client 0 bulk-loads the objects) + %s measured, virtual; "
                        + "seed %d; every get "
                        + "verified whole", String.join(", ", List.of(columns).subList(1, columns.length)), objects,
                ObjectTrace.DEFAULT_THETA, io.lockfabric.fabric.Durations.format(warmup),
                io.lockfabric.fabric.Durations.format(largeWarmup),
                io.lockfabric.fabric.Durations.format(duration), settings.seed());
        return new Panel(setup, tables, rows, discussion(runs, nic, traces, protocols));
    }

    /** The options a run uses: the microbenchmark's (queue sized by the CNs, DecLock's timeout, artifacts'). */
    static List<String> runOptions(String protocol, int cns) {
        return new DecLockMicrobench(protocol, List.of(), 0.5, ObjectTrace.DEFAULT_THETA, 1, cns, 1, 0, 0, 1, 1, 0)
                .runOptions();
    }

    private String discussion(Map<String, RunResult> runs, Map<String, double[]> nic, List<ObjectTrace> traces,
                              List<String> protocols) {
        StringBuilder sb = new StringBuilder(DecLockMicrobench.missingNote(PROTOCOLS));
        int[] full = points[points.length - 1];
        long torn = runs.values().stream().mapToLong(ObjectStoreReport::torn).sum();
        long gets = runs.values().stream().mapToLong(ObjectStoreReport::getsVerified).sum();
        sb.append(String.format(Locale.ROOT, "%,d gets verified whole over all runs, %d torn. ", gets, torn));
        long empty = runs.values().stream().filter(r -> r.goodput() == 0).count();
        if (empty > 0) {
            sb.append(String.format(Locale.ROOT, "%d of %d runs measured no operation: the bulk load outlasted the "
                    + "warmup (give a longer --warmup). ", empty, runs.size()));
        }
        for (ObjectTrace t : traces) {
            for (String protocol : protocols) {
                double peak = 0;
                for (int[] point : points) {
                    peak = Math.max(peak, runs.get(key(t, protocol, point)).goodput());
                }
                RunResult last = runs.get(key(t, protocol, full));
                double[] n = nic.get(key(t, protocol, full));
                sb.append(String.format(Locale.ROOT, "%s %s: peak %.0f Kops/s, %.0f at %s (%.0f%% of peak), MN NIC units "
                                + "%.0f%% busy, link out %.0f%%, %.2f lock verbs and %.2f retries per op. ", t.name(), protocol,
                        peak / 1e3, last.goodput() / 1e3, label(full), peak == 0 ? 0 : 100 * last.goodput() / peak,
                        100 * n[0], 100 * n[1], last.lockOpsPerCycle().oneSided(),
                        DecLockMicrobench.retriesPerOp(last)));
            }
        }
        sb.append("The memory node's port is modelled as the paper's 100 Gb/s link, one per direction shared by every "
                + "verb (SimConfig.DECLOCK_TESTBED_MN_LINK_GBPS, InfiniBand headers): the large trace's READ responses "
                + "queue on the outbound link, so 'link out' near 100% is the bandwidth wall; 'units' is the NIC's "
                + "processing units' busy time, which is what lock retries on a hot word use. The paper gives no object count and "
                + "no Zipf skew for the store; ours are 10 000 objects and 0.99. Its DSLR+ is DSLR with truncated "
                + "exponential backoff; ours is DSLR with the authors' dynamic waiting interval.");
        return sb.toString();
    }

    private double maxRatio(Map<String, RunResult> runs, List<ObjectTrace> traces, String other) {
        double max = 0;
        for (ObjectTrace t : traces) {
            for (int[] point : points) {
                double d = runs.get(key(t, other, point)).goodput();
                if (d > 0) {
                    max = Math.max(max, runs.get(key(t, DECLOCK, point)).goodput() / d);
                }
            }
        }
        return max;
    }

    private double maxP99Cut(Map<String, RunResult> runs, List<ObjectTrace> traces, String other) {
        double max = 0;
        for (ObjectTrace t : traces) {
            for (int[] point : points) {
                double theirs = runs.get(key(t, other, point)).operationLatency().p99Us();
                double ours = runs.get(key(t, DECLOCK, point)).operationLatency().p99Us();
                if (theirs > 0) {
                    max = Math.max(max, 100 * (1 - ours / theirs));
                }
            }
        }
        return max;
    }

    private String[] columns() {
        List<String> c = new ArrayList<>(List.of("protocol"));
        for (int[] point : points) {
            c.add(label(point));
        }
        return c.toArray(String[]::new);
    }

    static String label(int[] point) {
        return point[0] + "x" + point[1];
    }

    private static String key(ObjectTrace t, String protocol, int[] point) {
        return t.name() + " " + label(point) + " " + protocol;
    }
}
