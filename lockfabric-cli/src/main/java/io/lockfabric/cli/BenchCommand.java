package io.lockfabric.cli;

import io.lockfabric.bench.FaultSummary;
import io.lockfabric.bench.MicroBenchConfig;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.fabric.Durations;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.net.TcpFabric;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code lockfabric bench}: the mutex / reader-writer microbenchmark over one or more protocols,
 * one run per protocol (each on a fresh fabric), then one report.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Compare lock protocols on the mutex / reader-writer microbenchmark.",
                "Each client thread repeatedly picks a lock (Zipf, lock 0 hottest), takes it shared with probability "
                        + "--read-ratio or else exclusive, does --cs remote READs (shared) or WRITEs (exclusive) on the "
                        + "lock's 8-byte data object, and releases it.",
                "Reports goodput, acquire and operation latency percentiles, and remote operations per "
                        + "acquire-release cycle by verb kind (the protocol's own apart from the critical section's).",
                "With no options: every registered protocol on the default workload, as a table."})
final class BenchCommand implements Callable<Integer> {
    static final String LOCAL_FABRIC = "local";
    static final String SIM_FABRIC = "sim";
    /** Measured virtual time of a sim run unless --virtual-duration says otherwise. */
    static final long DEFAULT_VIRTUAL_DURATION_NS = 100_000_000L;
    static final long DEFAULT_VIRTUAL_WARMUP_NS = 10_000_000L;

    @Spec
    CommandSpec spec;

    @Option(names = "--fabric", paramLabel = "NAME", defaultValue = LOCAL_FABRIC,
            description = "Fabric to run on: 'local' (memory node and client threads in this JVM, wall-clock "
                    + "time), 'sim' (a simulated RDMA cluster in virtual time: goodput per virtual second, "
                    + "virtual latencies; see --cns, --clients-per-cn, --mns, --virtual-duration, --faults) or "
                    + "tcp://HOST:PORT (the memory node a 'lockfabric serve' runs, clients in this JVM over TCP; "
                    + "use a server of its own: runs cross-check its counters). Default: ${DEFAULT-VALUE}.")
    String fabric;

    @CommandLine.Mixin
    SimTopologyOptions topology = new SimTopologyOptions();

    @Option(names = "--virtual-duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Sim fabric: length of the measured phase in virtual time. Default: 100ms "
                    + "(after a 10ms virtual warmup unless --warmup says otherwise).")
    Long virtualDurationNs;

    @Option(names = "--faults", paramLabel = "LIST",
            description = "Sim fabric: faults every run suffers, chosen by --seed: crash[=N], pause[=N][@LEN|@MIN..MAX], "
                    + "mn-pause[=N][@LEN], drop[=P], delay[=P][@LEN]. Turns --check on and reports crashes, "
                    + "stuck clients, recovery times and lease hazards. See 'lockfabric sim check --help'.")
    String faults;

    @Option(names = "--protocols", paramLabel = "NAME", split = ",",
            description = "Protocols to compare, comma-separated. Default: every registered protocol "
                    + "(see 'lockfabric protocols'; on the sim fabric, those that do not need one JVM).")
    List<String> protocols;

    @Option(names = "--clients", paramLabel = "N",
            description = "Clients, each with its own endpoint and lock client. Default: "
                    + MicroBenchConfig.DEFAULT_CLIENTS + " (sim: --cns x --clients-per-cn when given).")
    Integer clients;

    @Option(names = "--locks", paramLabel = "N", defaultValue = "" + MicroBenchConfig.DEFAULT_LOCKS,
            description = "Locks in the table. Default: ${DEFAULT-VALUE}.")
    long locks;

    @Option(names = "--zipf", paramLabel = "THETA", defaultValue = "" + MicroBenchConfig.DEFAULT_ZIPF,
            description = "Zipf skew of the lock choice, >= 0; 0 is uniform. Default: ${DEFAULT-VALUE}.")
    double zipf;

    @Option(names = "--read-ratio", paramLabel = "R", defaultValue = "" + MicroBenchConfig.DEFAULT_READ_RATIO,
            description = "Share of operations that take the lock shared, in [0, 1]. Default: ${DEFAULT-VALUE}.")
    double readRatio;

    @Option(names = "--cs", paramLabel = "N", defaultValue = "" + MicroBenchConfig.DEFAULT_CS_OPS,
            description = "Remote operations in each critical section (READs if shared, WRITEs if exclusive). "
                    + "Default: ${DEFAULT-VALUE}.")
    int cs;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Length of the measured phase, with a unit: 2s, 500ms, 1m. Default: 2s "
                    + "(unless --ops is given).")
    Long durationNs;

    @Option(names = "--ops", paramLabel = "N",
            description = "Measure this many operations in total (split over the clients) instead of a duration.")
    Long operations;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Warmup before the measured phase, not measured. Default: 1s for duration runs, "
                    + "0 with --ops.")
    Long warmupNs;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "" + MicroBenchConfig.DEFAULT_SEED,
            description = "Seed of the clients' random lock and mode choices; on the sim fabric also of the "
                    + "network jitter, clock rates and fault schedule, so a sim run is replayed exactly. "
                    + "Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "Report format: table (aligned, for people), csv (header + one row per protocol), "
                    + "json (JSON Lines: one object per protocol). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--check",
            description = "Record every grant and release and verify mutual exclusion, fencing order (for "
                    + "protocols with strict fencing) and guarded counters; print violations and exit 1 if any. "
                    + "Exclusive holders then also increment a guarded counter (one READ + WRITE, counted in "
                    + "cs ops). Keeps the whole history in memory: use short runs.")
    boolean check;

    @Option(names = "--option", paramLabel = "[PROTO.]NAME=VALUE",
            description = "A protocol option, repeatable: PROTO.NAME=VALUE for one protocol, NAME=VALUE for every "
                    + "selected protocol that has it. Options ending in -ns take units (5us). See 'lockfabric "
                    + "protocols'.")
    List<String> options = new ArrayList<>();

    @Option(names = "--shared-table", paramLabel = "NAME",
            description = "tcp only: name the runs' tables after NAME (and the protocol) instead of after this "
                    + "process, so bench processes given the same NAME, --locks and options contend for the same locks "
                    + "on one server. Start them together and give each its own --seed; use a new NAME per run. Not "
                    + "with --check (a process's history misses the others' holds); the counter cross-check then "
                    + "disagrees (the server also counts the other processes' verbs).")
    String sharedTable;

    @Option(names = "--output", paramLabel = "FILE",
            description = "Write the report to FILE instead of standard output.")
    Path output;

    @Override
    public Integer call() {
        boolean sim = SIM_FABRIC.equals(fabric);
        boolean tcp = fabric.startsWith(TcpFabric.SCHEME + ":");
        if (!sim && !tcp && !LOCAL_FABRIC.equals(fabric)) {
            throw new BadInputException("unknown fabric '" + fabric + "': give local, sim or tcp://HOST:PORT");
        }
        if (tcp) {
            checkReachable(fabric);
        }
        if (!sim && (topology.anyGiven() || virtualDurationNs != null || faults != null)) {
            throw new BadInputException("--cns, --clients-per-cn, --mns, --virtual-duration and --faults apply to "
                    + "--fabric sim only");
        }
        if (sharedTable != null && (!tcp || check)) {
            throw new BadInputException(!tcp ? "--shared-table applies to --fabric tcp://HOST:PORT only"
                    : "--shared-table cannot be checked: each process's history misses the other processes' holds");
        }
        ReportFormat reportFormat = ReportFormat.byName(format);
        List<LockProtocol> selected = ProtocolSelection.select(protocols, sim || tcp);
        ProtocolOptions protocolOptions = ProtocolOptions.parse(tcp ? withTcpDefaults(selected.stream().collect(Collectors.toMap(
                LockProtocol::name, LockProtocol::options, (x, y) -> x, LinkedHashMap::new)), options,
                spec.commandLine().getErr()) : options);
        protocolOptions.validate(selected);
        SimConfig cluster = sim ? topology.cluster(clients, MicroBenchConfig.DEFAULT_CLIENTS, 1, seed) : null;
        FaultPlan plan = faults == null ? FaultPlan.NONE : FaultPlan.parse(faults);
        MicroBenchConfig config = config(protocolOptions, cluster);

        PrintWriter err = spec.commandLine().getErr();
        List<RunResult> results = new ArrayList<>();
        for (LockProtocol protocol : selected) {
            try (Fabric f = sim ? new SimFabric(cluster)
                    : tcp ? TcpFabric.builder().uri(fabric).seed(seed).build()
                    : LocalFabric.builder().seed(seed).build()) {
                Runner runner = new Runner(f).withFaults(plan);
                results.add((sharedTable == null ? runner : runner.withSharedTable(sharedTable)).run(protocol, config));
            } catch (TableMismatchException e) {
                if (sharedTable == null) {
                    throw e;
                }
                throw new BadInputException("--shared-table " + sharedTable + ": another process made " + protocol.name()
                        + "'s table with another shape (other --locks or options?): " + e.getMessage());
            }
        }
        String report = reportFormat.report().render(results);
        if (reportFormat == ReportFormat.TABLE) {
            StringBuilder sb = new StringBuilder(describe(config, cluster)).append('\n').append(report);
            for (RunResult r : results) {
                if (!r.faults().plan().equals(FaultPlan.NONE.spec())) {
                    sb.append(FaultSummary.describe(r));
                }
            }
            report = sb.toString();
        }
        emit(report);

        return exitStatus(err, results.stream().flatMap(r -> r.violations().stream()
                .map(v -> r.protocol() + ": " + v.description())).toList());
    }

    /**
     * Prints each checker finding ("protocol: description") and a summary on {@code err}; the
     * command's exit status. Shared by {@code bench} and {@code range-bench}.
     */
    static int exitStatus(PrintWriter err, List<String> findings) {
        findings.forEach(err::println);
        if (findings.isEmpty()) {
            return Main.EXIT_OK;
        }
        err.println("check failed: " + findings.size() + " violation(s)");
        err.flush();
        return Main.EXIT_VIOLATIONS;
    }

    /**
     * The protocols' waits scaled to the tcp fabric's timing ({@link TcpFabric#TIMING}, through
     * {@link LockOptions#timedDefaults}), each
     * qualified by its protocol, then {@code user}'s {@code --option} pairs, which win (a later pair
     * overrides an earlier one). Says on {@code err} what it added, since the report's numbers depend
     * on it. Shared by {@code bench} and {@code range-bench}.
     *
     * @param optionsByProtocol the selected protocols' names and the options each has, in run order
     */
    static List<String> withTcpDefaults(Map<String, List<LockOption>> optionsByProtocol, List<String> user,
                                        PrintWriter err) {
        List<String> pairs = new ArrayList<>();
        optionsByProtocol.forEach((name, known) -> {
            for (String pair : LockOptions.timedDefaults(TcpFabric.TIMING, known)) {
                pairs.add(name + "." + pair);
            }
        });
        if (!pairs.isEmpty()) {
            err.println("tcp fabric: waits stretched for TCP round trips (an --option of the same name overrides): "
                    + String.join(" ", pairs));
        }
        pairs.addAll(user);
        return pairs;
    }

    /** A tcp fabric's memory node must answer before any run starts: a clear error otherwise. */
    static void checkReachable(String uri) {
        try (TcpFabric probe = TcpFabric.builder().uri(uri).build()) {
            probe.memoryNodeCounters(0);
        } catch (FabricException e) {
            throw new BadInputException("no memory node answers at " + uri + " (start one with 'lockfabric serve'): "
                    + e.getMessage());
        }
    }

    private MicroBenchConfig config(ProtocolOptions protocolOptions, SimConfig cluster) {
        if (cluster != null) {
            if (durationNs != null) {
                throw new BadInputException("--duration is wall-clock time; on the sim fabric give --virtual-duration");
            }
            if (virtualDurationNs != null && operations != null) {
                throw new BadInputException("give either --virtual-duration or --ops, not both");
            }
            if (operations == null) {
                durationNs = virtualDurationNs == null ? DEFAULT_VIRTUAL_DURATION_NS : virtualDurationNs;
                warmupNs = warmupNs == null ? DEFAULT_VIRTUAL_WARMUP_NS : warmupNs;
            }
        }
        if (durationNs != null && operations != null) {
            throw new BadInputException("give either --duration or --ops, not both");
        }
        if (operations != null && operations < 1) {
            throw new BadInputException("--ops must be >= 1, got " + operations);
        }
        if (durationNs != null && durationNs < 1) {
            throw new BadInputException("--duration must be positive");
        }
        int n = cluster != null ? cluster.clients() : clients == null ? MicroBenchConfig.DEFAULT_CLIENTS : clients;
        var b = MicroBenchConfig.builder().clients(n).locks(locks).zipf(zipf).readRatio(readRatio).cs(cs)
                .seed(seed).check(check).options(protocolOptions);
        if (operations != null) {
            b.operations(operations).warmupNs(warmupNs == null ? 0 : warmupNs);
        } else {
            b.durationNs(durationNs == null ? MicroBenchConfig.DEFAULT_DURATION_NS : durationNs)
                    .warmupNs(warmupNs == null ? MicroBenchConfig.DEFAULT_WARMUP_NS : warmupNs);
        }
        return b.build();
    }

    private String describe(MicroBenchConfig c, SimConfig cluster) {
        String virtual = cluster == null ? "" : " virtual";
        String phase = c.byOperations()
                ? String.format(Locale.ROOT, "%,d ops", c.operations())
                : Durations.format(c.durationNs()) + virtual;
        String clientsText = cluster == null ? c.clients() + " clients"
                : String.format(Locale.ROOT, "%d CN%s x %d clients, %d MN%s", cluster.computeNodes(),
                        cluster.computeNodes() == 1 ? "" : "s", cluster.clientsPerComputeNode(), cluster.memoryNodes(),
                        cluster.memoryNodes() == 1 ? "" : "s");
        return String.format(Locale.ROOT,
                "# %s fabric: %s, %,d locks, zipf %s, %.0f%% reads, cs %d, %s after %s%s warmup, seed %d%s%s%s",
                fabric, clientsText, c.locks(), c.zipf(), c.readRatio() * 100, c.cs(), phase,
                Durations.format(c.warmupNs()), virtual, c.seed(), c.check() || faults != null ? ", checked" : "",
                faults == null ? "" : ", faults " + FaultPlan.parse(faults).spec(),
                c.options().isEmpty() ? "" : ", options " + c.options());
    }

    private void emit(String report) {
        if (output == null) {
            PrintWriter out = spec.commandLine().getOut();
            out.print(report);
            out.flush();
            return;
        }
        try {
            Files.writeString(output, report, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new BadInputException("cannot write " + output + ": " + e.getMessage());
        }
    }
}
