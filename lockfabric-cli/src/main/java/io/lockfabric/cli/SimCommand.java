package io.lockfabric.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code lockfabric sim}: commands of the simulated RDMA cluster. */
@Command(name = "sim", mixinStandardHelpOptions = true,
        description = "The simulated RDMA cluster: run protocols in virtual time, with faults, from a seed.",
        subcommands = {SimCheckCommand.class})
final class SimCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
