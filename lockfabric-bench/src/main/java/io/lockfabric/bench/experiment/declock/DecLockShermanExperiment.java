package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.btree.BTreeMix;
import io.lockfabric.bench.btree.BTreeWorkload;
import io.lockfabric.bench.experiment.ArtifactOptions;
import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.apps.btree.BTreeLocks;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code declock-fig17-sherman}: DecLock §6.5, Figure 17 (right): Sherman's B+-tree index with
 * DecLock against Sherman's own hierarchical lock ({@code sherman}) and Sherman without it
 * ({@code sherman-nh}, the remote CAS lock alone), as compute nodes grow to 32 with 16 clients each
 * (512 clients), under Update-Only, Update-Heavy and Search-Mostly on Zipfian keys
 * ({@link BTreeWorkload}: the tree's nodes on the memory node, Sherman's index cache, every key
 * loaded). The paper gives its plot as ratios in the text: DecLock up to 2.31x Sherman and 27.71x
 * Sherman-NH, p99 up to 82.1% and 97.6% lower; Sherman-NH collapses after its peak under the update
 * workloads, Sherman beyond 16 CNs; under Search-Mostly all three are alike (searches take no lock).
 * The right panel of {@code declock-fig17} ({@link DecLockObjectStoreExperiment} runs it after the
 * object store); not registered on its own. On the paper's testbed: the memory node's port is one
 * 100 Gb/s link per direction ({@code SimConfig.DECLOCK_TESTBED_MN_LINK_GBPS}).
 */
public final class DecLockShermanExperiment implements Experiment {
    /** Its name as a panel (its result's name when run alone, as tests do). */
    public static final String NAME = "declock-fig17-sherman";
    /** Sherman, Sherman-NH and DecLock (its phase-fair variant, as the paper ran it). */
    static final List<String> LOCKS = List.of("sherman", "sherman-nh", "declock");
    static final int[] PAPER_CNS = {1, 2, 4, 8, 16, 32};
    static final int PAPER_CLIENTS_PER_CN = 16;
    /**
     * Keys, all bulk-loaded by client 0 in the warmup (DecLock does not give Sherman's key space; a
     * million keys take longer than the warmup to load on the simulated NIC, while the other clients
     * wait, so the runs use 100 000: a four-level tree at fan-out 32, the hot keys Zipf 0.99 alike).
     */
    static final long KEYS = 100_000L;
    private static final long WARMUP_NS = 1_000_000L;
    private static final long DURATION_NS = 2_000_000L;
    private static final Band RATIO_BAND = Band.relative(0.5);
    private static final Band SHARE_BAND = Band.absolute(25);

    private final int[] cns;
    private final int clientsPerCn;
    private final long keys;

    /** The paper's scale: 1 to 32 CNs x 16 clients, {@value #KEYS} keys. */
    public DecLockShermanExperiment() {
        this(PAPER_CNS, PAPER_CLIENTS_PER_CN, KEYS);
    }

    /** Another scale (a fast test's): {@code cns} compute nodes of {@code clientsPerCn}, {@code keys} keys. */
    public DecLockShermanExperiment(int[] cns, int clientsPerCn, long keys) {
        this.cns = cns.clone();
        this.clientsPerCn = clientsPerCn;
        this.keys = keys;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "DecLock §6.5, Figure 17 (right: Sherman)";
    }

    @Override
    public String description() {
        return "Sherman's B+-tree (nodes on the memory node) with DecLock, Sherman's hierarchical lock and Sherman-NH, "
                + "1..32 CNs x 16 clients, Update-Only / Update-Heavy / Search-Mostly, Zipf 0.99";
    }

    private static String key(BTreeMix mix, String lock, int cn) {
        return mix.label() + " " + lock + " " + cn;
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        Map<String, RunResult> runs = new LinkedHashMap<>();
        int total = BTreeMix.values().length * LOCKS.size() * cns.length;
        int done = 0;
        for (BTreeMix mix : BTreeMix.values()) {
            for (int cn : cns) {
                for (String lock : LOCKS) {
                    settings.progress(++done, total, key(mix, lock, cn) + " CNs");
                    runs.put(key(mix, lock, cn), run(settings, mix, lock, cn));
                }
            }
        }
        List<ExperimentTable> tables = new ArrayList<>();
        String[] columns = new String[cns.length + 1];
        columns[0] = "workload / lock";
        for (int i = 0; i < cns.length; i++) {
            columns[i + 1] = cns[i] + "x" + clientsPerCn;
        }
        ExperimentTable.Builder goodput = new ExperimentTable.Builder("goodput, Mops/s (CNs x clients)", columns);
        ExperimentTable.Builder p99 = new ExperimentTable.Builder("operation latency p99, us", columns);
        ExperimentTable.Builder ops = new ExperimentTable.Builder(
                "memory-node verbs per operation / lock retries per update", columns);
        ExperimentTable.Builder nic = new ExperimentTable.Builder(
                "MN NIC units busy % / MN link out % / in %", columns);
        for (BTreeMix mix : BTreeMix.values()) {
            for (String lock : LOCKS) {
                List<String> g = new ArrayList<>(List.of(mix.label() + " " + lock));
                List<String> l = new ArrayList<>(List.of(mix.label() + " " + lock));
                List<String> o = new ArrayList<>(List.of(mix.label() + " " + lock));
                List<String> n = new ArrayList<>(List.of(mix.label() + " " + lock));
                for (int cn : cns) {
                    RunResult r = runs.get(key(mix, lock, cn));
                    g.add(String.format(Locale.ROOT, "%.3f", r.goodput() / 1e6));
                    l.add(String.format(Locale.ROOT, "%.1f", r.operationLatency().p99Us()));
                    long updates = r.kind(BTreeWorkload.UPDATE).operations();
                    o.add(String.format(Locale.ROOT, "%.2f / %.2f", r.lockOpsPerCycle().oneSided(),
                            updates == 0 ? 0 : (double) r.retries() / updates));
                    n.add(r.nic() == null ? "-" : String.format(Locale.ROOT, "%.0f%% / %.0f%% / %.0f%%",
                            100 * r.nic().queueing().unitBusyFraction(), 100 * r.nic().queueing().linkOutboundBusyFraction(),
                            100 * r.nic().queueing().linkInboundBusyFraction()));
                }
                goodput.row(g.toArray(String[]::new));
                p99.row(l.toArray(String[]::new));
                ops.row(o.toArray(String[]::new));
                nic.row(n.toArray(String[]::new));
            }
        }
        tables.add(goodput.build());
        tables.add(p99.build());
        tables.add(ops.build());
        tables.add(nic.build());
        List<ExperimentRow> rows = new ArrayList<>();
        rows.add(new ExperimentRow("max over CNs and workloads", "goodput DecLock / Sherman", 2.31,
                maxRatio(runs, "declock", "sherman"), "x", RATIO_BAND));
        rows.add(new ExperimentRow("max over CNs and workloads", "goodput DecLock / Sherman-NH", 27.71,
                maxRatio(runs, "declock", "sherman-nh"), "x", RATIO_BAND));
        rows.add(new ExperimentRow("max over CNs and workloads", "p99 lower than Sherman by", 82.1,
                maxP99Cut(runs, "sherman"), "%", SHARE_BAND));
        rows.add(new ExperimentRow("max over CNs and workloads", "p99 lower than Sherman-NH by", 97.6,
                maxP99Cut(runs, "sherman-nh"), "%", SHARE_BAND));
        rows.add(new ExperimentRow("search-mostly, " + cns[cns.length - 1] + " CNs", "goodput DecLock / Sherman", 1.0,
                ratio(runs, BTreeMix.SEARCH_MOSTLY, "declock", "sherman", cns[cns.length - 1]), "x", RATIO_BAND));
        String setup = String.format(Locale.ROOT, settings.simModel(OwnTestbeds.DECLOCK) + ", %s CNs x %d clients, %,d keys all loaded, fan-out 32, "
                        + "Zipf 0.99, index cache on, unchecked; declock = declock-pf, cns = the run's CNs, timeout-ns=%s; "
                        + "measured %.1f ms after %.1f ms; seed %d",
                java.util.Arrays.toString(cns), clientsPerCn, keys, DecLockMicrobench.DECLOCK_TIMEOUT,
                settings.durationOr(DURATION_NS) / 1e6, settings.warmupOr(WARMUP_NS) / 1e6, settings.seed());
        return new ExperimentResult(NAME, reference(), description(), setup, tables, rows, discussion(runs),
                System.nanoTime() - wallStart);
    }

    private RunResult run(ExperimentSettings settings, BTreeMix mix, String lock, int cn) {
        SimConfig cluster = settings.onTestbed(OwnTestbeds.DECLOCK, SimConfig.defaults().toBuilder()).computeNodes(cn).clientsPerComputeNode(clientsPerCn)
                .seed(settings.seed()).mnLinkGbps(SimConfig.DECLOCK_TESTBED_MN_LINK_GBPS).build();
        String protocol = BTreeLocks.protocolName(lock);
        List<String> options = new ArrayList<>();
        if (DecLockMicrobench.hasOption(protocol, DecLockMicrobench.CNS_OPTION)) {
            ArtifactOptions.addUnlessSet(options, protocol, DecLockMicrobench.CNS_OPTION, Integer.toString(cn));
        }
        if (DecLockMicrobench.hasOption(protocol, DecLockMicrobench.TIMEOUT_OPTION)) {
            ArtifactOptions.addUnlessSet(options, protocol, DecLockMicrobench.TIMEOUT_OPTION,
                    DecLockMicrobench.DECLOCK_TIMEOUT);
        }
        BTreeWorkload workload = BTreeWorkload.of(mix, keys, new Phases(cluster.clients(),
                        settings.durationOr(DURATION_NS), 0, settings.warmupOr(WARMUP_NS), settings.seed()))
                .withOptions(ProtocolOptions.parse(ArtifactOptions.decLock(protocol, options)));
        try (SimFabric fabric = new SimFabric(cluster)) {
            return new Runner(new SimDriver(fabric), false, settings.progressOut()).run(lock, workload);
        }
    }

    private double ratio(Map<String, RunResult> runs, BTreeMix mix, String a, String b, int cn) {
        double d = runs.get(key(mix, b, cn)).goodput();
        return d == 0 ? 0 : runs.get(key(mix, a, cn)).goodput() / d;
    }

    private double maxRatio(Map<String, RunResult> runs, String a, String b) {
        double max = 0;
        for (BTreeMix mix : BTreeMix.values()) {
            for (int cn : cns) {
                max = Math.max(max, ratio(runs, mix, a, b, cn));
            }
        }
        return max;
    }

    /** The largest cut of DecLock's p99 against {@code other}'s, in percent. */
    private double maxP99Cut(Map<String, RunResult> runs, String other) {
        double max = 0;
        for (BTreeMix mix : BTreeMix.values()) {
            for (int cn : cns) {
                double theirs = runs.get(key(mix, other, cn)).operationLatency().p99Us();
                double ours = runs.get(key(mix, "declock", cn)).operationLatency().p99Us();
                if (theirs > 0) {
                    max = Math.max(max, 100 * (1 - ours / theirs));
                }
            }
        }
        return max;
    }

    private String discussion(Map<String, RunResult> runs) {
        StringBuilder sb = new StringBuilder();
        int last = cns[cns.length - 1];
        for (BTreeMix mix : List.of(BTreeMix.UPDATE_ONLY, BTreeMix.UPDATE_HEAVY)) {
            for (String lock : LOCKS) {
                double peak = 0;
                int peakAt = cns[0];
                for (int cn : cns) {
                    double g = runs.get(key(mix, lock, cn)).goodput();
                    if (g > peak) {
                        peak = g;
                        peakAt = cn;
                    }
                }
                double end = runs.get(key(mix, lock, last)).goodput();
                sb.append(String.format(Locale.ROOT, "%s %s peaks at %.3f Mops/s with %d CNs and ends at %.3f with %d "
                                + "(%.0f%% of its peak, %.2f retries per update). ", mix.label(), lock, peak / 1e6, peakAt,
                        end / 1e6, last, peak == 0 ? 0 : 100 * end / peak, retriesPerUpdate(runs.get(key(mix, lock, last)))));
            }
        }
        sb.append(String.format(Locale.ROOT, "Under search-mostly DecLock runs at %.2fx Sherman with %d CNs: searches "
                + "take no lock, as the paper says. ", ratio(runs, BTreeMix.SEARCH_MOSTLY, "declock", "sherman", last), last));
        sb.append("What differs from the paper's testbed: the simulator's memory-node NIC serves verbs at a fixed "
                + "rate and serializes atomics on one word, so Sherman-NH's CAS retries on the hottest leaves' locks "
                + "occupy it as on the ConnectX NIC; Sherman keeps its locks in the NIC's on-chip memory, which the "
                + "simulator does not model apart (its lock words are memory-node words like the nodes); our leaves "
                + "are written whole (no per-entry versions) and an update READs its leaf twice (lock-free to find "
                + "it, again under its lock); the paper's clients are coroutines on 16-core CNs, ours each have a "
                + "queue pair and no CPU contention. So compare the ratios and the shapes, not the rates.");
        return sb.toString();
    }

    private static double retriesPerUpdate(RunResult r) {
        long updates = r.kind(BTreeWorkload.UPDATE).operations();
        return updates == 0 ? 0 : (double) r.retries() / updates;
    }
}
