package io.lockfabric.cli;

import io.lockfabric.fabric.Durations;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** {@code lockfabric protocols}: every registered protocol with its description and options. */
@Command(name = "protocols", mixinStandardHelpOptions = true,
        description = "List the registered lock protocols, what each is, and its options (for bench --option).")
final class ProtocolsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        for (LockProtocol p : LockProtocols.all()) {
            out.printf("%s%n    %s%n", p.name(), p.description());
            out.printf("    shared mode: %s; strict fencing: %s%s%n", p.supportsShared() ? "yes" : "no (granted exclusive)",
                    p.strictFencing() ? "yes" : "no", p.requiresInProcessFabric() ? "; in-process fabric only" : "");
            FailureModel model = p.failureModel(LockOptions.DEFAULTS);
            out.printf("    failure model: %s%s%n", model.summary(), model.recoversFromCrash()
                    ? " (lease " + Durations.format(model.leaseNs()) + ", recovery bound "
                    + Durations.format(model.recoveryBoundNs()) + " per crashed client)" : "");
            if (p.options().isEmpty()) {
                out.println("    options: none");
            }
            for (LockOption o : p.options()) {
                out.printf("    --option %s.%s=VALUE   (default %d) %s%n", p.name(), o.name(), o.defaultValue(),
                        o.description());
            }
        }
        out.flush();
        return Main.EXIT_OK;
    }
}
