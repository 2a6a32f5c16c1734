package io.lockfabric.cli;

import io.lockfabric.bench.ProgressDisplay;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentReport;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.Experiments;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
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
                "Run 'lockfabric reproduce --list' for the experiments."},
        footer = {"", "Example: lockfabric reproduce shiftlock-2.3 --format json",
                "Exit status: 0 every number within its band; 1 some number outside its band (the table marks it "
                        + "OUTSIDE, the JSON has \"within_bands\":false); 2 bad input; 3 a run failed."})
final class ReproduceCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "EXPERIMENT",
            description = "The experiment to run, e.g. shiftlock-2.3 (see --list).")
    String experiment;

    @Option(names = "--list", description = "List the experiments (name, paper, what is measured) and exit.")
    boolean list;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "Output: table (paper and simulation side by side, for people) or json (one object with "
                    + "the experiment and its rows). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "" + ExperimentSettings.DEFAULT_SEED,
            description = "Seed of the simulated clusters and the workloads. Default: ${DEFAULT-VALUE}.")
    long seed;

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
    java.util.List<String> protocols;

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
