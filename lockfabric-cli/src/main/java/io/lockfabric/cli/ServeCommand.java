package io.lockfabric.cli;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.memory.MemoryNode;
import io.lockfabric.net.TcpMemoryNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.protocols.RangeLockProtocols;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lockfabric serve}: a memory node of the tcp fabric, until SIGTERM (or Ctrl-C), which
 * closes every connection, stops the server and frees its memory.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Run a memory node of the tcp fabric: it hosts lock tables, executes clients' one-sided "
                + "verbs and batches, serves the rpc services of the tables whose protocol has one (built from the "
                + "protocol's name; the list is below) and keeps the directory through which clients find each "
                + "other's mailboxes (messages go directly between clients, never through this server).",
                "Clients connect to tcp://HOST:PORT. Prints the address and its process id when ready; logs "
                        + "connections and tables on stderr; stops cleanly on SIGTERM (kill PID) or Ctrl-C. Started "
                        + "in the background of a shell ('lockfabric serve &'), it stops with 'kill %%1' or "
                        + "'kill PID'."})
final class ServeCommand implements Callable<Integer> {
    /**
     * The lines of {@code serve --help} that name the rpc services the server builds: one per
     * registered protocol (point or range) whose tables have one, found by asking each protocol for
     * a table with its default options.
     */
    static List<String> servicesHelp() {
        List<String> lines = new ArrayList<>(List.of("", "Protocols whose tables have an rpc service here, "
                + "which this server builds from the protocol's name (every other table is memory and verbs only):"));
        for (LockProtocol p : LockProtocols.all()) {
            if (!p.requiresInProcessFabric() && p.tableSpec("help", 1, LockOptions.DEFAULTS).service() != null) {
                lines.add("  " + p.name() + ": " + p.description());
            }
        }
        for (RangeLockProtocol p : RangeLockProtocols.all()) {
            if (p.tableSpec("help", LockOptions.DEFAULTS).service() != null) {
                lines.add("  " + p.name() + ": " + p.description());
            }
        }
        return lines;
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "" + TcpMemoryNode.DEFAULT_PORT,
            description = "TCP port to listen on; 0 picks a free one (printed). Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--memory", paramLabel = "SIZE", converter = ByteSizeConverter.class, defaultValue = "4g",
            description = "Most memory the tables may take together (allocated as tables are created): bytes or "
                    + "64k, 512m, 4g. Default: ${DEFAULT-VALUE}.")
    long memoryBytes;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = TcpMemoryNode.DEFAULT_BIND,
            description = "Address to listen on; 0.0.0.0 for every interface (the server has no authentication: "
                    + "expose it only to trusted networks). Default: ${DEFAULT-VALUE} (this host only).")
    String bind;

    @Option(names = "--table-grace", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "60s",
            description = "How long a table is kept after the last client connection that had it open closes (then "
                    + "it is dropped: its memory is freed and its lock state is gone); 0s drops it at once. 'lockfabric "
                    + "tables list|drop' shows and drops tables. Default: ${DEFAULT-VALUE}.")
    long tableGraceNs;

    @Option(names = "--io-threads", paramLabel = "N", defaultValue = "" + TcpMemoryNode.DEFAULT_IO_THREADS,
            description = "Threads serving connections (verbs run on them). Default: ${DEFAULT-VALUE}.")
    int ioThreads;

    @Override
    public Integer call() {
        if (port < 0 || port > 0xFFFF) {
            throw new BadInputException("--port must be in [0, 65535], got " + port);
        }
        if (memoryBytes <= 0) {
            throw new BadInputException("--memory must be positive, got " + memoryBytes);
        }
        if (ioThreads < 1 || ioThreads > 64) {
            throw new BadInputException("--io-threads must be in [1, 64], got " + ioThreads);
        }
        if (tableGraceNs < 0) {
            throw new BadInputException("--table-grace must not be negative");
        }
        PrintWriter out = spec.commandLine().getOut();
        TcpMemoryNode server;
        try {
            server = TcpMemoryNode.builder().port(port).bind(bind).capacityBytes(memoryBytes).ioThreads(ioThreads)
                    .tableGraceNs(tableGraceNs).start();
        } catch (FabricException e) {
            throw new BadInputException(e.getMessage());
        }
        Thread hook = Thread.ofPlatform().unstarted(() -> {
            server.close();
            // java.util.logging may already be reset by its own shutdown hook: say it here
            out.println("lockfabric serve: stopped");
            out.flush();
        });
        Runtime.getRuntime().addShutdownHook(hook);
        long pid = ProcessHandle.current().pid();
        out.printf("lockfabric serve: memory node listening on %s%s (%d bytes of memory%s); pid %d, stop with 'kill %d' "
                + "or Ctrl-C%n", server.uri(), server.address().getAddress().isAnyLocalAddress()
                ? " and every other interface of this host" : "", memoryBytes,
                memoryBytes == MemoryNode.DEFAULT_CAPACITY_BYTES ? ", the default" : "", pid, pid);
        out.flush();
        server.awaitClose();
        return Main.EXIT_OK;
    }
}
