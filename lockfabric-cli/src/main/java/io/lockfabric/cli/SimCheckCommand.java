package io.lockfabric.cli;

import io.lockfabric.bench.ProgressDisplay;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.TextTable;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.sim.FaultSummary;
import io.lockfabric.bench.sim.SimCheck;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.Durations;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lockfabric sim check}: many seeds of a checked, faulty workload per protocol; prints each
 * violation with the one command that replays it, and exits 1 if there is any.
 */
@Command(name = "check", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Hunt for bugs: run each protocol under many seeds on the simulated cluster, with faults, and check "
                        + "every run: mutual exclusion, fencing order, guarded counters, liveness (every live client "
                        + "finishes) and crash recovery within the protocol's bound.",
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

    @Spec
    CommandSpec spec;

    @Option(names = "--protocols", paramLabel = "NAME", split = ",",
            description = "Protocols to check, comma-separated. Default: every registered protocol that runs on "
                    + "the simulator.")
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
                    + "default 0.01); delay[=P][@LEN] (delayed messages); none. Default: ${DEFAULT-VALUE}.")
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

    @Option(names = "--virtual-duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Virtual time each run works (faults fall in it); the run then gets the protocol's "
                    + "recovery bound and the longest pause to finish. Default: 20ms.")
    Long virtualDurationNs;

    @Option(names = "--option", paramLabel = "[PROTO.]NAME=VALUE",
            description = "A protocol option, repeatable, as for bench (e.g. dslr.lease-ns=1ms).")
    List<String> options = new ArrayList<>();

    @Option(names = "--verbose", description = "Describe every run's faults and findings, not only violations.")
    boolean verbose;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (seed == null && seeds < 1) {
            throw new BadInputException("--seeds must be >= 1, got " + seeds);
        }
        List<LockProtocol> selected = ProtocolSelection.select(protocols, true);
        ProtocolOptions protocolOptions = ProtocolOptions.parse(options);
        protocolOptions.validate(selected);
        FaultPlan plan = FaultPlan.parse(faults);
        SimConfig cluster = topology.cluster(clients, DEFAULT_CLIENTS, DEFAULT_COMPUTE_NODES, firstSeed);
        long duration = virtualDurationNs == null ? DEFAULT_VIRTUAL_DURATION_NS : virtualDurationNs;
        if (duration < 1) {
            throw new BadInputException("--virtual-duration must be positive");
        }
        PointWorkload workload = PointWorkload.builder().clients(cluster.clients()).locks(locks).zipf(zipf)
                .readRatio(readRatio).cs(cs).durationNs(duration).warmupNs(0).check(true).options(protocolOptions)
                .build();
        SimCheck<LockProtocol> check = new SimCheck<>(cluster, workload, plan);
        long first = seed != null ? seed : firstSeed;
        int count = seed != null ? 1 : seeds;
        boolean describeRuns = verbose || seed != null;

        out.printf(Locale.ROOT, "# sim check: %d seed%s from %d, faults %s, %d CN%s x %d clients, %d MN%s, %,d locks, "
                        + "zipf %s, %.0f%% reads, cs %d, %s virtual%s%n", count, count == 1 ? "" : "s", first,
                plan.spec(), cluster.computeNodes(), cluster.computeNodes() == 1 ? "" : "s",
                cluster.clientsPerComputeNode(), cluster.memoryNodes(), cluster.memoryNodes() == 1 ? "" : "s", locks,
                zipf, readRatio * 100, cs, Durations.format(duration),
                protocolOptions.isEmpty() ? "" : ", options " + protocolOptions);
        out.flush();
        List<SimCheck.Tally> tallies = new ArrayList<>();
        int violations = 0;
        boolean progress = ProgressDisplay.consoleIsTerminal() && count > 1;
        for (LockProtocol protocol : selected) {
            SimCheck.Tally tally = new SimCheck.Tally(protocol.name());
            for (long s = first; s < first + count; s++) {
                if (progress) {
                    err.printf(Locale.ROOT, "\r%s: seed %d (%d of %d)   ", protocol.name(), s, s - first + 1, count);
                    err.flush();
                }
                RunResult r = check.run(protocol, s);
                tally.add(s, r);
                if (describeRuns) {
                    out.print("# seed " + s + ": ");
                    out.print(FaultSummary.describe(r));
                }
                for (Violation v : r.violations()) {
                    violations++;
                    out.printf("VIOLATION %s seed %d: %s%n    replay: %s%n", protocol.name(), s, v.description(),
                            replay(protocol, s, check, workload));
                }
                out.flush();
            }
            if (progress) {
                err.print("\r" + " ".repeat(60) + "\r");
                err.flush();
            }
            tallies.add(tally);
        }
        out.print(table(selected, tallies, protocolOptions));
        out.flush();
        if (violations > 0) {
            err.println("sim check: " + violations + " violation(s); replay each with the command printed under it");
            err.flush();
            return Main.EXIT_VIOLATIONS;
        }
        return Main.EXIT_OK;
    }

    private static String table(List<LockProtocol> selected, List<SimCheck.Tally> tallies, ProtocolOptions options) {
        TextTable table = TextTable.leftAligned("protocol", "runs", "ops", "violations", "hazards", "crashes",
                "stuck (expected)", "recoveries", "recovery time (fastest..slowest)");
        for (int i = 0; i < tallies.size(); i++) {
            SimCheck.Tally t = tallies.get(i);
            FailureModel model = selected.get(i).failureModel(options.forProtocol(selected.get(i)));
            table.row(t.protocol(), String.valueOf(t.runs()), String.format(Locale.ROOT, "%,d", t.operations()),
                    String.valueOf(t.violations().size()), String.valueOf(t.hazards()), String.valueOf(t.crashes()),
                    String.valueOf(t.stuckExpected()), String.valueOf(t.recoveries()),
                    (t.minRecoveryNs() < 0 ? "" : Durations.format(t.minRecoveryNs()) + "..")
                            + FaultSummary.recovery(t.maxRecoveryNs(),
                            model.recoversFromCrash() ? model.recoveryBoundNs() : 0));
        }
        return table.render();
    }

    /** The command that runs exactly this protocol and seed again. */
    private static String replay(LockProtocol protocol, long s, SimCheck<LockProtocol> check, PointWorkload w) {
        StringBuilder sb = new StringBuilder("lockfabric sim check --protocols ").append(protocol.name())
                .append(" --seed ").append(s)
                .append(" --faults ").append(check.faults().spec())
                .append(' ').append(SimTopologyOptions.replay(check.cluster()))
                .append(" --locks ").append(w.locks())
                .append(" --zipf ").append(w.zipf())
                .append(" --read-ratio ").append(w.readRatio())
                .append(" --cs ").append(w.cs())
                .append(" --virtual-duration ").append(w.durationNs()).append("ns");
        for (String pair : w.options().pairs()) {
            sb.append(" --option ").append(pair);
        }
        return sb.toString();
    }
}
