package io.lockfabric.cli;

import io.lockfabric.fabric.Durations;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.protocols.RangeLockProtocols;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lockfabric protocols}: every registered protocol, point and range, with its description,
 * failure model and options (defaults as they are written on the command line: durations with a
 * unit, choices by name).
 */
@Command(name = "protocols", mixinStandardHelpOptions = true,
        description = "List the registered lock protocols (for bench) and range lock protocols (for range-bench): "
                + "what each is, what it promises when clients fail, and its options (for --option).")
final class ProtocolsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.println("# lock protocols (bench --protocols NAME)");
        for (LockProtocol p : LockProtocols.all()) {
            out.printf("%s%n    %s%n", p.name(), p.description());
            out.printf("    shared mode: %s; strict fencing: %s%s%n", p.supportsShared() ? "yes" : "no (granted exclusive)",
                    p.strictFencing() ? "yes" : "no", p.requiresInProcessFabric() ? "; in-process fabric only" : "");
            printFailureModel(out, p.failureModel(LockOptions.DEFAULTS));
            printOptions(out, p.name(), p.options());
        }
        out.println();
        out.println("# range lock protocols (range-bench --protocols NAME)");
        for (RangeLockProtocol p : RangeLockProtocols.all()) {
            out.printf("%s%n    %s%n", p.name(), p.description());
            out.printf("    shared mode: %s; strict fencing: %s%n", p.supportsShared() ? "yes" : "no (granted exclusive)",
                    p.strictFencing(LockOptions.DEFAULTS) ? "yes" : "no");
            printFailureModel(out, p.failureModel(LockOptions.DEFAULTS));
            printOptions(out, p.name(), p.options());
        }
        out.flush();
        return Main.EXIT_OK;
    }

    private static void printFailureModel(PrintWriter out, FailureModel model) {
        out.printf("    failure model: %s%n", model.describe());
    }

    private static void printOptions(PrintWriter out, String protocol, List<LockOption> options) {
        if (options.isEmpty()) {
            out.println("    options: none");
        }
        for (LockOption o : options) {
            out.printf("    --option %s.%s=VALUE   (default %s) %s%n", protocol, o.name(), defaultOf(o), o.description());
        }
    }

    /** An option's default as one would write it: a choice's name, a duration with its unit, inf. */
    static String defaultOf(LockOption o) {
        long v = o.defaultValue();
        if (!o.choices().isEmpty()) {
            return o.choiceName(v);
        }
        if (o.name().endsWith("-ns")) {
            return Durations.format(v);
        }
        return v == Long.MAX_VALUE ? "inf" : Long.toString(v);
    }
}
