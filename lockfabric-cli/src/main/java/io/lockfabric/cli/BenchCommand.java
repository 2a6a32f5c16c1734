package io.lockfabric.cli;

import io.lockfabric.bench.MicroBenchConfig;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.local.LocalFabric;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockProtocols;
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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

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

    @Spec
    CommandSpec spec;

    @Option(names = "--fabric", paramLabel = "NAME", defaultValue = LOCAL_FABRIC,
            description = "Fabric to run on. Only 'local' (memory node and clients in this JVM) exists yet. "
                    + "Default: ${DEFAULT-VALUE}.")
    String fabric;

    @Option(names = "--protocols", paramLabel = "NAME", split = ",",
            description = "Protocols to compare, comma-separated. Default: every registered protocol "
                    + "(see 'lockfabric protocols').")
    List<String> protocols;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "" + MicroBenchConfig.DEFAULT_CLIENTS,
            description = "Client threads, each with its own endpoint and lock client. Default: ${DEFAULT-VALUE}.")
    int clients;

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
            description = "Seed of the clients' random lock and mode choices. Default: ${DEFAULT-VALUE}.")
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

    @Option(names = "--output", paramLabel = "FILE",
            description = "Write the report to FILE instead of standard output.")
    Path output;

    @Override
    public Integer call() {
        if (!LOCAL_FABRIC.equals(fabric)) {
            throw new BadInputException("fabric " + fabric + " is not available yet (sim and tcp come later)");
        }
        ReportFormat reportFormat = ReportFormat.byName(format);
        List<LockProtocol> selected = selectedProtocols();
        ProtocolOptions protocolOptions = ProtocolOptions.parse(options);
        protocolOptions.validate(selected);
        MicroBenchConfig config = config(protocolOptions);

        PrintWriter err = spec.commandLine().getErr();
        List<RunResult> results = new ArrayList<>();
        for (LockProtocol protocol : selected) {
            try (LocalFabric f = LocalFabric.builder().seed(seed).build()) {
                results.add(new Runner(f).run(protocol, config));
            }
        }
        String report = reportFormat.report().render(results);
        if (reportFormat == ReportFormat.TABLE) {
            report = describe(config) + "\n" + report;
        }
        emit(report);

        int violations = 0;
        for (RunResult r : results) {
            for (Violation v : r.check().violations()) {
                err.println(r.protocol() + ": " + v.description());
                violations++;
            }
        }
        if (violations > 0) {
            err.println("check failed: " + violations + " violation(s)");
            err.flush();
            return Main.EXIT_VIOLATIONS;
        }
        return Main.EXIT_OK;
    }

    private List<LockProtocol> selectedProtocols() {
        if (protocols == null || protocols.isEmpty()) {
            return LockProtocols.all();
        }
        Set<String> names = new LinkedHashSet<>();
        for (String p : protocols) {
            if (!p.isBlank()) {
                names.add(p.trim());
            }
        }
        if (names.isEmpty()) {
            throw new BadInputException("--protocols names no protocol; known: "
                    + String.join(", ", LockProtocols.names()));
        }
        return names.stream().map(LockProtocols::byName).toList();
    }

    private MicroBenchConfig config(ProtocolOptions protocolOptions) {
        if (durationNs != null && operations != null) {
            throw new BadInputException("give either --duration or --ops, not both");
        }
        if (operations != null && operations < 1) {
            throw new BadInputException("--ops must be >= 1, got " + operations);
        }
        if (durationNs != null && durationNs < 1) {
            throw new BadInputException("--duration must be positive");
        }
        var b = MicroBenchConfig.builder().clients(clients).locks(locks).zipf(zipf).readRatio(readRatio).cs(cs)
                .seed(seed).check(check).options(protocolOptions);
        if (operations != null) {
            b.operations(operations).warmupNs(warmupNs == null ? 0 : warmupNs);
        } else {
            b.durationNs(durationNs == null ? MicroBenchConfig.DEFAULT_DURATION_NS : durationNs)
                    .warmupNs(warmupNs == null ? MicroBenchConfig.DEFAULT_WARMUP_NS : warmupNs);
        }
        return b.build();
    }

    private String describe(MicroBenchConfig c) {
        String phase = c.byOperations()
                ? String.format(Locale.ROOT, "%,d ops", c.operations())
                : String.format(Locale.ROOT, "%.3gs", c.durationNs() / 1e9);
        return String.format(Locale.ROOT,
                "# %s fabric: %d clients, %,d locks, zipf %s, %.0f%% reads, cs %d, %s after %.3gs warmup, seed %d%s%s",
                fabric, c.clients(), c.locks(), c.zipf(), c.readRatio() * 100, c.cs(), phase, c.warmupNs() / 1e9,
                c.seed(), c.check() ? ", checked" : "", c.options().isEmpty() ? "" : ", options " + c.options());
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
