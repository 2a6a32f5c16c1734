package io.lockfabric.cli;

import io.lockfabric.bench.BenchmarkFailedException;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.TableRefusedException;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.protocols.RangeLockProtocols;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The {@code lockfabric} command. {@link #run} is the whole program without {@code System.exit},
 * for tests; {@link #main} exits with its status: {@value #EXIT_OK} ok, {@value #EXIT_VIOLATIONS}
 * check violations, {@value #EXIT_BAD_INPUT} bad input (one line on stderr, no stack trace),
 * {@value #EXIT_RUN_FAILED} a run failed, had clients stuck past its end (its planned end plus a
 * grace) or was interrupted by SIGTERM or Ctrl-C (a benchmark then reports what it measured, marked
 * partial). A table the memory node refuses (it does not fit) is bad input; any other error of a
 * fabric, or an unexpected one, a failed run: one line, no stack trace (unless
 * {@value #STACK_TRACE_ENV} is set), never status 1.
 */
@Command(name = "lockfabric", mixinStandardHelpOptions = true, version = Main.VERSION,
        description = "Distributed lock managers for disaggregated memory: run and compare lock protocols.",
        subcommands = {BenchCommand.class, RangeBenchCommand.class, SimCommand.class, ReproduceCommand.class, ProtocolsCommand.class,
                ServeCommand.class, TablesCommand.class, ApiBenchCommand.class, CheckCommand.class, CompareCommand.class, TxnCommand.class, BTreeCommand.class, ObjectStoreCommand.class, FsCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Run 'lockfabric COMMAND --help' for a command's options."})
public final class Main implements Runnable {
    /** What {@code -V} / {@code --version} prints, on every command. */
    public static final String VERSION = "lockfabric 0.1.0";
    public static final int EXIT_OK = 0;
    public static final int EXIT_VIOLATIONS = 1;
    public static final int EXIT_BAD_INPUT = 2;
    public static final int EXIT_RUN_FAILED = 3;
    /** Set in the environment, errors are followed by their stack trace (for reporting bugs). */
    public static final String STACK_TRACE_ENV = "LOCKFABRIC_STACKTRACE";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command line and returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        PrintWriter errWriter = new PrintWriter(err, true, StandardCharsets.UTF_8);
        CommandLine cli = new CommandLine(new Main())
                .setOut(new PrintWriter(out, true, StandardCharsets.UTF_8))
                .setErr(errWriter)
                .setParameterExceptionHandler((e, a) -> {
                    PrintWriter w = e.getCommandLine().getErr();
                    w.println("lockfabric: " + e.getMessage() + " (see 'lockfabric " + commandPath(e.getCommandLine())
                            + "--help')");
                    w.flush();
                    return EXIT_BAD_INPUT;
                })
                .setExecutionExceptionHandler((e, c, parsed) -> {
                    PrintWriter w = c.getErr();
                    int status;
                    if (e instanceof BadInputException || e instanceof IllegalArgumentException
                            || e instanceof TableRefusedException
                            || e instanceof io.lockfabric.fabric.AuthenticationException) {
                        // a table refused by the memory node (what was asked does not fit it, or is in use),
                        // or a memory node that refused this client (secret, certificate, wire version)
                        w.println("lockfabric: " + e.getMessage());
                        status = EXIT_BAD_INPUT;
                    } else if (e instanceof BenchmarkFailedException || e instanceof FabricException) {
                        w.println("lockfabric: run failed: " + e.getMessage());
                        status = EXIT_RUN_FAILED;
                    } else {
                        // never a stack trace, and never status 1 (a violation): a bug is a failed run
                        w.println("lockfabric: run failed: " + e);
                        status = EXIT_RUN_FAILED;
                    }
                    if (System.getenv(STACK_TRACE_ENV) != null) {
                        e.printStackTrace(w);
                    }
                    w.flush();
                    return status;
                });
        withVersion(cli);
        CommandLine bench = cli.getSubcommands().get("bench");
        bench.getCommandSpec().usageMessage().footer(
                "", "Registered protocols: " + String.join(", ", LockProtocols.names()) + ".",
                "Registered range protocols (--workload range): " + String.join(", ", RangeLockProtocols.names()) + ".",
                "Exit status: 0 ok; 1 the check found violations; 2 bad input; 3 a run failed, had clients stuck "
                        + "past its end (duration + grace; they are reported) or was interrupted by SIGTERM or Ctrl-C "
                        + "(the report then holds what was measured, marked partial).");
        List<String> rangeFooter = new ArrayList<>(List.of("",
                "Registered range protocols and their options:"));
        for (RangeLockProtocol p : RangeLockProtocols.all()) {
            rangeFooter.add("  " + p.name() + ": " + p.options().stream().map(LockOption::name)
                    .collect(Collectors.joining(", ")));
        }
        rangeFooter.add("Exit status: 0 ok; 1 the range exclusion check found violations; 2 bad input; 3 a run "
                + "failed, had clients stuck past its end (duration + grace) or was interrupted by SIGTERM or Ctrl-C "
                + "(the report then holds what was measured, marked partial).");
        cli.getSubcommands().get("range-bench").getCommandSpec().usageMessage().footer(
                rangeFooter.toArray(String[]::new));
        cli.getSubcommands().get("serve").getCommandSpec().usageMessage().footer(
                ServeCommand.servicesHelp().toArray(String[]::new));
        return cli.execute(args);
    }

    /** Every command answers {@code -V} as the top one does (picocli gives subcommands no version of their own). */
    private static void withVersion(CommandLine c) {
        c.getCommandSpec().version(VERSION);
        c.getSubcommands().values().forEach(Main::withVersion);
    }

    private static String commandPath(CommandLine c) {
        StringBuilder sb = new StringBuilder();
        for (CommandLine p = c; p.getParent() != null; p = p.getParent()) {
            sb.insert(0, p.getCommandName() + " ");
        }
        return sb.toString();
    }

    /** {@code lockfabric} with no command: show the usage. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
