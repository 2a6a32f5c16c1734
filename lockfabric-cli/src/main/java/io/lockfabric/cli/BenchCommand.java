package io.lockfabric.cli;

import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.range.RangeWorkload;
import io.lockfabric.fabric.Durations;
import io.lockfabric.fabric.FabricTiming;
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
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code lockfabric bench}: a benchmark over one or more protocols, one run per protocol (each on a
 * fresh fabric), then one report. The workload is the mutex / reader-writer microbenchmark
 * ({@code --workload point}, the default) or the range microbenchmark ({@code --workload range},
 * which {@code range-bench} runs with its own flags); both go through one runner and one report.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Compare lock protocols on the mutex / reader-writer microbenchmark.",
                "Each client thread repeatedly picks a lock (Zipf, lock 0 hottest), takes it shared with probability "
                        + "--read-ratio or else exclusive, does --cs remote READs (shared) or WRITEs (exclusive) on the "
                        + "lock's 8-byte data object, and releases it.",
                "Reports goodput, acquire and operation latency percentiles, and remote operations per "
                        + "acquire-release cycle by verb kind (the protocol's own apart from the critical section's).",
                "With --workload range: the range microbenchmark of 'lockfabric range-bench' over the range "
                        + "protocols (--range-size, --units; --cs is then how long a range is held).",
                "With no options: every registered protocol on the default workload, as a table."})
final class BenchCommand implements Callable<Integer> {
    static final String POINT_WORKLOAD = PointWorkload.KIND;
    static final String RANGE_WORKLOAD = RangeWorkload.KIND;
    /** Measured virtual time of a sim run unless --virtual-duration says otherwise. */
    static final long DEFAULT_VIRTUAL_DURATION_NS = 100_000_000L;
    static final long DEFAULT_VIRTUAL_WARMUP_NS = 10_000_000L;

    @Spec
    CommandSpec spec;

    @Option(names = "--workload", paramLabel = "KIND", defaultValue = POINT_WORKLOAD,
            description = "What each client does: point (take a lock of the table, touch its data, release it) "
                    + "or range (take a range [x, x + L) of [0, N), hold it, release it; as 'lockfabric range-bench'). "
                    + "Default: ${DEFAULT-VALUE}.")
    String workload;

    @Option(names = "--fabric", paramLabel = "ADDRESS", defaultValue = FabricChoice.LOCAL,
            description = "Fabric to run on: 'local' (memory node and client threads in this JVM, wall-clock "
                    + "time), 'sim' (a simulated RDMA cluster in virtual time: goodput per virtual second, "
                    + "virtual latencies; see --cns, --clients-per-cn, --mns, --virtual-duration, --faults) or "
                    + "tcp://HOST:PORT (the memory node a 'lockfabric serve' runs, clients in this JVM over TCP; "
                    + "use a server of its own: runs cross-check its counters) or shm:/PATH (a shared-memory file, "
                    + "e.g. shm:/dev/shm/locks, that every process on this host maps; verbs run on the mapping; "
                    + "protocols with an rpc service need a 'lockfabric serve --shm PATH'). An address may carry its fabric's "
                    + "parameters: sim:cns=5,clients-per-cn=48 (as --cns 5 --clients-per-cn 48; also clients, mns, "
                    + "seed), local:mns=2, tcp://HOST:PORT?namespace=NAME,connections=N,threads=virtual (N: the connections to the "
                    + "server its client threads share; threads=virtual runs the clients on virtual threads). Default: ${DEFAULT-VALUE}.")
    String fabric;

    @CommandLine.Mixin
    SimTopologyOptions topology = new SimTopologyOptions();

    @Option(names = "--virtual-duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Sim fabric: length of the measured phase in virtual time. Default: 100ms "
                    + "(after a 10ms virtual warmup unless --warmup says otherwise; range: 10ms after 2ms).")
    Long virtualDurationNs;

    @Option(names = "--faults", paramLabel = "LIST",
            description = "Sim fabric: faults every run suffers, chosen by --seed: crash[=N], pause[=N][@LEN|@MIN..MAX], "
                    + "mn-pause[=N][@LEN], drop[=P], delay[=P][@LEN], cn-crash@T[:CN], mn-restart@T[:LEN[:MN]]. Turns --check on and reports crashes, "
                    + "stuck clients, recovery times and lease hazards. See 'lockfabric sim check --help'.")
    String faults;

    @Option(names = "--protocols", paramLabel = "NAME", split = ",",
            description = "Protocols to compare, comma-separated. Default: every registered protocol "
                    + "(see 'lockfabric protocols'; on the sim fabric, those that do not need one JVM); with "
                    + "--workload range, every registered range protocol.")
    List<String> protocols;

    @Option(names = "--clients", paramLabel = "N",
            description = "Clients, each with its own endpoint and lock client. Default: "
                    + PointWorkload.DEFAULT_CLIENTS + " (sim: --cns x --clients-per-cn when given).")
    Integer clients;

    @Option(names = "--locks", paramLabel = "N",
            description = "Locks in the table (point workload). Default: " + PointWorkload.DEFAULT_LOCKS + ".")
    Long locks;

    @Option(names = "--range-size", paramLabel = "L",
            description = "Range workload: range size in units: 1, 16, 256 (any positive number) or mixed (a third "
                    + "of the clients each 1, 16, 256). Default: 16.")
    String rangeSize;

    @Option(names = "--units", paramLabel = "N",
            description = "Range workload: address space N, borders drawn over [0, N - L]; protocols with a 'units' "
                    + "option get it too. Default: " + RangeWorkload.DEFAULT_UNITS + " (2^28).")
    Long units;

    @Option(names = "--zipf", paramLabel = "THETA",
            description = "Zipf skew of the lock choice (range: of the left border), >= 0; 0 is uniform. "
                    + "Default: " + PointWorkload.DEFAULT_ZIPF + ". Range workload: " + RangeWorkload.DEFAULT_ZIPF
                    + ".")
    Double zipf;

    @Option(names = "--read-ratio", paramLabel = "R",
            description = "Share of operations that take the lock shared, in [0, 1]. Default: "
                    + PointWorkload.DEFAULT_READ_RATIO + " (point workload), 0 (range workload).")
    Double readRatio;

    @Option(names = "--skip-release", paramLabel = "P",
            description = "Fault of ShiftLock's Fig. 13 (point workload): after each acquisition a client skips its "
                    + "release with probability P in [0, 1] and goes on; the lock stays held until the protocol's "
                    + "lease recovery frees it (a protocol without recovery blocks). Default: 0 (off).")
    Double skipRelease;

    @Option(names = "--cs", paramLabel = "N|TIME",
            description = "Critical section. Point workload: remote operations in it (READs if shared, WRITEs if "
                    + "exclusive), default " + PointWorkload.DEFAULT_CS_OPS + ". Range workload: how long each range "
                    + "is held, with a unit (5us), default 0: release at once.")
    String cs;

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

    @Option(names = "--seed", paramLabel = "N", defaultValue = "" + PointWorkload.DEFAULT_SEED,
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
                    + "cs ops). Keeps the whole history in memory: use short runs. Range runs always check "
                    + "range exclusion.")
    boolean check;

    @Option(names = "--option", paramLabel = "[PROTO.]NAME=VALUE",
            description = "A protocol option, repeatable: PROTO.NAME=VALUE for one protocol, NAME=VALUE for every "
                    + "selected protocol that has it. Options ending in -ns take units (5us). See 'lockfabric "
                    + "protocols'.")
    List<String> options = new ArrayList<>();

    @Option(names = "--shared-table", paramLabel = "NAME",
            description = "tcp and shm only: name the runs' tables after NAME (and the protocol) instead of after this "
                    + "process, so bench processes given the same NAME, --locks and options contend for the same locks "
                    + "on one server (or one shm file). Start them together and give each its own --seed; use a new NAME per run. With "
                    + "--check each process checks its own holds (no guarded counters) and writes its history (see "
                    + "--history, --processes) for 'lockfabric check' to check all processes' together; the counter "
                    + "cross-check disagrees (the server also counts the other processes' verbs).")
    String sharedTable;

    @CommandLine.Mixin
    HistoryOptions history = new HistoryOptions();

    @Option(names = "--output", paramLabel = "FILE",
            description = "Write the report to FILE instead of standard output.")
    Path output;

    @Override
    public Integer call() {
        FabricChoice choice = FabricChoice.parse(fabric, "");
        boolean sim = choice.isSim();
        boolean tcp = choice.isTcp();
        boolean range = kind();
        FabricTiming tcpTiming = tcp && !range ? BenchExecution.checkReachable(choice) : null;
        if (!sim && (topology.anyGiven() || virtualDurationNs != null || faults != null)) {
            throw SimTopologyOptions.simOnly("--virtual-duration", "--faults");
        }
        if (range) {
            return RangeBenchCommand.execute(spec, new RangeBenchCommand.Settings(fabric, topology, virtualDurationNs,
                    protocols, rangeSize == null ? "16" : rangeSize,
                    units == null ? RangeWorkload.DEFAULT_UNITS : units, zipf == null ? RangeWorkload.DEFAULT_ZIPF : zipf,
                    clients, cs == null ? null : rangeCs(cs), durationNs, operations, warmupNs, seed, format, options,
                    sharedTable, output, faults, history, readRatio));
        }
        if (sharedTable != null && !choice.isShared()) {
            throw new BadInputException("--shared-table applies to --fabric tcp://HOST:PORT or shm:/PATH only");
        }
        HistoryRecording recording = history.plan(sharedTable, check, !sim);
        ReportFormat reportFormat = ReportFormat.byName(format);
        List<LockProtocol> selected = ProtocolSelection.select(protocols, sim || tcp);
        ProtocolOptions protocolOptions = ProtocolOptions.parse(tcp ? BenchExecution.withTcpDefaults(tcpTiming,
                selected.stream().collect(Collectors.toMap(LockProtocol::name, LockProtocol::options, (x, y) -> x,
                        LinkedHashMap::new)), options, spec.commandLine().getErr()) : options);
        protocolOptions.validate(selected);
        SimConfig cluster = sim ? topology.cluster(choice.address(), clients, PointWorkload.DEFAULT_CLIENTS, 1, seed)
                : null;
        FaultPlan plan = faults == null ? FaultPlan.NONE : FaultPlan.parse(faults);
        PointWorkload config = config(protocolOptions, cluster);

        return new BenchExecution<LockProtocol>(choice, cluster, seed, plan, sharedTable, LockProtocol::name,
                "other --locks or options?").onTestbed(sim ? topology.testbed(choice.address()) : Optional.empty())
                .recording(recording, "lockfabric bench --seed " + seed).execute(spec, selected, config, reportFormat, describe(config, cluster, choice),
                output);
    }

    /**
     * Whether the workload is the range one, checking that no option of the other kind was given.
     *
     * @throws BadInputException for an unknown kind or a flag of the other kind
     */
    private boolean kind() {
        if (RANGE_WORKLOAD.equals(workload)) {
            if (locks != null || skipRelease != null) {
                throw new BadInputException("--locks and --skip-release apply to --workload point only");
            }
            return true;
        }
        if (!POINT_WORKLOAD.equals(workload)) {
            throw new BadInputException("unknown workload '" + workload + "': give " + POINT_WORKLOAD + " or "
                    + RANGE_WORKLOAD);
        }
        if (rangeSize != null || units != null) {
            throw new BadInputException("--range-size and --units apply to --workload range only");
        }
        return false;
    }

    /** The range workload's --cs: a time with a unit. */
    private static long rangeCs(String text) {
        try {
            return Durations.parseNanos(text);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--cs of the range workload is how long a range is held, with a unit (5us): "
                    + e.getMessage());
        }
    }

    /** The point workload's --cs: a number of remote operations. */
    private static int pointCs(String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new BadInputException("--cs of the point workload is a number of remote operations, got '" + text
                    + "'");
        }
    }

    private PointWorkload config(ProtocolOptions protocolOptions, SimConfig cluster) {
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
        if (skipRelease != null && !(skipRelease >= 0 && skipRelease <= 1)) {
            throw new BadInputException("--skip-release must be a probability in [0, 1], got " + skipRelease);
        }
        int n = cluster != null ? cluster.clients() : clients == null ? PointWorkload.DEFAULT_CLIENTS : clients;
        var b = PointWorkload.builder().clients(n).locks(locks == null ? PointWorkload.DEFAULT_LOCKS : locks)
                .zipf(zipf == null ? PointWorkload.DEFAULT_ZIPF : zipf)
                .readRatio(readRatio == null ? PointWorkload.DEFAULT_READ_RATIO : readRatio)
                .cs(cs == null ? PointWorkload.DEFAULT_CS_OPS : pointCs(cs)).seed(seed).check(check)
                .options(protocolOptions).skipRelease(skipRelease == null ? 0 : skipRelease);
        if (operations != null) {
            b.operations(operations).warmupNs(warmupNs == null ? 0 : warmupNs);
        } else {
            b.durationNs(durationNs == null ? PointWorkload.DEFAULT_DURATION_NS : durationNs)
                    .warmupNs(warmupNs == null ? PointWorkload.DEFAULT_WARMUP_NS : warmupNs);
        }
        return b.build();
    }

    private String describe(PointWorkload c, SimConfig cluster, FabricChoice choice) {
        String virtual = cluster == null ? "" : " virtual";
        String phase = c.byOperations()
                ? String.format(Locale.ROOT, "%,d ops", c.operations())
                : Durations.format(c.durationNs()) + virtual;
        String clientsText = cluster == null ? c.clients() + " clients"
                : String.format(Locale.ROOT, "%d CN%s x %d clients, %d MN%s", cluster.computeNodes(),
                        cluster.computeNodes() == 1 ? "" : "s", cluster.clientsPerComputeNode(), cluster.memoryNodes(),
                        cluster.memoryNodes() == 1 ? "" : "s") + SimTopologyOptions.linkNote(cluster)
                        + SimTopologyOptions.testbedNote(topology.testbed(choice.address()));
        return String.format(Locale.ROOT,
                "# %s fabric: %s, %,d locks, zipf %s, %.0f%% reads, cs %d, %s after %s%s warmup, seed %d%s%s%s",
                fabric, clientsText, c.locks(), c.zipf(), c.readRatio() * 100, c.cs(), phase,
                Durations.format(c.warmupNs()), virtual, c.seed(), c.check() || faults != null ? ", checked" : "",
                faults == null ? "" : ", faults " + FaultPlan.parse(faults).spec(),
                c.options().isEmpty() ? "" : ", options " + c.options())
                + (c.skipRelease() > 0 ? ", releases skipped with p " + c.skipRelease() : "");
    }
}
