package io.lockfabric.cli;

import io.lockfabric.compare.BarChart;
import io.lockfabric.compare.CompareReport;
import io.lockfabric.compare.CompareWorkload;
import io.lockfabric.compare.Comparison;
import io.lockfabric.compare.PeerResult;
import io.lockfabric.compare.PeerUnavailableException;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.protocols.LockProtocols;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lockfabric compare}: the same workload on LockFabric and on its peers, each on its real
 * server started here on loopback ({@link Comparison}), reported side by side.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Run one workload against LockFabric and its peers, side by side: each client thread repeatedly "
                + "takes a Zipf-chosen lock (shared with probability --read-ratio, else exclusive) and releases it at once. "
                + "Every peer runs through its own client library on its real server, which this command starts in a process "
                + "of its own on loopback and stops after (also on Ctrl-C or a failure):",
                "  lockfabric  the client API (LockSpace.acquire, Held.close) on each of --fabrics with each of --protocols; "
                        + "tcp = a memory node (what 'lockfabric serve' runs) in a JVM of its own",
                "  redisson    Redisson RLock (RReadWriteLock when --read-ratio > 0) on redis-server from the PATH, "
                        + "memory only (--save '' --appendonly no); apt-get install redis-server",
                "  curator     Curator InterProcessMutex (InterProcessReadWriteLock when --read-ratio > 0) on a standalone "
                        + "ZooKeeper server (the org.apache.zookeeper server of this build, in a JVM of its own, forceSync=no)",
                "  hazelcast   Hazelcast FencedLock (the CP subsystem's lock; no shared mode: reads take it exclusive) through "
                        + "a Hazelcast client; its members in JVMs of their own (see --hazelcast-members)",
                "  etcd        etcd's Lock through jetcd (a lease per client thread, TTL 10 s, kept alive by jetcd; etcd has "
                        + "no reader-writer lock: reads take the lock exclusive) on etcd from the PATH, one member, data in a "
                        + "temporary directory on /dev/shm, deleted after; apt-get install etcd-server",
                "Every run checks mutual exclusion through the peer's lock (an unguarded counter incremented in every exclusive "
                        + "hold, holders counted): a lock that does not exclude is reported as a violation.",
                "Output: one table (ops/s of acquire + release cycles, p50 / p99 / p99.9 of a cycle, LockFabric's best rate "
                        + "over each row's, and LockFabric's best with its memory node in another process - every fabric but "
                        + "local - over each row's), or CSV / JSON Lines with --format; --chart writes a PNG bar chart. "
                        + "Progress on stderr."},
        footer = {"", "Exit status: 0 ok; 1 a peer's lock failed the mutual-exclusion check; 2 bad input or a peer's server "
                + "missing (the message says how to install it); 3 a run had errors or stuck threads, or a server failed."})
final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--peers", paramLabel = "NAME", split = ",", defaultValue = "lockfabric,redisson,curator,hazelcast,etcd",
            description = "Peers to run, in this order: lockfabric, redisson, curator, hazelcast, etcd. Default: ${DEFAULT-VALUE}.")
    List<String> peers;

    @Option(names = "--fabrics", paramLabel = "ADDRESS", split = ",", defaultValue = "local,tcp",
            description = "LockFabric's fabrics: local (in this JVM), tcp (a memory node this command starts in a JVM of its "
                    + "own), tcp://HOST:PORT (a running 'lockfabric serve'), or any address Fabrics.open takes (shm:PATH "
                    + "where the shm fabric is built in; this command serves a shm file's rpcs unless another process does). Default: ${DEFAULT-VALUE}.")
    List<String> fabrics;

    @Option(names = "--protocols", paramLabel = "NAME", split = ",", defaultValue = "default",
            description = "LockFabric's lock protocols, each run on every fabric; 'default' is the client API's default for "
                    + "the fabric (dslr on local, declock-tf on tcp). Default: ${DEFAULT-VALUE}.")
    List<String> protocols;

    @Option(names = "--local-handovers", paramLabel = "N", split = ",", defaultValue = "0",
            description = "LockFabric's local handovers (LockFabric.Builder.localHandovers): a released exclusive lock passes "
                    + "to another thread of the process waiting for it, at most N times in a row, before it goes back to the "
                    + "memory node. Several values run each fabric and protocol once per value, side by side (rows named "
                    + "PROTOCOL+lhN). Default: ${DEFAULT-VALUE} (every acquisition asks the memory node).")
    List<Integer> localHandovers;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "16",
            description = "Client threads (LockFabric: a pool of as many endpoints). Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(names = "--locks", paramLabel = "N", defaultValue = "1000",
            description = "Locks the threads choose from. Default: ${DEFAULT-VALUE}.")
    int locks;

    @Option(names = "--zipf", paramLabel = "THETA", defaultValue = "0.99",
            description = "Skew of the lock choice (lock 0 hottest), 0 uniform. Default: ${DEFAULT-VALUE}.")
    double zipf;

    @Option(names = "--read-ratio", paramLabel = "R", defaultValue = "0",
            description = "Share of shared (read) acquisitions, 0 to 1. Default: ${DEFAULT-VALUE}.")
    double readRatio;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "5s",
            description = "Measured time of each peer's run. Default: ${DEFAULT-VALUE}.")
    long durationNs;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "5s",
            description = "Unmeasured time before each run's measurement: the JIT compilers of the client's JVM and of a"
                    + " server's (the memory node, a Hazelcast member) work for several seconds after it starts, and a"
                    + " shorter warm-up measures them compiling. Default: ${DEFAULT-VALUE}.")
    long warmupNs;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
            description = "Seed of the threads' lock choices. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--virtual-threads",
            description = "Run every peer's client threads as virtual threads (LockFabric's tcp fabrics are then built "
                    + "for them: a reader thread per connection, writes batched across the threads a batch of replies woke). "
                    + "Default: platform threads.")
    boolean virtualThreads;

    @Option(names = "--client-processes", paramLabel = "N", split = ",", defaultValue = "1",
            description = "Run the client threads in N JVMs of their own (N > 1) instead of this one, for every peer alike: "
                    + "each JVM gets its share of --threads (16 threads in 2 processes: 8 each) and its own client of the "
                    + "peer, they start together, and their counts and latencies add up to one row, named ROW/Np. The "
                    + "mutual-exclusion check counts in a file all of them map (on /dev/shm), so holders in different "
                    + "processes that overlap are caught. With the launcher's one carrier for virtual threads, this is how "
                    + "virtual-thread clients use more than one core. Several values run every peer once per value, side by "
                    + "side. The local fabric (one process's memory) runs in this JVM only. Default: ${DEFAULT-VALUE}.")
    List<Integer> clientProcesses;

    @Option(names = "--hazelcast-members", paramLabel = "N", defaultValue = "1",
            description = "Hazelcast members to start: 1 runs the CP subsystem off, so FencedLock works in Hazelcast's "
                    + "'unsafe' mode (kept on the partitioned AP layer, no Raft: not safe across member failures or "
                    + "partitions); 3 or more make every member a CP member and FencedLock a Raft group of that many. "
                    + "Default: ${DEFAULT-VALUE}.")
    int hazelcastMembers;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "Report format: table, csv (header + one row per peer), json (one object per peer, JSON Lines). "
                    + "Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--chart", paramLabel = "FILE.png",
            description = "Also write a PNG bar chart (ops/s and p99, log scales) to FILE.png.")
    Path chart;

    @Override
    public Integer call() throws InterruptedException {
        if (!List.of("table", "csv", "json").contains(format)) {
            throw new BadInputException("--format must be table, csv or json, got '" + format + "'");
        }
        for (String p : protocols) {
            if (!p.equals("default")) {
                try {
                    LockProtocols.byName(p);
                } catch (IllegalArgumentException e) {
                    throw new BadInputException("--protocols: " + e.getMessage());
                }
            }
        }
        for (String f : fabrics) {
            if (f.equals("sim") || f.startsWith("sim:")) {
                throw new BadInputException("--fabrics: compare needs real-time fabrics (local, tcp, tcp://HOST:PORT, shm:PATH); "
                        + "the client API does not run on the simulator");
            }
        }
        CompareWorkload workload;
        Comparison.Settings settings;
        try {
            workload = new CompareWorkload(threads, locks, zipf, readRatio, warmupNs, durationNs, seed, virtualThreads);
            settings = new Comparison.Settings(peers, fabrics, protocols, workload, hazelcastMembers, localHandovers,
                    clientProcesses);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        List<PeerResult> results;
        try (Comparison comparison = new Comparison(settings, System.err)) {
            try {
                comparison.checkAvailable();
            } catch (PeerUnavailableException e) {
                throw new BadInputException(e.getMessage());
            }
            System.err.printf(Locale.ROOT, "compare: load average %.2f on %d processors at the start%n", load,
                    Runtime.getRuntime().availableProcessors());
            try {
                results = comparison.run();
            } catch (PeerUnavailableException | FabricException | io.lockfabric.LockFabricException e) {
                err.println("lockfabric: compare failed: " + e.getMessage());
                err.flush();
                return Main.EXIT_RUN_FAILED;
            }
        }
        CompareReport report = new CompareReport(workload, results);
        switch (format) {
            case "csv" -> out.print(report.csv());
            case "json" -> out.print(report.json());
            default -> {
                out.print(report.table());
                out.printf(Locale.ROOT, "load average: %.2f at the start, %.2f at the end (%d processors)%n", load,
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                        Runtime.getRuntime().availableProcessors());
            }
        }
        out.flush();
        if (chart != null) {
            try {
                BarChart.write(report, chart);
                err.println("compare: chart written to " + chart);
            } catch (IOException e) {
                err.println("lockfabric: cannot write the chart to " + chart + ": " + e.getMessage());
                err.flush();
                return Main.EXIT_RUN_FAILED;
            }
        }
        err.flush();
        if (results.stream().anyMatch(r -> r.violations() > 0)) {
            return Main.EXIT_VIOLATIONS;
        }
        return results.stream().allMatch(PeerResult::ok) ? Main.EXIT_OK : Main.EXIT_RUN_FAILED;
    }
}
