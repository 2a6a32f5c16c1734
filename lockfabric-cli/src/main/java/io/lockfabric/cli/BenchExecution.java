package io.lockfabric.cli;

import io.lockfabric.bench.RealTimeDriver;
import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.RunDriver;
import io.lockfabric.bench.RunEnd;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.StopRequest;
import io.lockfabric.bench.Workload;
import io.lockfabric.bench.sim.FaultSummary;
import io.lockfabric.check.HistoryFile;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.fabric.Durations;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.FabricTiming;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.Testbed;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * What {@code bench} does once its command line is read, for a workload of any kind (and for
 * {@code range-bench}, its alias for the range workload): each protocol runs on a fresh fabric
 * opened from the {@code --fabric} address ({@link FabricChoice}: local, sim with the fault plan,
 * or a tcp memory node), then one report is printed, each checker finding and each run that did not
 * complete on stderr, and the exit status says whether there was any.
 *
 * <p>On a real-time fabric a run ends at its planned end plus a grace, its stuck clients ended and
 * reported ({@link RealTimeDriver}). SIGTERM or Ctrl-C during the runs stops the run in progress
 * ({@link TerminationGuard}): its partial result is reported with the runs completed before it, the
 * protocols not run yet are named, and the process exits {@value Main#EXIT_RUN_FAILED}.
 *
 * @param <P> the protocol SPI of the workload
 */
final class BenchExecution<P> {
    private final FabricChoice fabric;
    private Map<String, String> fabricDefaults;
    private final SimConfig cluster;
    private final FaultPlan faults;
    private final String sharedTable;
    private final Function<P, String> names;
    private final String shapeHint;
    private HistoryRecording history;
    private String historyLabel;
    private List<HistoryFile.Run> recorded = List.of();

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
        this.cluster = cluster;
        this.fabricDefaults = cluster != null ? SimTopologyOptions.parameters(cluster)
                : Map.of("seed", Long.toString(seed));
        this.faults = faults;
        this.sharedTable = sharedTable;
        this.names = names;
        this.shapeHint = shapeHint;
    }

    /** This execution, opening the simulated cluster on {@code testbed}'s hardware (sim only; empty: none). */
    BenchExecution<P> onTestbed(Optional<Testbed> testbed) {
        if (cluster != null) {
            this.fabricDefaults = SimTopologyOptions.parameters(cluster, testbed);
        }
        return this;
    }

    /**
     * This execution, writing the checked runs' history as {@code recording} says (null: none) and
     * labelling it {@code label} (the command, for reports).
     */
    BenchExecution<P> recording(HistoryRecording recording, String label) {
        this.history = recording;
        this.historyLabel = label;
        this.recorded = recording == null ? List.of() : recording.newCollector();
        return this;
    }

    /**
     * Runs each protocol under {@code workload}, prints the report ({@code header} above a table) to
     * {@code output} or standard output, and the findings and incomplete runs on stderr; the exit
     * status.
     */
    int execute(CommandSpec spec, List<P> protocols, Workload<P> workload, ReportFormat format, String header,
                Path output) {
        StopRequest stop = new StopRequest();
        List<RunResult> results = new CopyOnWriteArrayList<>();
        List<String> notRun = new ArrayList<>(protocols.stream().map(names).toList());
        PrintWriter err = spec.commandLine().getErr();
        Runnable fallback = () -> {
            emit(spec, output, render(List.copyOf(results), format, header));
            err.println("lockfabric: interrupted (" + TerminationGuard.CAUSE + ") during a run that did not stop in "
                    + "time; the report holds the runs completed before it; not run: " + String.join(", ", notRun));
            err.flush();
        };
        try (TerminationGuard guard = TerminationGuard.install(stop, fallback)) {
            for (P protocol : protocols) {
                if (stop.requested()) {
                    break;
                }
                results.add(run(protocol, workload, stop));
                notRun.removeFirst();
            }
            if (!guard.beginReport()) {
                return Main.EXIT_RUN_FAILED; // the guard printed what it had
            }
            emit(spec, output, render(results, format, header));
            int status = exitStatus(err, results, stop.requested() ? notRun : null);
            if (history != null) {
                status = history.finish(recorded, historyLabel, err, status);
            }
            guard.reported(status);
            return status;
        }
    }

    /** Runs {@code protocol} under {@code workload} on a fabric of its own. */
    private RunResult run(P protocol, Workload<P> workload, StopRequest stop) {
        try (Fabric f = fabric.open(fabricDefaults)) {
            RunDriver driver = fabric.isSim() ? SimDriver.of(f).withFaults(faults)
                    : RunDriver.threads(f).withStop(stop);
            Runner runner = history == null ? new Runner(driver) : new Runner(driver).withHistoryObserver(recorded::add);
            return (sharedTable == null ? runner : runner.withSharedTable(sharedTable)).run(protocol, workload);
        } catch (TableMismatchException e) {
            if (sharedTable == null) {
                throw e;
            }
            throw new BadInputException("--shared-table " + sharedTable + ": another process made "
                    + names.apply(protocol) + "'s table with another shape (" + shapeHint + "): " + e.getMessage());
        }
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
     * Prints on {@code err} each violation of {@code results} ("protocol: description"), each stuck
     * client and partial run, and a summary of each; the command's exit status:
     * {@value Main#EXIT_VIOLATIONS} if there was a violation, else {@value Main#EXIT_RUN_FAILED} if a
     * run had stuck clients or the runs were interrupted, else {@value Main#EXIT_OK}.
     *
     * @param notRun the protocols not run because the runs were interrupted, or null if they were not
     */
    static int exitStatus(PrintWriter err, List<RunResult> results, List<String> notRun) {
        List<String> findings = results.stream().flatMap(r -> r.violations().stream()
                .map(v -> r.protocol() + ": " + v.description())).toList();
        findings.forEach(err::println);
        List<RunResult> incomplete = results.stream().filter(r -> !r.runEnd().complete()).toList();
        for (RunResult r : incomplete) {
            describeEnd(err, r);
        }
        if (notRun != null) {
            err.println("lockfabric: interrupted (" + TerminationGuard.CAUSE + "): "
                    + (incomplete.stream().anyMatch(r -> r.runEnd().partial())
                    ? "the report of the run in progress is partial (what was measured until then)"
                    : "between runs") + (notRun.isEmpty() ? "" : "; not run: " + String.join(", ", notRun)));
        }
        int status = Main.EXIT_OK;
        if (!findings.isEmpty()) {
            err.println("check failed: " + findings.size() + " violation(s)");
            status = Main.EXIT_VIOLATIONS;
        }
        long stuck = incomplete.stream().mapToLong(r -> r.runEnd().stuck().size()).sum();
        if (stuck > 0 || notRun != null) {
            err.println("run incomplete: " + (stuck > 0 ? stuck + " stuck client(s)" : "")
                    + (stuck > 0 && notRun != null ? ", " : "") + (notRun != null ? "interrupted" : ""));
            status = status == Main.EXIT_OK ? Main.EXIT_RUN_FAILED : status;
        }
        err.flush();
        return status;
    }

    /** One line per stuck client of a run cut off at its deadline or interrupted, and one for an interrupted run. */
    private static void describeEnd(PrintWriter err, RunResult r) {
        RunEnd end = r.runEnd();
        if (end.partial()) {
            err.println(r.protocol() + ": interrupted " + Durations.format(end.atNs()) + " into the run"
                    + (end.plannedNs() > 0 ? " of " + Durations.format(end.plannedNs()) + " planned" : "")
                    + ": its report is partial");
        }
        for (RunEnd.StuckClient s : end.stuck()) {
            err.println(r.protocol() + ": client " + s.client() + " is stuck: no operation completed since "
                    + Durations.format(s.lastProgressNs()) + " into the run, still in one when the run was "
                    + (end.partial() ? "interrupted" : "cut off at its deadline") + " at " + Durations.format(end.atNs())
                    + (end.partial() ? "" : " (" + (end.plannedNs() > 0 ? Durations.format(end.plannedNs()) + " planned + "
                    : "no operation completed for ") + Durations.format(end.graceNs()) + (end.plannedNs() > 0 ? " grace)"
                    : ")")));
        }
        for (int c : end.unended()) {
            err.println(r.protocol() + ": client " + c + " did not end when interrupted");
        }
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
        } catch (io.lockfabric.fabric.AuthenticationException e) {
            throw new BadInputException(e.getMessage());
        } catch (FabricException e) {
            throw new BadInputException("no memory node answers at " + tcp.text() + " (start one with 'lockfabric serve'): "
                    + e.getMessage());
        }
    }
}
