package io.lockfabric.cli;

import io.lockfabric.bench.ProgressDisplay;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentReport;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.Experiments;
import io.lockfabric.bench.report.ReportPage;
import io.lockfabric.bench.report.ReproductionReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lockfabric reproduce}: runs a named experiment of a paper on the simulator and prints
 * the paper's numbers and ours side by side; {@code --list} lists the experiments.
 */
@Command(name = "reproduce", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Reproduce a named experiment of a paper on the simulated cluster and print the paper's numbers "
                        + "and the simulation's side by side: the difference and whether it lies within the "
                        + "experiment's band (e.g. +-25%% of a goodput, +-5 percentage points of a share).",
                "Runs in virtual time: the numbers are the same on every machine and every run with the same seed. "
                        + "Progress goes to stderr when it is a terminal.",
                "shiftlock-fig11 is the exception: measured on this machine in real time (it starts redis-server and a "
                        + "memory node, and its client processes); --warmup and --duration are then real time per run.",
                "Run 'lockfabric reproduce --list' for the experiments.",
                "With --report DIR it runs every experiment (--all) or those named, in turn, and writes a report into "
                        + "DIR: plots shaped like the papers' figures (NAME-*.png), each result as JSON (NAME.json) and "
                        + "one Markdown page (README.md) with a summary, the plots, tables, comparisons and discussion; "
                        + "stdout gets the summary, stderr a line per experiment as it starts and ends. An experiment "
                        + "that fails is reported and the others still run."},
        footer = {"", "Example: lockfabric reproduce shiftlock-2.3 --format json",
                "         lockfabric reproduce --all --report report/",
                "Exit status: 0 every number within its band; 1 some number outside its band (the table marks it "
                        + "OUTSIDE, the JSON has \"within_bands\":false); 2 bad input; 3 a run failed (with --report: "
                        + "some experiment failed, which wins over 1; the others' results are still written). A plot "
                        + "that cannot be drawn is named on the report's page and does not change the status."})
final class ReproduceCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "EXPERIMENT",
            description = "The experiment to run, e.g. shiftlock-2.3 (see --list); with --report, one or more.")
    List<String> experiments;

    @Option(names = "--all", description = "With --report: run every experiment of --list (but " + SmallBankReproduction.NAME
            + ", which runs real processes: run it on its own).")
    boolean all;

    @Option(names = "--report", paramLabel = "DIR",
            description = "Write the reproduction report into DIR (created if missing; files of the same names are "
                    + "replaced): plots, JSON and README.md, for --all or the experiments named. --format, "
                    + "--protocols, --accounts, --threads and --processes do not apply; --seed, --warmup and "
                    + "--duration do.")
    Path report;

    @Option(names = "--list", description = "List the experiments (name, paper, what is measured) and exit.")
    boolean list;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "Output: table (paper and simulation side by side, for people) or json (one object with "
                    + "the experiment and its rows). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "" + ExperimentSettings.DEFAULT_SEED,
            description = "Seed of the simulated clusters and the workloads. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--testbed", paramLabel = "NAME",
            description = "Run the simulated cases on this testbed's hardware: shiftlock, declock, citron (the "
                    + "README's \"Testbed profiles\": each value and its source), or none (the simulator's defaults). "
                    + "Default: each experiment's own.")
    String testbed;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Override every case's warmup (virtual time, with a unit: 20ms). Default: each case's "
                    + "own, which the bands are meant for.")
    Long warmupNs;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Override every case's measured window (virtual time, with a unit: 50ms). Default: each "
                    + "case's own.")
    Long durationNs;

    @Option(names = "--protocols", paramLabel = "NAME", split = ",",
            description = "For experiments that compare protocols (the citron-fig6/7 range experiments): run these "
                    + "instead of the experiment's own list (which fails if some of it is not registered). Rows "
                    + "needing a protocol not run are left out and named.")
    List<String> protocols;

    @Option(names = "--accounts", paramLabel = "N",
            description = "For shiftlock-fig11: SmallBank's accounts. Default: the paper's 1000000.")
    Integer accounts;

    @Option(names = "--threads", paramLabel = "N",
            description = "For shiftlock-fig11: threads in each client process. Default: 8.")
    Integer threads;

    @Option(names = "--processes", paramLabel = "N",
            description = "For shiftlock-fig11: client processes (JVMs). Default: 2.")
    Integer processes;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        if (report != null || all) {
            return report(out);
        }
        if (experiments != null && experiments.size() > 1) {
            throw new BadInputException("name one experiment, or give --report DIR to run several");
        }
        String experiment = experiments == null ? null : experiments.getFirst();
        if (list) {
            if (experiment != null) {
                throw new BadInputException("give either --list or an experiment, not both");
            }
            for (Experiment e : Experiments.all()) {
                out.printf("%s%n    %s%n    %s%n", e.name(), e.reference(), e.description());
            }
            SmallBankReproduction.list(out);
            out.flush();
            return Main.EXIT_OK;
        }
        if (experiment == null) {
            throw new BadInputException("name an experiment (known: " + String.join(", ", Experiments.names())
                    + ", " + SmallBankReproduction.NAME + ") or use --list");
        }
        boolean json = switch (format.trim().toLowerCase(Locale.ROOT)) {
            case "table" -> false;
            case "json" -> true;
            default -> throw new BadInputException("unknown format '" + format + "'; known: table, json");
        };
        if (SmallBankReproduction.NAME.equals(experiment) && testbed != null) {
            throw new BadInputException("--testbed applies to simulated experiments; " + SmallBankReproduction.NAME
                    + " runs real processes");
        }
        if (SmallBankReproduction.NAME.equals(experiment)) {
            return SmallBankReproduction.run(out, json, seed, positive("--warmup", warmupNs), positive("--duration", durationNs),
                    protocols, accounts, threads, processes);
        }
        if (accounts != null || threads != null || processes != null) {
            throw new BadInputException("--accounts, --threads and --processes apply to " + SmallBankReproduction.NAME + " only");
        }
        Experiment e = Experiments.byName(experiment);
        ExperimentSettings settings = ExperimentSettings.defaults().withSeed(seed)
                .withWarmupNs(positive("--warmup", warmupNs)).withDurationNs(positive("--duration", durationNs))
                .withProgress(ProgressDisplay.consoleIsTerminal(), System.err);
        settings = onTestbed(settings);
        if (protocols != null && !protocols.isEmpty()) {
            if (!e.selectsProtocols()) {
                throw new BadInputException("experiment " + e.name() + " runs a fixed set of protocols; --protocols "
                        + "applies to experiments that compare protocols (e.g. citron-fig6, citron-fig7)");
            }
            settings = settings.withProtocols(protocols.stream().map(String::trim).filter(s -> !s.isEmpty()).toList());
        }
        ExperimentResult result = e.run(settings);
        out.print(json ? ExperimentReport.json(result) : ExperimentReport.table(result, e.simulated()));
        out.flush();
        return result.withinBands() ? Main.EXIT_OK : Main.EXIT_VIOLATIONS;
    }

    /** {@code settings} on the --testbed asked for, if any. */
    private ExperimentSettings onTestbed(ExperimentSettings settings) {
        if (testbed == null) {
            return settings;
        }
        try {
            return settings.withTestbed(testbed);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--testbed: " + e.getMessage());
        }
    }

    /** {@code --report DIR} with {@code --all} or names: runs them and writes the report. */
    private int report(PrintWriter out) {
        if (report == null) {
            throw new BadInputException("--all needs --report DIR");
        }
        if (list) {
            throw new BadInputException("give either --list or --report, not both");
        }
        boolean named = experiments != null && !experiments.isEmpty();
        if (all == named) {
            throw new BadInputException("with --report, give --all or the experiments to run, not both");
        }
        if (!"table".equals(format.trim().toLowerCase(Locale.ROOT))) {
            throw new BadInputException("--format does not apply to --report (the report is Markdown, plots and JSON)");
        }
        if (accounts != null || threads != null || processes != null || (protocols != null && !protocols.isEmpty())) {
            throw new BadInputException("--accounts, --threads, --processes and --protocols do not apply to --report");
        }
        List<Experiment> run = new ArrayList<>();
        for (String name : all ? Experiments.names() : experiments) {
            if (SmallBankReproduction.NAME.equals(name)) {
                throw new BadInputException(name + " runs real processes and is not part of a report: run it on its own");
            }
            Experiment e = Experiments.byName(name);
            if (!run.contains(e)) {
                run.add(e);
            }
        }
        ExperimentSettings settings = ExperimentSettings.defaults().withSeed(seed)
                .withWarmupNs(positive("--warmup", warmupNs)).withDurationNs(positive("--duration", durationNs))
                .withProgress(ProgressDisplay.consoleIsTerminal(), System.err);
        settings = onTestbed(settings);
        ReproductionReport.Summary summary;
        try {
            summary = ReproductionReport.run(run, settings, report, spec.commandLine().getErr(), System::nanoTime);
        } catch (UncheckedIOException e) {
            throw new BadInputException(e.getMessage());
        }
        out.print(ReportPage.summary(summary.entries(), summary.wallNs()));
        out.printf("report: %s%n", summary.page());
        out.flush();
        return summary.failed() > 0 ? Main.EXIT_RUN_FAILED : summary.allWithinBands() ? Main.EXIT_OK : Main.EXIT_VIOLATIONS;
    }

    /** An override, or 0 for none. */
    private static long positive(String option, Long ns) {
        if (ns == null) {
            return 0;
        }
        if (ns <= 0) {
            throw new BadInputException(option + " must be positive");
        }
        return ns;
    }
}
