package io.lockfabric.cli;

import io.lockfabric.apps.objstore.ObjectTrace;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.objstore.ObjectStoreWorkload;
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
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code lockfabric objstore}: the object store of DecLock §6.6 (Fig. 17) as a workload, one run per
 * protocol on the {@code --fabric}, through the bench's runner and reports
 * ({@link ObjectStoreWorkload}); every get is checked whole, and a torn value exits 1.
 */
@Command(name = "objstore", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Run the object store (DecLock section 6.6): objects of variable size live on the memory node; each client "
                        + "repeatedly gets (the object's lock shared, one READ of its value) or sets (exclusive, one WRITE) an "
                        + "object chosen by a Zipf law, with the parameters of a Twitter cache trace.",
                "Reports goodput, the value bytes moved, get and set latency, the protocol's verbs and retries per "
                        + "operation. Every get is verified whole (check word and key); a torn value is a violation "
                        + "(exit status 1).",
                "Client 0 bulk-loads every object first (the others wait for it): give the run a warmup."})
final class ObjectStoreCommand implements Callable<Integer> {
    static final int DEFAULT_CLIENTS = 8;
    static final long DEFAULT_OBJECTS = 10_000;
    static final String DEFAULT_PROTOCOLS = "cas,dslr,shiftlock,declock-pf";
    static final long DEFAULT_DURATION_NS = 2_000_000_000L;
    static final long DEFAULT_WARMUP_NS = 1_000_000_000L;
    static final long DEFAULT_VIRTUAL_DURATION_NS = 10_000_000L;
    static final long DEFAULT_VIRTUAL_WARMUP_NS = 2_000_000L;

    @Spec
    CommandSpec spec;

    @Option(names = "--fabric", paramLabel = "ADDRESS", defaultValue = FabricChoice.LOCAL,
            description = "Fabric to run on: local (this JVM), tcp://HOST:PORT (a 'lockfabric serve' memory node), "
                    + "shm:/PATH (a shared-memory file) or sim (the simulated RDMA cluster, virtual time; see --cns, "
                    + "--clients-per-cn, --virtual-duration, --faults). Default: ${DEFAULT-VALUE}.")
    String fabric;

    @CommandLine.Mixin
    SimTopologyOptions topology = new SimTopologyOptions();

    @Option(names = "--trace", paramLabel = "NAME", defaultValue = "small",
            description = "The operations: small (values of 414 B on average, 65%% gets: IOPS-bound) or large "
                    + "(9 213 B, 89%% gets: bandwidth-bound), the Twitter traces DecLock's object store runs. "
                    + "Default: ${DEFAULT-VALUE}.")
    String trace;

    @Option(names = {"--protocol", "--protocols"}, paramLabel = "NAME", split = ",", defaultValue = DEFAULT_PROTOCOLS,
            description = "Lock protocols to compare, comma-separated (a get takes the object's lock shared; "
                    + "exclusive on an exclusive-only protocol). Default: ${DEFAULT-VALUE} (Fig. 17's).")
    List<String> protocols;

    @Option(names = "--clients", paramLabel = "N",
            description = "Clients, each with its own endpoint, store client and lock client. Default: "
                    + DEFAULT_CLIENTS + " (sim: --cns x --clients-per-cn when given).")
    Integer clients;

    @Option(names = "--objects", paramLabel = "N",
            description = "Objects in the store (index slots; the memory node holds a value of each). Default: "
                    + DEFAULT_OBJECTS + ".")
    Long objects;

    @Option(names = "--zipf", paramLabel = "THETA",
            description = "Zipf skew of the object choice (object 0 hottest), in [0, 10]; 0 is uniform. Default: "
                    + ObjectTrace.DEFAULT_THETA + ".")
    Double zipf;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Length of the measured phase, with a unit: 2s, 500ms. Default: 2s.")
    Long durationNs;

    @Option(names = "--virtual-duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Sim fabric: length of the measured phase in virtual time. Default: 10ms (after 2ms of warmup).")
    Long virtualDurationNs;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Warmup before the measured phase (the clients load the objects in it). Default: 1s "
                    + "(sim: 2ms virtual).")
    Long warmupNs;

    @Option(names = "--faults", paramLabel = "LIST",
            description = "Sim fabric: faults every run suffers: crash[=N], pause[=N][@LEN|@MIN..MAX], mn-pause[=N][@LEN], "
                    + "drop[=P], delay[=P][@LEN], cn-crash@T[:CN], mn-restart@T[:LEN[:MN]] (see 'lockfabric sim check --help'). Also records and checks the holds.")
    String faults;

    @Option(names = "--history",
            description = "Also record every grant and check that no holds overlap (always on the sim fabric). Keeps "
                    + "the history in memory: use short runs.")
    boolean history;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed of the clients' choices (and on the sim fabric of everything). Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--option", paramLabel = "[PROTO.]NAME=VALUE",
            description = "A protocol option, repeatable (see 'lockfabric protocols').")
    List<String> options = new ArrayList<>();

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "Report format: table, csv or json (JSON Lines, one object per protocol). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--output", paramLabel = "FILE", description = "Write the report to FILE instead of standard output.")
    Path output;

    @Override
    public Integer call() {
        FabricChoice choice = FabricChoice.parse(fabric, "");
        boolean sim = choice.isSim();
        boolean tcp = choice.isTcp();
        if (!sim && (topology.anyGiven() || virtualDurationNs != null || faults != null)) {
            throw new BadInputException("--cns, --clients-per-cn, --mns, --virtual-duration and --faults apply to "
                    + "--fabric sim only");
        }
        if (sim && durationNs != null) {
            throw new BadInputException("--duration is wall-clock time; on the sim fabric give --virtual-duration");
        }
        FabricTiming tcpTiming = tcp ? BenchExecution.checkReachable(choice) : null;
        ObjectTrace t = trace();
        ReportFormat reportFormat = ReportFormat.byName(format);
        List<LockProtocol> selected = ProtocolSelection.select(protocols, sim || tcp);
        List<String> pairs = sim ? options : withLeases(selected, options);
        ProtocolOptions protocolOptions = ProtocolOptions.parse(tcp ? BenchExecution.withTcpDefaults(tcpTiming,
                selected.stream().collect(Collectors.toMap(LockProtocol::name, LockProtocol::options, (x, y) -> x,
                        LinkedHashMap::new)), pairs, spec.commandLine().getErr()) : pairs);
        protocolOptions.validate(selected);
        SimConfig cluster = sim ? topology.cluster(choice.address(), clients, DEFAULT_CLIENTS, 1, seed) : null;
        int n = cluster != null ? cluster.clients() : clients == null ? DEFAULT_CLIENTS : clients;
        if (n < 1) {
            throw new BadInputException("--clients must be >= 1, got " + n);
        }
        long duration = sim ? (virtualDurationNs == null ? DEFAULT_VIRTUAL_DURATION_NS : virtualDurationNs)
                : durationNs == null ? DEFAULT_DURATION_NS : durationNs;
        long warmup = warmupNs != null ? warmupNs : sim ? DEFAULT_VIRTUAL_WARMUP_NS : DEFAULT_WARMUP_NS;
        if (duration < 1) {
            throw new BadInputException("the duration must be positive");
        }
        FaultPlan plan = faults == null ? FaultPlan.NONE : FaultPlan.parse(faults);
        ObjectStoreWorkload workload = new ObjectStoreWorkload(new Phases(n, duration, 0, warmup, seed), t, history,
                false, protocolOptions);
        String header = String.format(Locale.ROOT, "# %s fabric: %s, %s, %s after %s warmup%s, seed %d%s%s", fabric,
                cluster == null ? n + " clients" : cluster.computeNodes() + " CNs x " + cluster.clientsPerComputeNode()
                        + " clients", t, Durations.format(duration) + (sim ? " virtual" : ""), Durations.format(warmup),
                sim ? " virtual" : "", seed, faults == null ? "" : ", faults " + plan.spec(),
                protocolOptions.isEmpty() ? "" : ", options " + protocolOptions);
        return new BenchExecution<LockProtocol>(choice, cluster, seed, plan, null, LockProtocol::name, "")
                .onTestbed(sim ? topology.testbed(choice.address()) : java.util.Optional.empty())
                .execute(spec, selected, workload, reportFormat, header, output);
    }

    /**
     * On a real-time fabric, the client API's lease (1 s) for each protocol with a {@code lease-ns}
     * option, before the user's options (which win): the protocols' own defaults (10 ms) are sized for
     * critical sections of microseconds, and a get or set of a value held by a thread the scheduler
     * set aside on a busy machine outlasts them (dslr then gives up on its resets).
     */
    private static List<String> withLeases(List<LockProtocol> selected, List<String> user) {
        List<String> pairs = new ArrayList<>();
        for (LockProtocol p : selected) {
            if (p.options().stream().anyMatch(o -> o.name().equals("lease-ns"))) {
                pairs.add(p.name() + ".lease-ns=1s");
            }
        }
        pairs.addAll(user);
        return pairs;
    }

    private ObjectTrace trace() {
        long n = objects == null ? DEFAULT_OBJECTS : objects;
        if (n < 1 || n > ObjectTrace.MAX_OBJECTS) {
            throw new BadInputException("--objects must be in [1, " + ObjectTrace.MAX_OBJECTS + "], got " + n);
        }
        double theta = zipf == null ? ObjectTrace.DEFAULT_THETA : zipf;
        if (!(theta >= 0 && theta <= 10)) {
            throw new BadInputException("--zipf must be in [0, 10], got " + theta);
        }
        if (!trace.equals("small") && !trace.equals("large")) {
            throw new BadInputException("unknown --trace '" + trace + "': small or large");
        }
        return ObjectTrace.byName(trace, n, theta);
    }
}
