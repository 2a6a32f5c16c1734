package io.lockfabric.cli;

import io.lockfabric.apps.fs.FsLockManager;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.fs.FsTrace;
import io.lockfabric.bench.fs.FsWorkload;
import io.lockfabric.fabric.Durations;
import io.lockfabric.fabric.FabricTiming;
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
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code lockfabric fs}: CitronFS (CITRON §4.3) under BT-IO, Filebench OLTP or IO500 hard-write, one
 * run per lock manager on the {@code --fabric}, through the bench's runner and reports
 * ({@link FsWorkload}); every read is checked, and a mismatch exits 1.
 */
@Command(name = "fs", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Run CitronFS (CITRON section 4.3), a distributed in-memory file system whose inodes, extent maps and "
                        + "file bytes live on the memory nodes, under a file-system workload: every I/O takes a byte-range "
                        + "lock on its bytes (any range protocol) or the file's mutex (mutex, mutex:PROTOCOL).",
                "Workloads: btio (BT-IO class D: non-conflicting interleaved writes, then reads, of one shared file; "
                        + "16 320 B per I/O for 1 process .. 2 040 B for 64), oltp (Filebench OLTP, distributed: per group of "
                        + "61 clients 1 log writer, 10 data writers, 50 readers), hardwrite (IO500 hard-write: 47 008 B "
                        + "appends to one shared file).",
                "Reports operations and bytes per second, p50 and p99 per operation kind, and the check: BT-IO reads "
                        + "compare every word with what the process wrote, OLTP reads find whole 8 KiB blocks (exit "
                        + "status 1 otherwise). Each client creates the files in its first operation: give a warmup."})
final class FsCommand implements Callable<Integer> {
    static final String DEFAULT_MANAGERS = "citron,mutex";
    static final long DEFAULT_DURATION_NS = 2_000_000_000L;
    static final long DEFAULT_WARMUP_NS = 500_000_000L;
    static final long DEFAULT_VIRTUAL_DURATION_NS = 5_000_000L;
    static final long DEFAULT_VIRTUAL_WARMUP_NS = 1_000_000L;

    @Spec
    CommandSpec spec;

    @CommandLine.Parameters(index = "0", paramLabel = "WORKLOAD",
            description = "btio, oltp or hardwrite.")
    String workloadName;

    @Option(names = "--fabric", paramLabel = "ADDRESS", defaultValue = FabricChoice.LOCAL,
            description = "Fabric to run on: local (this JVM), tcp://HOST:PORT (a 'lockfabric serve' memory node), "
                    + "shm:/PATH or sim (the simulated RDMA cluster, virtual time; with --mns N > 1 the file data is "
                    + "striped over memory nodes 1..N-1 and node 0 keeps the metadata and locks). Default: ${DEFAULT-VALUE}.")
    String fabric;

    @CommandLine.Mixin
    SimTopologyOptions topology = new SimTopologyOptions();

    @Option(names = {"--lock", "--locks"}, paramLabel = "NAME", split = ",", defaultValue = DEFAULT_MANAGERS,
            description = "Lock managers to compare, comma-separated: a range protocol (see 'lockfabric protocols'), "
                    + "mutex (one DSLR mutex per file: the paper's inode mutex) or mutex:PROTOCOL. Default: ${DEFAULT-VALUE}.")
    List<String> managers;

    @Option(names = "--shared-reads",
            description = "Reads lock their range SHARED where the lock manager has a shared mode (the paper locks "
                    + "exclusive; on an exclusive-only manager this changes nothing).")
    boolean sharedReads;

    @Option(names = "--clients", paramLabel = "N",
            description = "Clients (BT-IO: processes, a square number). Default: btio 16, oltp 61 (one group), "
                    + "hardwrite 64 (sim: --cns x --clients-per-cn when given).")
    Integer clients;

    @Option(names = "--rows", paramLabel = "N",
            description = "btio: the y and z dimensions of the array (class D's x, 408, is kept: it gives the I/O "
                    + "size); a multiple of sqrt(processes). Default: 16.")
    Integer rows;

    @Option(names = "--steps", paramLabel = "N",
            description = "btio: output steps per cycle (each appends the array to the file). Default: 2.")
    Integer steps;

    @Option(names = "--file-mb", paramLabel = "MB",
            description = "oltp: bytes of each data file and of the log, in MiB. Default: 10 (the paper's).")
    Integer fileMb;

    @Option(names = "--no-data",
            description = "hardwrite: take and release the range locks only, no data (the paper's Fig. 10 replay; "
                    + "offsets then grow without wrapping).")
    boolean noData;

    @Option(names = "--wrap-mb", paramLabel = "MB",
            description = "hardwrite with data: offsets wrap after this many MiB, so memory stays bounded. Default: 64.")
    Integer wrapMb;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Length of the measured phase, with a unit: 2s, 500ms. Default: 2s.")
    Long durationNs;

    @Option(names = "--virtual-duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Sim fabric: length of the measured phase in virtual time. Default: 5ms (after 1ms of warmup).")
    Long virtualDurationNs;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Warmup before the measured phase (the clients create and preallocate the files in it). "
                    + "Default: 500ms (sim: 1ms virtual).")
    Long warmupNs;

    @Option(names = "--faults", paramLabel = "LIST",
            description = "Sim fabric: faults every run suffers: crash[=N], pause[=N][@LEN|@MIN..MAX], mn-pause[=N][@LEN], "
                    + "drop[=P], delay[=P][@LEN], cn-crash@T[:CN], mn-restart@T[:LEN[:MN]] (see 'lockfabric sim check --help').")
    String faults;

    @Option(names = "--history",
            description = "Also record every grant and check that no holds overlap (always on the sim fabric).")
    boolean history;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed of the clients' choices (and on the sim fabric of everything). Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--option", paramLabel = "[MANAGER.]NAME=VALUE",
            description = "A lock option, repeatable: NAME=VALUE for every manager that has it, MANAGER.NAME=VALUE "
                    + "for one (citron.units=16777216, ss.segment=4096, dslr.lease-ns=1s). By default citron's and ss's N "
                    + "is sized to the largest file and ss's segment is the workload's I/O size (4096 for oltp).")
    List<String> options = new ArrayList<>();

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "Report format: table, csv or json (JSON Lines, one object per lock manager). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--output", paramLabel = "FILE", description = "Write the report to FILE instead of standard output.")
    Path output;

    @Override
    public Integer call() {
        FabricChoice choice = FabricChoice.parse(fabric, "");
        boolean sim = choice.isSim();
        boolean tcp = choice.isTcp();
        if (!sim && (topology.anyGiven() || virtualDurationNs != null || faults != null)) {
            throw SimTopologyOptions.simOnly("--virtual-duration", "--faults");
        }
        if (sim && durationNs != null) {
            throw new BadInputException("--duration is wall-clock time; on the sim fabric give --virtual-duration");
        }
        FabricTiming tcpTiming = tcp ? BenchExecution.checkReachable(choice) : null;
        List<FsLockManager> selected = new ArrayList<>();
        for (String name : managers) {
            try {
                FsLockManager m = FsLockManager.byName(name.trim());
                if (selected.stream().noneMatch(s -> s.name().equals(m.name()))) {
                    selected.add(m);
                }
            } catch (IllegalArgumentException e) {
                throw new BadInputException(e.getMessage());
            }
        }
        int defaultClients = switch (workloadName) {
            case "btio" -> 16;
            case "oltp" -> FsTrace.Oltp.paper().clientsPerGroup();
            case "hardwrite" -> 64;
            default -> throw new BadInputException("unknown workload '" + workloadName + "': btio, oltp or hardwrite");
        };
        SimConfig cluster = sim ? topology.cluster(choice.address(), clients, defaultClients, 1, seed) : null;
        int n = cluster != null ? cluster.clients() : clients == null ? defaultClients : clients;
        if (n < 1) {
            throw new BadInputException("--clients must be >= 1, got " + n);
        }
        FsTrace trace = trace(n);
        List<String> pairs = new ArrayList<>(sizedToTheFiles(trace));
        if (!sim) {
            for (FsLockManager m : selected) { // the client API's lease for a protocol whose own is sized for microseconds
                if (m.options().stream().anyMatch(o -> o.name().equals("lease-ns"))) {
                    pairs.add(m.name() + ".lease-ns=1s");
                }
            }
        }
        pairs.addAll(options);
        if (tcp) {
            Map<String, List<io.lockfabric.lock.LockOption>> known = new LinkedHashMap<>();
            selected.forEach(m -> known.put(m.name(), m.options()));
            pairs = BenchExecution.withTcpDefaults(tcpTiming, known, pairs, spec.commandLine().getErr());
        }
        long duration = sim ? (virtualDurationNs == null ? DEFAULT_VIRTUAL_DURATION_NS : virtualDurationNs)
                : durationNs == null ? DEFAULT_DURATION_NS : durationNs;
        long warmup = warmupNs != null ? warmupNs : sim ? DEFAULT_VIRTUAL_WARMUP_NS : DEFAULT_WARMUP_NS;
        if (duration < 1) {
            throw new BadInputException("the duration must be positive");
        }
        FaultPlan plan = faults == null ? FaultPlan.NONE : FaultPlan.parse(faults);
        FsWorkload workload;
        try {
            workload = new FsWorkload(new Phases(n, duration, 0, warmup, seed), trace, sharedReads, history, pairs);
            for (FsLockManager m : selected) {
                io.lockfabric.lock.LockOptions.parse(workload.optionsFor(m)).validate(m.name(), m.options());
            }
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
        String header = String.format(Locale.ROOT, "# %s fabric: %s, %s, %s after %s warmup%s, seed %d%s%s%s", fabric,
                cluster == null ? n + " clients" : cluster.computeNodes() + " CNs x " + cluster.clientsPerComputeNode()
                        + " clients, " + cluster.memoryNodes() + " MNs", trace.describe(),
                Durations.format(duration) + (sim ? " virtual" : ""), Durations.format(warmup), sim ? " virtual" : "", seed,
                sharedReads ? ", shared reads" : "", faults == null ? "" : ", faults " + plan.spec(),
                pairs.isEmpty() ? "" : ", options " + String.join(" ", pairs));
        return new BenchExecution<FsLockManager>(choice, cluster, seed, plan, null, FsLockManager::name, "")
                .onTestbed(sim ? topology.testbed(choice.address()) : java.util.Optional.empty())
                .execute(spec, selected, workload, ReportFormat.byName(format), header, output);
    }

    /**
     * The range protocols' trees and segments sized to the trace's files unless the user says
     * otherwise (a later --option wins): citron's and ss's N the smallest 64 x 4^j at or above the
     * largest file (at most CITRON's 2^28; a lock-only hard-write keeps the defaults and grows), ss's
     * segment the trace's I/O granularity (the paper's SS-Exact, SS-4KB for OLTP).
     */
    static List<String> sizedToTheFiles(FsTrace trace) {
        if (trace instanceof FsTrace.HardWrite h && !h.data()) {
            return List.of();
        }
        long units = 64;
        while (units < trace.maxFileBytes() && units < (1L << 28)) {
            units *= 4;
        }
        return List.of("citron.units=" + units, "ss.units=" + units, "ss.segment=" + trace.granularity());
    }

    private FsTrace trace(int n) {
        try {
            return switch (workloadName) {
                case "btio" -> FsTrace.BtIo.classD(n, rows == null ? 16 : rows, steps == null ? 2 : steps);
                case "oltp" -> {
                    FsTrace.Oltp p = FsTrace.Oltp.paper();
                    long bytes = (fileMb == null ? 10L : fileMb) << 20;
                    yield new FsTrace.Oltp(p.dataFiles(), bytes, p.logWriters(), p.dataWriters(), p.readers(), p.ioBytes(),
                            p.logBytes(), p.writesPerReads(), p.readsPerWrites(), p.readsPerLogWrite());
                }
                case "hardwrite" -> new FsTrace.HardWrite(FsTrace.HardWrite.IO500_WRITE_BYTES, !noData,
                        (wrapMb == null ? 64L : wrapMb) << 20);
                default -> throw new BadInputException("unknown workload '" + workloadName + "': btio, oltp or hardwrite");
            };
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
    }
}
