package io.lockfabric.cli;

import io.lockfabric.check.CrossProcessChecker;
import io.lockfabric.check.HistoryFile;
import io.lockfabric.check.HistoryFileLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code lockfabric check FILES…}: merges the histories that benchmark processes wrote
 * ({@code bench --check --history}, or by default on a shared table) and checks mutual exclusion
 * across them by the rules of {@link CrossProcessChecker}: on one host, overlaps of conflicting
 * grants between any two processes' clients; across hosts, the fencing-token order.
 */
@Command(name = "check", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Check mutual exclusion across processes: merge the histories bench processes wrote on shared tables "
                        + "(bench --check --shared-table NAME, see --history) and report overlaps of conflicting "
                        + "grants (exclusive with any, on one lock id; range tables: on overlapping ranges).",
                "Processes on one host share its monotonic clock, so their grants are compared in time. Across "
                        + "hosts, where clocks differ, the exclusive grants of a lock (protocols with strict tokens) "
                        + "must follow their fencing tokens: no token twice, and one clock offset per pair of hosts "
                        + "(within --drift-ppm) that orders every such grant before the next token's.",
                "Exit status: 0 clean; 1 a violation; 2 bad input (a file that is no history, histories that "
                        + "disagree about a table)."})
final class CheckCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "1..*",
            description = "History files (" + HistoryFileLayout.SUFFIX + "), or directories whose "
                    + HistoryFileLayout.SUFFIX + " files are all taken.")
    List<Path> files;

    @Option(names = "--drift-ppm", paramLabel = "PPM", defaultValue = "" + CrossProcessChecker.DEFAULT_DRIFT_PPM,
            description = "How far two hosts' clocks may drift apart, in millionths of the run's length, before "
                    + "grants in token order that no single clock offset explains count as a violation. "
                    + "Default: ${DEFAULT-VALUE}.")
    double driftPpm;

    @Override
    public Integer call() {
        List<Path> all = new ArrayList<>();
        for (Path p : files) {
            if (Files.isDirectory(p)) {
                List<Path> inside = historyFiles(p);
                if (inside.isEmpty()) {
                    throw new BadInputException(p + " holds no history file (*" + HistoryFileLayout.SUFFIX + ")");
                }
                all.addAll(inside);
            } else {
                all.add(p);
            }
        }
        CrossProcessChecker.Report report = check(all, driftPpm);
        PrintWriter out = spec.commandLine().getOut();
        print(report, out);
        out.flush();
        return report.clean() ? Main.EXIT_OK : Main.EXIT_VIOLATIONS;
    }

    /** The history files of {@code dir}, by name. */
    static List<Path> historyFiles(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(HistoryFileLayout.SUFFIX) && Files.isRegularFile(p))
                    .sorted().toList();
        } catch (IOException e) {
            throw new BadInputException("cannot list " + dir + ": " + e.getMessage());
        }
    }

    /**
     * Reads {@code files} and checks them together.
     *
     * @throws BadInputException if a file cannot be read or is no history
     */
    static CrossProcessChecker.Report check(List<Path> files, double driftPpm) {
        List<CrossProcessChecker.Input> inputs = new ArrayList<>();
        for (Path f : files) {
            try {
                inputs.add(new CrossProcessChecker.Input(f.getFileName().toString(), HistoryFile.read(f)));
            } catch (IOException e) {
                throw new BadInputException("cannot read " + f + ": " + e);
            }
        }
        return CrossProcessChecker.check(inputs, driftPpm);
    }

    /** The report, one line per table, per note and per violation, and a last line: {@code ok} or how many. */
    static void print(CrossProcessChecker.Report report, PrintWriter out) {
        for (CrossProcessChecker.TableSummary t : report.tables()) {
            out.println(String.format(Locale.ROOT, "table %s: %s, %s, %d process(es) on %d clock(s), %,d holds "
                            + "(%,d exclusive)%s%s", t.table(), t.protocol(), t.kind(), t.processes(), t.clocks(),
                    t.holds(), t.exclusive(), t.strictFencing() && t.kind().equals(HistoryFile.Run.POINT)
                            ? ", fencing order checked" : "", t.acrossClocks() ? ", token order across clocks checked" : ""));
        }
        report.notes().forEach(n -> out.println("note: " + n));
        for (CrossProcessChecker.Finding f : report.findings()) {
            out.println("violation: table " + f.table() + ": " + f.description());
        }
        out.println(report.clean() ? "check: ok" : "check failed: " + report.findings().size() + " violation(s)");
    }
}
