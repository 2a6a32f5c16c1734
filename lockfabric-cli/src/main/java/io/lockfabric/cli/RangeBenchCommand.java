package io.lockfabric.cli;

import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.range.RangeWorkload;
import io.lockfabric.fabric.Durations;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.RangeLockProtocols;
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
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code lockfabric range-bench}: the range-lock microbenchmark (CITRON §4.2) over one or more
 * range protocols, one run per protocol on a fresh fabric, then one report. Every run checks range
 * exclusion. An alias of {@code bench --workload range} that keeps its own flags ({@code --cs} is a
 * time here); both end in {@link #execute}.
 */
@Command(name = "range-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Compare range lock protocols on the range microbenchmark (CITRON FAST'23 s4.2).",
                "Each client repeatedly takes an exclusive (or, with --read-ratio, shared) range [x, x + L) of [0, N), the left border x drawn Zipf "
                        + "over [0, N - L] (0 hottest), holds it --cs and releases it. --range-size mixed gives a "
                        + "third of the clients each L = 1, 16, 256.",
                "Reports goodput (overall and per range size), acquire latency percentiles, aborts per acquisition "
                        + "(citron: also the timing aborts of s4.7) and remote operations per acquisition by verb. "
                        + "Range exclusion is checked in every run; violations exit 1."})
final class RangeBenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--fabric", paramLabel = "ADDRESS", defaultValue = FabricChoice.LOCAL,
            description = "local (threads, wall-clock time), sim (simulated RDMA cluster, virtual time; see --cns, "
                    + "--clients-per-cn, --mns, --virtual-duration) or tcp://HOST:PORT (the memory node a 'lockfabric "
                    + "serve' runs, clients in this JVM over TCP; the protocols' waits are stretched for TCP round "
                    + "trips unless --option sets them). An address may carry its fabric's parameters: "
                    + "sim:cns=2,clients-per-cn=12. Default: ${DEFAULT-VALUE}.")
    String fabric;

    @CommandLine.Mixin
    SimTopologyOptions topology = new SimTopologyOptions();

    @Option(names = "--virtual-duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Sim fabric: measured phase in virtual time. Default: 10ms (after a 2ms virtual warmup "
                    + "unless --warmup says otherwise).")
    Long virtualDurationNs;

    @Option(names = "--protocols", paramLabel = "NAME", split = ",",
            description = "Range protocols to compare, comma-separated. Default: every registered range protocol.")
    List<String> protocols;

    @Option(names = "--range-size", paramLabel = "L", defaultValue = "16",
            description = "Range size in units: 1, 16, 256 (any positive number) or mixed. Default: ${DEFAULT-VALUE}.")
    String rangeSize;

    @Option(names = "--units", paramLabel = "N", defaultValue = "" + RangeWorkload.DEFAULT_UNITS,
            description = "Address space N: borders are drawn over [0, N - L]; protocols with a 'units' option "
                    + "(citron's tree size) get it too. Default: ${DEFAULT-VALUE} (2^28).")
    long units;

    @Option(names = "--zipf", paramLabel = "THETA", defaultValue = "" + RangeWorkload.DEFAULT_ZIPF,
            description = "Zipf skew of the left border, >= 0; 0 is uniform. Default: ${DEFAULT-VALUE}.")
    double zipf;

    @Option(names = "--read-ratio", paramLabel = "R",
            description = "Share of acquisitions that ask for their range shared, in [0, 1]; a protocol without a "
                    + "shared mode grants them exclusive (citron: with --option citron.shared-lanes=4 readers overlap). "
                    + "Default: 0, every range exclusive (the paper's workload).")
    Double readRatio;

    @Option(names = "--clients", paramLabel = "N",
            description = "Clients. Default: " + RangeWorkload.DEFAULT_CLIENTS
                    + " (sim: --cns x --clients-per-cn when given).")
    Integer clients;

    @Option(names = "--cs", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Critical section length: how long each range is held (5us). Default: 0, release at once.")
    Long csNs;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Measured phase (local and tcp fabrics), e.g. 2s. Default: 2s unless --ops.")
    Long durationNs;

    @Option(names = "--ops", paramLabel = "N", description = "Measure this many acquisitions in total instead.")
    Long operations;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Warmup before the measured phase. Default: 1s local and tcp, 2ms sim, 0 with --ops.")
    Long warmupNs;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed of the clients' border choices (and, on the sim fabric, of the cluster). "
                    + "Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table, csv or json (JSON Lines). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--option", paramLabel = "[PROTO.]NAME=VALUE",
            description = "A range protocol option, repeatable (e.g. citron.fast-path=0, k=1, t-wait-ns=20us). "
                    + "The range protocols' options are listed below.")
    List<String> options = new ArrayList<>();

    @Option(names = "--shared-table", paramLabel = "NAME",
            description = "tcp only: name the runs' range lock tables after NAME (and the protocol) instead of after this "
                    + "process, so range-bench processes given the same NAME, --units, --range-size and options contend "
                    + "for the same range lock on one server. Start them together and give each its own --seed; use a "
                    + "new NAME per run. Each process checks range exclusion among its own holds and writes its history "
                    + "(see --history, --processes) for 'lockfabric check' to check all processes' together.")
    String sharedTable;

    @CommandLine.Mixin
    HistoryOptions history = new HistoryOptions();

    @Option(names = "--output", paramLabel = "FILE", description = "Write the report to FILE.")
    Path output;

    @Override
    public Integer call() {
        return execute(spec, new Settings(fabric, topology, virtualDurationNs, protocols, rangeSize, units, zipf,
                clients, csNs, durationNs, operations, warmupNs, seed, format, options, sharedTable, output, null,
                history, readRatio));
    }

    /**
     * A range benchmark's command line, as {@code range-bench} or {@code bench --workload range}
     * gives it; null where an option was not given.
     *
     * @param faults  the sim runs' fault plan ({@code bench --faults}), or null for none
     * @param history where the runs' history goes ({@code --history}, {@code --processes})
     * @param readRatio share of shared acquisitions ({@code --read-ratio}), or null for none
     */
    record Settings(String fabric, SimTopologyOptions topology, Long virtualDurationNs, List<String> protocols,
                    String rangeSize, long units, double zipf, Integer clients, Long csNs, Long durationNs,
                    Long operations, Long warmupNs, long seed, String format, List<String> options,
                    String sharedTable, Path output, String faults, HistoryOptions history, Double readRatio) {
    }

    /** Runs the range benchmark {@code s} describes and prints its report; the exit status. */
    static int execute(CommandSpec spec, Settings s) {
        FabricChoice fabric = FabricChoice.parse(s.fabric(), " for range-bench");
        boolean sim = fabric.isSim();
        boolean tcp = fabric.isTcp();
        if (!sim && (s.topology().anyGiven() || s.virtualDurationNs() != null)) {
            throw SimTopologyOptions.simOnly("--virtual-duration");
        }
        if (s.sharedTable() != null && !fabric.isShared()) {
            throw new BadInputException("--shared-table applies to --fabric tcp://HOST:PORT or shm:/PATH only");
        }
        HistoryRecording recording = s.history().plan(s.sharedTable(), true, !sim);
        ReportFormat reportFormat = ReportFormat.byName(s.format());
        List<RangeLockProtocol> selected = select(s.protocols());
        List<String> options = s.options();
        if (tcp) {
            options = BenchExecution.withTcpDefaults(BenchExecution.checkReachable(fabric), selected.stream()
                    .collect(Collectors.toMap(RangeLockProtocol::name, RangeLockProtocol::options, (x, y) -> x,
                            LinkedHashMap::new)), options, spec.commandLine().getErr());
        }
        SimConfig cluster = sim ? s.topology().cluster(fabric.address(), s.clients(), RangeWorkload.DEFAULT_CLIENTS, 1,
                s.seed()) : null;
        RangeWorkload config = config(s, options, cluster);
        config.validateOptions(selected);
        FaultPlan faults = s.faults() == null ? FaultPlan.NONE : FaultPlan.parse(s.faults());
        return new BenchExecution<RangeLockProtocol>(fabric, cluster, s.seed(), faults, s.sharedTable(),
                RangeLockProtocol::name, "other --units, --range-size or options?")
                .onTestbed(sim ? s.topology().testbed(fabric.address()) : Optional.empty())
                .recording(recording, "lockfabric range-bench --seed " + s.seed())
                .execute(spec, selected, config, reportFormat,
                        describe(s, config, cluster, faults, sim ? SimTopologyOptions.testbedNote(
                                s.topology().testbed(fabric.address())) : ""), s.output());
    }

    private static List<RangeLockProtocol> select(List<String> protocols) {
        if (protocols == null || protocols.isEmpty()) {
            return RangeLockProtocols.all();
        }
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (String n : protocols) {
            if (!n.isBlank()) {
                names.add(n.trim());
            }
        }
        if (names.isEmpty()) {
            throw new BadInputException("--protocols names no range protocol; known: "
                    + String.join(", ", RangeLockProtocols.names()));
        }
        return names.stream().map(RangeLockProtocols::byName).toList();
    }

    private static RangeWorkload config(Settings s, List<String> options, SimConfig cluster) {
        if (cluster != null && s.durationNs() != null) {
            throw new BadInputException("--duration is wall-clock time; on the sim fabric give --virtual-duration");
        }
        Long measured = cluster != null ? s.virtualDurationNs() : s.durationNs();
        Long operations = s.operations();
        Long warmupNs = s.warmupNs();
        if (measured != null && operations != null) {
            throw new BadInputException("give either a duration or --ops, not both");
        }
        if (operations != null && operations < 1) {
            throw new BadInputException("--ops must be >= 1, got " + operations);
        }
        int n = cluster != null ? cluster.clients()
                : s.clients() == null ? RangeWorkload.DEFAULT_CLIENTS : s.clients();
        var b = RangeWorkload.builder().clients(n).units(s.units()).sizes(RangeWorkload.parseSizes(s.rangeSize()))
                .zipf(s.zipf()).csNs(s.csNs() == null ? 0 : s.csNs()).seed(s.seed()).options(options);
        if (s.readRatio() != null) {
            if (!(s.readRatio() >= 0 && s.readRatio() <= 1)) {
                throw new BadInputException("--read-ratio must be in [0, 1], got " + s.readRatio());
            }
            b.readRatio(s.readRatio());
        }
        if (operations != null) {
            b.operations(operations).warmupNs(warmupNs == null ? 0 : warmupNs);
        } else if (cluster != null) {
            b.durationNs(measured == null ? 10_000_000L : measured).warmupNs(warmupNs == null ? 2_000_000L : warmupNs);
        } else {
            b.durationNs(measured == null ? 2_000_000_000L : measured)
                    .warmupNs(warmupNs == null ? 1_000_000_000L : warmupNs);
        }
        return b.build();
    }

    private static String describe(Settings s, RangeWorkload c, SimConfig cluster, FaultPlan faults,
                                   String testbedNote) {
        String phase = c.byOperations() ? String.format(Locale.ROOT, "%,d ops", c.operations())
                : Durations.format(c.durationNs()) + (cluster == null ? "" : " virtual");
        String who = cluster == null ? c.clients() + " clients"
                : String.format(Locale.ROOT, "%d CN(s) x %d clients, %d MN(s)", cluster.computeNodes(),
                        cluster.clientsPerComputeNode(), cluster.memoryNodes()) + SimTopologyOptions.linkNote(cluster)
                        + testbedNote;
        return String.format(Locale.ROOT, "# %s fabric: %s, N %,d, L %s, zipf %s, cs %s, %s after %s warmup, seed %d, "
                        + "range exclusion checked%s%s%s",
                s.fabric(), who, c.units(), c.sizeName(), c.zipf(), Durations.format(c.csNs()), phase,
                Durations.format(c.warmupNs()), c.seed(),
                s.sharedTable() == null ? "" : " (this process's holds; shared table " + s.sharedTable() + ")",
                (faults.isNone() ? "" : ", faults " + faults.spec())
                        + (c.readRatio() > 0 ? String.format(Locale.ROOT, ", %s%% shared", c.readRatio() * 100) : ""),
                c.options().isEmpty() ? "" : ", options " + String.join(" ", c.options()));
    }
}
