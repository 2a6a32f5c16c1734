package io.lockfabric.cli;

import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.RunDriver;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.Workload;
import io.lockfabric.bench.sim.FaultSummary;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.FabricTiming;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What {@code bench} does once its command line is read, for a workload of any kind (and for
 * {@code range-bench}, its alias for the range workload): each protocol runs on a fresh fabric
 * opened from the {@code --fabric} address ({@link FabricChoice}: local, sim with the fault plan,
 * or a tcp memory node), then one report is printed, each checker finding on stderr, and the exit
 * status says whether there was any.
 *
 * @param <P> the protocol SPI of the workload
 */
final class BenchExecution<P> {
    private final FabricChoice fabric;
    private final Map<String, String> fabricDefaults;
    private final FaultPlan faults;
    private final String sharedTable;
    private final Function<P, String> names;
    private final String shapeHint;

    /**
     * @param fabric      the {@code --fabric} address
     * @param cluster     the simulated cluster the command line and the address describe (sim only, else null)
     * @param seed        the fabric's seed where the address gives none (local and tcp)
     * @param faults      the faults every sim run suffers
     * @param sharedTable the shared table name (tcp only), or null
     * @param names       a protocol's name
     * @param shapeHint   what may differ when another process made a shared table ("other --locks or options?")
     */
    BenchExecution(FabricChoice fabric, SimConfig cluster, long seed, FaultPlan faults, String sharedTable,
                   Function<P, String> names, String shapeHint) {
        this.fabric = fabric;
        this.fabricDefaults = cluster != null ? SimTopologyOptions.parameters(cluster)
                : Map.of("seed", Long.toString(seed));
        this.faults = faults;
        this.sharedTable = sharedTable;
        this.names = names;
        this.shapeHint = shapeHint;
    }

    /** Runs each protocol under {@code workload}, each on a fabric of its own. */
    List<RunResult> run(List<P> protocols, Workload<P> workload) {
        List<RunResult> results = new ArrayList<>();
        for (P protocol : protocols) {
            try (Fabric f = fabric.open(fabricDefaults)) {
                RunDriver driver = fabric.isSim() ? SimDriver.of(f).withFaults(faults) : RunDriver.threads(f);
                Runner runner = new Runner(driver);
                results.add((sharedTable == null ? runner : runner.withSharedTable(sharedTable))
                        .run(protocol, workload));
            } catch (TableMismatchException e) {
                if (sharedTable == null) {
                    throw e;
                }
                throw new BadInputException("--shared-table " + sharedTable + ": another process made "
                        + names.apply(protocol) + "'s table with another shape (" + shapeHint + "): " + e.getMessage());
            }
        }
        return results;
    }

    /**
     * The report in {@code format}; a table is preceded by {@code header} and followed by what each
     * faulty run went through.
     */
    static String render(List<RunResult> results, ReportFormat format, String header) {
        String report = format.report().render(results);
        if (format != ReportFormat.TABLE) {
            return report;
        }
        StringBuilder sb = new StringBuilder(header).append('\n').append(report);
        for (RunResult r : results) {
            if (!r.faults().plan().equals(FaultPlan.NONE.spec())) {
                sb.append(FaultSummary.describe(r));
            }
        }
        return sb.toString();
    }

    /** Writes {@code report} to {@code output}, or to standard output if it is null. */
    static void emit(CommandSpec spec, Path output, String report) {
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

    /**
     * Prints each violation of {@code results} ("protocol: description") and a summary on
     * {@code err}; the command's exit status.
     */
    static int exitStatus(PrintWriter err, List<RunResult> results) {
        List<String> findings = results.stream().flatMap(r -> r.violations().stream()
                .map(v -> r.protocol() + ": " + v.description())).toList();
        findings.forEach(err::println);
        if (findings.isEmpty()) {
            return Main.EXIT_OK;
        }
        err.println("check failed: " + findings.size() + " violation(s)");
        err.flush();
        return Main.EXIT_VIOLATIONS;
    }

    /**
     * The protocols' waits scaled to a tcp fabric's timing ({@code timing}, the memory node's fabric's
     * own, through {@link LockOptions#timedDefaults}), each qualified by its protocol, then
     * {@code user}'s {@code --option} pairs, which win (a later pair overrides an earlier one). Says on
     * {@code err} what it added, since the report's numbers depend on it.
     *
     * @param optionsByProtocol the selected protocols' names and the options each has, in run order
     */
    static List<String> withTcpDefaults(FabricTiming timing, Map<String, List<LockOption>> optionsByProtocol,
                                        List<String> user, PrintWriter err) {
        List<String> pairs = new ArrayList<>();
        optionsByProtocol.forEach((name, known) -> {
            for (String pair : LockOptions.timedDefaults(timing, known)) {
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

    /**
     * A tcp fabric's memory node must answer before any run starts: a clear error otherwise. Its
     * fabric's timing, which the protocols' waits are scaled to.
     */
    static FabricTiming checkReachable(FabricChoice tcp) {
        try (Fabric probe = tcp.open(Map.of())) {
            probe.memoryNodeCounters(0);
            return probe.timing();
        } catch (FabricException e) {
            throw new BadInputException("no memory node answers at " + tcp.text() + " (start one with 'lockfabric serve'): "
                    + e.getMessage());
        }
    }
}
