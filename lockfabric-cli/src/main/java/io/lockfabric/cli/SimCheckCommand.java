package io.lockfabric.cli;

import io.lockfabric.bench.ProgressDisplay;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.TextTable;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.range.RangeWorkload;
import io.lockfabric.bench.sim.FaultSummary;
import io.lockfabric.bench.sim.SimCheck;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.Durations;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.LongFunction;
import java.util.stream.Stream;

/**
 * {@code lockfabric sim check}: many seeds of a checked, faulty workload per protocol, point or
 * range (the point workload for lock protocols, the range workload for range protocols); prints
 * each violation with the one command that replays it, and exits 1 if there is any.
 */
@Command(name = "check", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Hunt for bugs: run each protocol under many seeds on the simulated cluster, with faults, and check "
                        + "every run: mutual exclusion, fencing order, guarded counters, liveness (every live client "
                        + "finishes) and crash recovery within the protocol's bound.",
                "Range protocols (citron, ss, lld, ...) run the range workload (--units, --range-size, --range-cs) "
                        + "and are checked for range exclusion, liveness and recovery.",
                "Each seed fixes everything: the workload's choices, network jitter, clock rates and when and whom "
                        + "the faults hit. Each violation is printed with the command that replays its seed.",
                "Liveness is asserted only where the protocol claims to recover from a crashed client; overlaps of "
                        + "a holder paused longer than a lease-based protocol's lease are reported apart, as the "
                        + "double-holder hazard fencing tokens exist for.",
                "Exit status: 0 no violation; 1 violations found; 2 bad input; 3 a run failed."})
final class SimCheckCommand implements Callable<Integer> {
    static final int DEFAULT_COMPUTE_NODES = 2;
    static final int DEFAULT_CLIENTS = 8;
    static final long DEFAULT_LOCKS = 8;
    static final long DEFAULT_VIRTUAL_DURATION_NS = 20_000_000L;
    static final String DEFAULT_FAULTS = "crash,pause";
    static final long DEFAULT_UNITS = 4_096;

    @Spec
    CommandSpec spec;

    @Option(names = "--protocols", paramLabel = "NAME", split = ",",
            description = "Protocols to check, comma-separated, lock or range protocols. Default: every registered "
                    + "protocol that runs on the simulator, then every registered range protocol.")
    List<String> protocols;

    @Option(names = "--seeds", paramLabel = "N", defaultValue = "100",
            description = "Seeds to run per protocol: --first-seed, --first-seed + 1, ... Default: ${DEFAULT-VALUE}.")
    int seeds;

    @Option(names = "--first-seed", paramLabel = "N", defaultValue = "1",
            description = "First seed of the sweep. Default: ${DEFAULT-VALUE}.")
    long firstSeed;

    @Option(names = "--seed", paramLabel = "N",
            description = "Run just this seed and describe it in full (what replays a violation).")
    Long seed;

    @Option(names = "--faults", paramLabel = "LIST", defaultValue = DEFAULT_FAULTS,
            description = "Faults of every run, comma-separated: crash[=N] (clients crash forever, holding what "
                    + "they hold); pause[=N][@LEN|@MIN..MAX] (stop-the-world pauses, default 1us..20ms); "
                    + "mn-pause[=N][@LEN] (memory-node NIC pauses); drop[=P] (lost client-to-client messages, "
                    + "default 0.01); delay[=P][@LEN] (delayed messages); cn-crash@T[:CN] (at T after the run's start, "
                    + "every client of a compute node crashes at once); mn-restart@T[:LEN[:MN]] (at T a memory node "
                    + "fails for LEN, default 1ms: its memory is lost, verbs to it fail, it comes back empty; only "
                    + "cql and declock-* recover, the others fail); none. Default: ${DEFAULT-VALUE}.")
    String faults;

    @CommandLine.Mixin
    SimTopologyOptions topology = new SimTopologyOptions();

    @Option(names = "--clients", paramLabel = "N",
            description = "Clients (when --clients-per-cn is not given). Default: " + DEFAULT_CLIENTS
                    + " on " + DEFAULT_COMPUTE_NODES + " compute nodes.")
    Integer clients;

    @Option(names = "--locks", paramLabel = "N", defaultValue = "" + DEFAULT_LOCKS,
            description = "Locks in the table (few, for contention). Default: ${DEFAULT-VALUE}.")
    long locks;

    @Option(names = "--zipf", paramLabel = "THETA", defaultValue = "" + PointWorkload.DEFAULT_ZIPF,
            description = "Zipf skew of the lock choice. Default: ${DEFAULT-VALUE}.")
    double zipf;

    @Option(names = "--read-ratio", paramLabel = "R", defaultValue = "" + PointWorkload.DEFAULT_READ_RATIO,
            description = "Share of operations that take the lock shared. Default: ${DEFAULT-VALUE}.")
    double readRatio;

    @Option(names = "--cs", paramLabel = "N", defaultValue = "" + PointWorkload.DEFAULT_CS_OPS,
            description = "Remote operations in each critical section. Default: ${DEFAULT-VALUE}.")
    int cs;

    @Option(names = "--units", paramLabel = "N", defaultValue = "" + DEFAULT_UNITS,
            description = "Range protocols: the address space [0, N) of the ranges (few units, for contention; "
                    + "protocols with a 'units' option get it). Default: ${DEFAULT-VALUE}.")
    long units;

    @Option(names = "--range-size", paramLabel = "L", defaultValue = RangeWorkload.MIXED_NAME,
            description = "Range protocols: range size in units, or mixed (a third of the clients each 1, 16, 256). "
                    + "Default: ${DEFAULT-VALUE}.")
    String rangeSize;

    @Option(names = "--range-cs", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "1us",
            description = "Range protocols: how long each range is held. Default: ${DEFAULT-VALUE}.")
    long rangeCsNs;

    @Option(names = "--range-read-ratio", paramLabel = "R", defaultValue = "0",
            description = "Range protocols: share of acquisitions that ask for their range shared (citron shares them "
                    + "with --option citron.shared-lanes=4; others without a shared mode grant them exclusive). "
                    + "Default: ${DEFAULT-VALUE}.")
    double rangeReadRatio;

    @Option(names = "--virtual-duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Virtual time each run works (faults fall in it); the run then gets the protocol's "
                    + "recovery bound and the longest pause to finish. Default: 20ms.")
    Long virtualDurationNs;

    @Option(names = "--option", paramLabel = "[PROTO.]NAME=VALUE",
            description = "A protocol option, repeatable, as for bench (e.g. dslr.lease-ns=1ms, citron.lease-ns=1ms).")
    List<String> options = new ArrayList<>();

    @Option(names = "--verbose", description = "Describe every run's faults and findings, not only violations.")
    boolean verbose;

    /** Range protocols found by name beside the registered ones (tests: a deliberately broken one). */
    List<RangeLockProtocol> extraRangeProtocols = List.of();

    /**
     * One protocol's sweep: its name, failure model, a run of one seed, and the command that replays
     * a seed.
     */
    private record Target(String name, FailureModel model, LongFunction<RunResult> run, LongFunction<String> replay) {
    }

    /**
     * What the options ask for: the protocols' sweeps, the seeds (from {@code first}, {@code count}
     * of them), and the header line that describes the runs.
     */
    private record Sweep(List<Target> targets, long first, int count, String header) {
    }

    /** The {@code --option} pairs for lock protocols and those for range protocols (unqualified pairs in both). */
    private record OptionPairs(List<String> point, List<String> range) {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Sweep sweep = sweepFromOptions();
        boolean describeRuns = verbose || seed != null;

        out.print(sweep.header());
        out.flush();
        List<SimCheck.Tally> tallies = new ArrayList<>();
        int violations = 0;
        boolean progress = ProgressDisplay.consoleIsTerminal() && sweep.count() > 1;
        for (Target target : sweep.targets()) {
            SimCheck.Tally tally = new SimCheck.Tally(target.name());
            violations += checkSeeds(target, sweep.first(), sweep.count(), tally, describeRuns, progress, out, err);
            tallies.add(tally);
        }
        out.print(table(sweep.targets(), tallies));
        out.flush();
        if (violations > 0) {
            err.println("sim check: " + violations + " violation(s); replay each with the command printed under it");
            err.flush();
            return Main.EXIT_VIOLATIONS;
        }
        return Main.EXIT_OK;
    }

    /**
     * Reads and validates the options into the sweep to run: the selected protocols, each with the
     * workload of its kind (point or range), the cluster, the faults and the seeds.
     *
     * @throws BadInputException on an option that is out of range, names no protocol, or does not land
     */
    private Sweep sweepFromOptions() {
        if (seed == null && seeds < 1) {
            throw new BadInputException("--seeds must be >= 1, got " + seeds);
        }
        List<Object> selected = select();
        List<LockProtocol> point = selected.stream().filter(LockProtocol.class::isInstance)
                .map(LockProtocol.class::cast).toList();
        List<RangeLockProtocol> range = selected.stream().filter(RangeLockProtocol.class::isInstance)
                .map(RangeLockProtocol.class::cast).toList();
        OptionPairs pairs = optionPairs();
        ProtocolOptions protocolOptions = ProtocolOptions.parse(pairs.point());
        FaultPlan plan = FaultPlan.parse(faults);
        SimConfig cluster = topology.cluster(clients, DEFAULT_CLIENTS, DEFAULT_COMPUTE_NODES, firstSeed);
        long duration = virtualDurationNs == null ? DEFAULT_VIRTUAL_DURATION_NS : virtualDurationNs;
        if (duration < 1) {
            throw new BadInputException("--virtual-duration must be positive");
        }
        RangeWorkload ranges = range.isEmpty() ? null : RangeWorkload.builder().clients(cluster.clients()).units(units)
                .sizes(RangeWorkload.parseSizes(rangeSize)).zipf(zipf).csNs(rangeCsNs).durationNs(duration).warmupNs(0)
                .seed(firstSeed).options(pairs.range()).readRatio(rangeReadRatio).build();
        validateOptions(point, range, protocolOptions);
        PointWorkload workload = PointWorkload.builder().clients(cluster.clients()).locks(locks).zipf(zipf)
                .readRatio(readRatio).cs(cs).durationNs(duration).warmupNs(0).check(true).options(protocolOptions)
                .build();
        List<Target> targets = targets(selected, cluster, plan, workload, protocolOptions, ranges);
        long first = seed != null ? seed : firstSeed;
        int count = seed != null ? 1 : seeds;
        return new Sweep(targets, first, count,
                header(count, first, plan, cluster, duration, point.isEmpty() ? null : workload, ranges));
    }

    /** Splits the {@code --option} pairs by the kind of protocol they qualify; an unqualified pair goes to both. */
    private OptionPairs optionPairs() {
        List<String> pointPairs = new ArrayList<>();
        List<String> rangePairs = new ArrayList<>();
        for (String raw : options) {
            String qualifier = qualifier(raw);
            if (qualifier == null || !isRange(qualifier)) {
                pointPairs.add(raw);
            }
            if (qualifier == null || isRange(qualifier)) {
                rangePairs.add(raw);
            }
        }
        return new OptionPairs(pointPairs, rangePairs);
    }

    /**
     * A sweep per selected protocol, in order: a lock protocol runs the point {@code workload}, a
     * range protocol the {@code ranges} workload, each checked on {@code cluster} under {@code plan}.
     */
    private List<Target> targets(List<Object> selected, SimConfig cluster, FaultPlan plan,
                                        PointWorkload workload, ProtocolOptions protocolOptions,
                                        RangeWorkload ranges) {
        SimCheck<LockProtocol> pointCheck = new SimCheck<>(cluster, workload, plan);
        SimCheck<RangeLockProtocol> rangeCheck = ranges == null ? null : new SimCheck<>(cluster, ranges, plan);
        List<Target> targets = new ArrayList<>();
        for (Object p : selected) {
            if (p instanceof LockProtocol lock) {
                targets.add(new Target(lock.name(), lock.failureModel(protocolOptions.forProtocol(lock)),
                        s -> pointCheck.run(lock, s), s -> replay(lock, s, pointCheck, workload)));
            } else {
                RangeLockProtocol r = (RangeLockProtocol) p;
                targets.add(new Target(r.name(), r.failureModel(ranges.optionsFor(r)), s -> rangeCheck.run(r, s),
                        s -> replay(r, s, rangeCheck, ranges)));
            }
        }
        return targets;
    }

    /**
     * Runs {@code target} on seeds {@code first} .. {@code first + count - 1} into {@code tally},
     * printing each violation with its replay command (and each run, if {@code describeRuns}) and,
     * if {@code progress}, the seed under way on {@code err}.
     *
     * @return the violations found
     */
    private static int checkSeeds(Target target, long first, int count, SimCheck.Tally tally, boolean describeRuns,
                                  boolean progress, PrintWriter out, PrintWriter err) {
        int violations = 0;
        for (long s = first; s < first + count; s++) {
            if (progress) {
                err.printf(Locale.ROOT, "\r%s: seed %d (%d of %d)   ", target.name(), s, s - first + 1, count);
                err.flush();
            }
            RunResult r = target.run().apply(s);
            tally.add(s, r);
            if (describeRuns) {
                out.print("# seed " + s + ": ");
                out.print(FaultSummary.describe(r));
            }
            for (Violation v : r.violations()) {
                violations++;
                out.printf("VIOLATION %s seed %d: %s%n    replay: %s%n", target.name(), s, v.description(),
                        target.replay().apply(s));
            }
            out.flush();
        }
        if (progress) {
            err.print("\r" + " ".repeat(60) + "\r");
            err.flush();
        }
        return violations;
    }

    /**
     * The protocols named, in order, each a {@link LockProtocol} or a {@link RangeLockProtocol};
     * without names, every lock protocol that runs on the simulator, then every range protocol.
     */
    private List<Object> select() {
        if (protocols == null || protocols.isEmpty()) {
            return Stream.concat(ProtocolSelection.select(null, true).stream(), RangeLockProtocols.all().stream())
                    .map(Object.class::cast).toList();
        }
        Set<String> distinct = new LinkedHashSet<>();
        for (String n : protocols) {
            if (!n.isBlank()) {
                distinct.add(n.trim());
            }
        }
        if (distinct.isEmpty()) {
            throw new BadInputException("--protocols names no protocol; known: " + String.join(", ", knownNames()));
        }
        List<Object> out = new ArrayList<>();
        for (String n : distinct) {
            if (LockProtocols.names().contains(n)) {
                out.addAll(ProtocolSelection.select(List.of(n), true));
            } else if (isRange(n)) {
                out.add(rangeProtocol(n));
            } else {
                throw new BadInputException("unknown protocol '" + n + "'; known: " + String.join(", ", knownNames()));
            }
        }
        return out;
    }

    private List<String> knownNames() {
        List<String> names = new ArrayList<>(LockProtocols.names());
        names.addAll(RangeLockProtocols.names());
        extraRangeProtocols.forEach(p -> names.add(p.name()));
        return names;
    }

    private boolean isRange(String name) {
        return RangeLockProtocols.names().contains(name)
                || extraRangeProtocols.stream().anyMatch(p -> p.name().equals(name));
    }

    private RangeLockProtocol rangeProtocol(String name) {
        return extraRangeProtocols.stream().filter(p -> p.name().equals(name)).findFirst()
                .orElseGet(() -> RangeLockProtocols.byName(name));
    }

    /** The protocol a {@code proto.name=value} pair names, or null for {@code name=value} (or no pair at all). */
    private static String qualifier(String raw) {
        int eq = raw.indexOf('=');
        String key = eq < 0 ? raw : raw.substring(0, eq).trim();
        int dot = key.indexOf('.');
        return dot < 0 ? null : key.substring(0, dot);
    }

    /**
     * Every pair must land: a qualified one on its protocol (which must be selected), an unqualified
     * one on some selected protocol of either kind. With lock protocols only, as bench checks them.
     */
    private void validateOptions(List<LockProtocol> point, List<RangeLockProtocol> range,
                                 ProtocolOptions pointOptions) {
        if (range.isEmpty()) {
            pointOptions.validate(point);
            return;
        }
        List<String> qualifiedPoint = new ArrayList<>();
        List<String> qualifiedRange = new ArrayList<>();
        for (String raw : options) {
            String q = qualifier(raw);
            if (q == null) {
                String name = raw.substring(0, raw.indexOf('=')).trim();
                boolean lands = Stream.concat(point.stream().map(LockProtocol::options),
                        range.stream().map(RangeLockProtocol::options))
                        .anyMatch(known -> known.stream().map(LockOption::name).anyMatch(name::equals));
                if (!lands) {
                    throw new BadInputException("no selected protocol has an option '" + name
                            + "' (see 'lockfabric protocols')");
                }
            } else if (isRange(q)) {
                qualifiedRange.add(raw);
            } else {
                qualifiedPoint.add(raw);
            }
        }
        ProtocolOptions.parse(qualifiedPoint).validate(point);
        RangeWorkload.validateOptions(qualifiedRange, range);
    }

    private String header(int count, long first, FaultPlan plan, SimConfig cluster, long duration,
                                 PointWorkload point, RangeWorkload ranges) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "# sim check: %d seed%s from %d, faults %s, "
                        + "%d CN%s x %d clients, %d MN%s", count, count == 1 ? "" : "s", first, plan.spec(),
                cluster.computeNodes(), cluster.computeNodes() == 1 ? "" : "s", cluster.clientsPerComputeNode(),
                cluster.memoryNodes(), cluster.memoryNodes() == 1 ? "" : "s") + SimTopologyOptions.linkNote(cluster)
                + SimTopologyOptions.testbedNote(topology.testbed(null)));
        if (point != null) {
            sb.append(String.format(Locale.ROOT, ", %,d locks, zipf %s, %.0f%% reads, cs %d", point.locks(),
                    point.zipf(), point.readRatio() * 100, point.cs()));
        }
        if (ranges != null) {
            sb.append(String.format(Locale.ROOT, ", ranges: N %,d, L %s, zipf %s, cs %s", ranges.units(),
                    ranges.sizeName(), ranges.zipf(), Durations.format(ranges.csNs())));
        }
        sb.append(", ").append(Durations.format(duration)).append(" virtual");
        if (ranges == null) {
            sb.append(point.options().isEmpty() ? "" : ", options " + point.options());
        } else if (!ranges.options().isEmpty()) {
            sb.append(", options ").append(String.join(" ", ranges.options()));
        }
        return sb.append('\n').toString();
    }

    private static String table(List<Target> targets, List<SimCheck.Tally> tallies) {
        TextTable table = TextTable.leftAligned("protocol", "runs", "ops", "violations", "hazards", "crashes",
                "stuck (expected)", "recoveries", "recovery time (fastest..slowest)");
        for (int i = 0; i < tallies.size(); i++) {
            SimCheck.Tally t = tallies.get(i);
            FailureModel model = targets.get(i).model();
            table.row(t.protocol(), String.valueOf(t.runs()), String.format(Locale.ROOT, "%,d", t.operations()),
                    String.valueOf(t.violations().size()), String.valueOf(t.hazards()), String.valueOf(t.crashes()),
                    t.stuckExpected() + (t.gaveUpExpected() > 0 ? " + " + t.gaveUpExpected() + " gave up" : ""),
                    String.valueOf(t.recoveries()),
                    (t.minRecoveryNs() < 0 ? "" : Durations.format(t.minRecoveryNs()) + "..")
                            + FaultSummary.recovery(t.maxRecoveryNs(),
                            model.recoversFromCrash() ? model.recoveryBoundNs() : 0));
        }
        return table.render();
    }

    /** The command that runs exactly this protocol and seed again: its kind's workload and its options. */
    private String replay(LockProtocol protocol, long s, SimCheck<LockProtocol> check, PointWorkload w) {
        StringBuilder sb = replayOf(protocol.name(), s, check.faults(), check.cluster())
                .append(" --locks ").append(w.locks())
                .append(" --zipf ").append(w.zipf())
                .append(" --read-ratio ").append(w.readRatio())
                .append(" --cs ").append(w.cs())
                .append(" --virtual-duration ").append(w.durationNs()).append("ns");
        for (String pair : w.options().pairsFor(protocol)) {
            sb.append(" --option ").append(pair);
        }
        return sb.toString();
    }

    private String replay(RangeLockProtocol protocol, long s, SimCheck<RangeLockProtocol> check,
                                 RangeWorkload w) {
        StringBuilder sb = replayOf(protocol.name(), s, check.faults(), check.cluster())
                .append(" --units ").append(w.units())
                .append(" --range-size ").append(w.sizeName())
                .append(" --zipf ").append(w.zipf())
                .append(" --range-cs ").append(w.csNs()).append("ns")
                .append(" --virtual-duration ").append(w.durationNs()).append("ns");
        for (String pair : w.optionPairsFor(protocol)) {
            sb.append(" --option ").append(pair);
        }
        return sb.toString();
    }

    private StringBuilder replayOf(String protocol, long s, FaultPlan faults, SimConfig cluster) {
        return new StringBuilder("lockfabric sim check --protocols ").append(protocol)
                .append(" --seed ").append(s)
                .append(" --faults ").append(faults.spec())
                .append(' ').append(SimTopologyOptions.replay(cluster))
                .append(SimTopologyOptions.replayTestbed(topology.testbed(null)));
    }
}
