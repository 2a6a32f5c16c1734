package io.lockfabric.cli;

import io.lockfabric.apps.btree.BTreeLocks;
import io.lockfabric.apps.btree.ShermanLock;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.btree.BTreeMix;
import io.lockfabric.bench.btree.BTreeWorkload;
import io.lockfabric.fabric.Durations;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code lockfabric btree}: Sherman's B+-tree index with its nodes on the memory node
 * ({@link io.lockfabric.apps.btree.BTreeClient}), under one of Sherman's workloads, one run per node
 * lock variant on a fresh fabric, then one report ({@link BTreeWorkload}); every run is checked
 * (node lock history, full scan against the counted increments, structure) unless {@code --no-check}.
 */
@Command(name = "btree", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Run Sherman's B+-tree index (SIGMOD'22; DecLock s6) with its nodes on the memory node, under one of "
                        + "Sherman's workloads, once per node lock variant.",
                "Each client repeatedly picks a key of [0, --keys) by Zipf --zipf and updates it (a read-modify-write "
                        + "increment under the leaf's lock) or searches it (lock-free, validated by node versions). "
                        + "Client 0 first bulk-loads the tree (every --load-every-th key).",
                "Reports goodput, the updates' and searches' goodput and latency, memory-node operations per "
                        + "operation, lock retries and local handovers per update. Every run is checked: node lock "
                        + "history, then a full scan must hold every key with its number of increments and the "
                        + "structure must check out (sorted, siblings linked, fan-out bounds, every leaf reachable); "
                        + "a violation exits 1."})
final class BTreeCommand implements Callable<Integer> {
    private static final int DEFAULT_CLIENTS = 8;
    private static final long DEFAULT_KEYS = 100_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--fabric", paramLabel = "ADDRESS", defaultValue = FabricChoice.LOCAL,
            description = "local (threads, wall-clock time), sim (simulated RDMA cluster, virtual time; see --cns, "
                    + "--clients-per-cn, --virtual-duration) or tcp://HOST:PORT (the memory node a 'lockfabric serve' "
                    + "runs; the protocols' waits are stretched for TCP round trips unless --option sets them). "
                    + "Default: ${DEFAULT-VALUE}.")
    String fabric;

    @CommandLine.Mixin
    SimTopologyOptions topology = new SimTopologyOptions();

    @Option(names = "--workload", paramLabel = "MIX", defaultValue = "update-heavy",
            description = "update-only (100% updates), update-heavy (50% updates, 50% searches) or search-mostly "
                    + "(5% updates). Default: ${DEFAULT-VALUE}.")
    String workload;

    @Option(names = "--lock", paramLabel = "VARIANT", split = ",",
            description = "Node lock variants, comma-separated: sherman (hierarchical: a local lock per compute node "
                    + "in front of the remote CAS lock, bounded handover), sherman-nh (the remote CAS lock alone), "
                    + "declock (declock-pf), shiftlock, cas-rw, or any protocol of 'lockfabric protocols'. "
                    + "Default: all five.")
    List<String> locks;

    @Option(names = "--clients", paramLabel = "N",
            description = "Clients. Default: " + DEFAULT_CLIENTS + " (sim: --cns x --clients-per-cn when given).")
    Integer clients;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "" + DEFAULT_KEYS,
            description = "Key space [0, N), N < 2^31. Default: ${DEFAULT-VALUE}.")
    long keys;

    @Option(names = "--zipf", paramLabel = "THETA", defaultValue = "0.99",
            description = "Zipf skew of the keys (Sherman's skewed workloads: 0.99), >= 0; 0 is uniform. "
                    + "Default: ${DEFAULT-VALUE}.")
    double zipf;

    @Option(names = "--fanout", paramLabel = "N", defaultValue = "32",
            description = "Entries per node, 4 to 1024. Default: ${DEFAULT-VALUE}.")
    int fanout;

    @Option(names = "--load-every", paramLabel = "K", defaultValue = "1",
            description = "Bulk-load every K-th key before the run (1: all, as Sherman's runs; 2: half, the rest "
                    + "inserted by updates, which split nodes; 0: none). Default: ${DEFAULT-VALUE}.")
    int loadEvery;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Measured phase (local and tcp fabrics), e.g. 5s. Default: 5s.")
    Long durationNs;

    @Option(names = "--virtual-duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Sim fabric: measured phase in virtual time. Default: 10ms.")
    Long virtualDurationNs;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Warmup before the measured phase (it covers the bulk load). Default: 1s local and tcp, "
                    + "2ms sim.")
    Long warmupNs;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed of the clients' choices (and, on the sim fabric, of the cluster). Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--handover-bound", paramLabel = "N", defaultValue = "" + ShermanLock.DEFAULT_HANDOVER_BOUND,
            description = "sherman: consecutive local handovers before the remote lock is released. Default: "
                    + "${DEFAULT-VALUE}.")
    int handoverBound;

    @Option(names = "--option", paramLabel = "[PROTO.]NAME=VALUE",
            description = "A lock protocol option, repeatable (e.g. lease-ns=1s, cas.backoff-init-ns=4us; sherman "
                    + "and sherman-nh run on cas, declock on declock-pf; on the sim fabric declock-pf.cns is the "
                    + "cluster's compute nodes unless given).")
    List<String> options = new ArrayList<>();

    @Option(names = "--faults", paramLabel = "SPEC",
            description = "Sim fabric: faults every run suffers, e.g. pause=2@50us..300us,delay=0.02 (see "
                    + "'lockfabric sim check --help').")
    String faults;

    @Option(names = "--no-check", description = "Do not record the lock history nor check the tree after each run.")
    boolean noCheck;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table, csv or json (JSON Lines). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--output", paramLabel = "FILE", description = "Write the report to FILE.")
    Path output;

    @Override
    public Integer call() {
        FabricChoice choice = FabricChoice.parse(fabric, " for btree");
        boolean sim = choice.isSim();
        if (!sim && (topology.anyGiven() || virtualDurationNs != null || faults != null)) {
            throw new BadInputException("--cns, --clients-per-cn, --mns, --virtual-duration and --faults apply to "
                    + "--fabric sim only");
        }
        if (sim && durationNs != null) {
            throw new BadInputException("--duration is wall-clock time; on the sim fabric give --virtual-duration");
        }
        if (clients != null && clients < 1) {
            throw new BadInputException("--clients must be >= 1, got " + clients);
        }
        BTreeMix mix = BTreeMix.byName(workload);
        ReportFormat reportFormat = ReportFormat.byName(format);
        List<String> variants = variants();
        Map<String, List<LockOption>> byProtocol = new LinkedHashMap<>();
        List<LockProtocol> protocols = new ArrayList<>();
        for (String v : variants) {
            LockProtocol p = BTreeLocks.protocol(v);
            byProtocol.putIfAbsent(p.name(), p.options());
            if (!protocols.contains(p)) {
                protocols.add(p);
            }
        }
        List<String> pairs = options;
        if (choice.isTcp()) {
            pairs = BenchExecution.withTcpDefaults(BenchExecution.checkReachable(choice), byProtocol, options,
                    spec.commandLine().getErr());
        }
        if (!options.isEmpty()) {
            ProtocolOptions.parse(options).validate(protocols);
        }
        SimConfig cluster = sim ? topology.cluster(choice.address(), clients, DEFAULT_CLIENTS, 1, seed) : null;
        if (cluster != null) {
            // the hierarchical DecLock sizes its queue by the compute nodes, which its table cannot learn
            List<String> withCns = new ArrayList<>();
            for (LockProtocol p : protocols) {
                if (p.options().stream().anyMatch(o -> o.name().equals("cns"))
                        && pairs.stream().noneMatch(o -> o.startsWith("cns=") || o.startsWith(p.name() + ".cns="))) {
                    withCns.add(p.name() + ".cns=" + cluster.computeNodes());
                }
            }
            withCns.addAll(pairs);
            pairs = withCns;
        }
        ProtocolOptions parsed = ProtocolOptions.parse(pairs);
        int n = cluster != null ? cluster.clients() : clients == null ? DEFAULT_CLIENTS : clients;
        long measured = sim ? (virtualDurationNs == null ? 10_000_000L : virtualDurationNs)
                : (durationNs == null ? 5_000_000_000L : durationNs);
        long warmup = warmupNs != null ? warmupNs : sim ? 2_000_000L : 1_000_000_000L;
        BTreeWorkload config = new BTreeWorkload(new Phases(n, measured, 0, warmup, seed), mix, keys, zipf, fanout,
                loadEvery, !noCheck, parsed, handoverBound);
        config.validate(variants); // a bad option of a variant shows before any run
        FaultPlan plan = faults == null ? FaultPlan.NONE : FaultPlan.parse(faults);
        String header = String.format(Locale.ROOT, "# %s fabric: %s, B+-tree %s, %,d keys (every %s loaded), zipf %s, "
                        + "fan-out %d, %s%s after %s warmup, seed %d, %s%s%s",
                fabric, cluster == null ? n + " clients" : String.format(Locale.ROOT, "%d CN(s) x %d clients",
                        cluster.computeNodes(), cluster.clientsPerComputeNode()),
                mix.label(), keys, loadEvery == 0 ? "none" : loadEvery == 1 ? "key" : loadEvery + "th key", zipf, fanout,
                Durations.format(measured), sim ? " virtual" : "", Durations.format(warmup), seed,
                noCheck ? "unchecked" : "checked (lock history, full scan, structure)",
                plan.isNone() ? "" : ", faults " + plan.spec(),
                pairs.isEmpty() ? "" : ", options " + String.join(" ", pairs));
        return new BenchExecution<String>(choice, cluster, seed, plan, null, v -> v, "")
                .onTestbed(sim ? topology.testbed(choice.address()) : java.util.Optional.empty())
                .execute(spec, variants, config, reportFormat, header, output);
    }

    private List<String> variants() {
        if (locks == null || locks.isEmpty()) {
            return BTreeLocks.VARIANTS;
        }
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (String l : locks) {
            if (!l.isBlank()) {
                names.add(l.trim());
            }
        }
        if (names.isEmpty()) {
            throw new BadInputException("--lock names no variant; known: " + String.join(", ", BTreeLocks.VARIANTS));
        }
        for (String v : names) {
            BTreeLocks.validate(v, List.of());
        }
        return List.copyOf(names);
    }
}
