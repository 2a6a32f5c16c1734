package io.lockfabric.cli;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.memory.MemoryNode;
import io.lockfabric.net.TcpMemoryNode;
import io.lockfabric.shm.ShmFabric;
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
                        + "'kill PID'.",
                "With --shm PATH it serves the rpcs of a shared-memory fabric instead (clients on shm:PATH, "
                        + "verbs and messages go through the file and never through it)."})
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

    @Option(names = "--io-threads", paramLabel = "N", defaultValue = "" + TcpMemoryNode.DEFAULT_IO_THREADS,
            description = "Threads serving connections (verbs run on them). Default: ${DEFAULT-VALUE}.")
    int ioThreads;

    @Option(names = "--shm", paramLabel = "PATH",
            description = "Serve the rpcs of the shm fabric whose file is PATH (an absolute path, e.g. /dev/shm/locks; "
                    + "created with --memory bytes if it does not exist) through its request ring, instead of a tcp "
                    + "memory node: the process that protocols with an rpc service (rpc, shiftlock, ...) need on shm. "
                    + "One per file.")
    String shmPath;

    @Override
    public Integer call() {
        if (shmPath != null) {
            return serveShm();
        }
        if (port < 0 || port > 0xFFFF) {
            throw new BadInputException("--port must be in [0, 65535], got " + port);
        }
        if (memoryBytes <= 0) {
            throw new BadInputException("--memory must be positive, got " + memoryBytes);
        }
        if (ioThreads < 1 || ioThreads > 64) {
            throw new BadInputException("--io-threads must be in [1, 64], got " + ioThreads);
        }
        PrintWriter out = spec.commandLine().getOut();
        TcpMemoryNode server;
        try {
            server = TcpMemoryNode.builder().port(port).bind(bind).capacityBytes(memoryBytes).ioThreads(ioThreads)
                    .start();
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
        out.printf("lockfabric serve: memory node listening on %s (%d bytes of memory%s); pid %d, stop with 'kill %d' "
                + "or Ctrl-C%n", server.uri(), memoryBytes, memoryBytes == MemoryNode.DEFAULT_CAPACITY_BYTES
                ? ", the default" : "", pid, pid);
        out.flush();
        server.awaitClose();
        return Main.EXIT_OK;
    }

    private Integer serveShm() {
        java.nio.file.Path path = java.nio.file.Path.of(shmPath);
        if (!path.isAbsolute()) {
            throw new BadInputException("--shm needs an absolute path, got '" + shmPath + "'");
        }
        PrintWriter out = spec.commandLine().getOut();
        ShmFabric fabric;
        try {
            fabric = ShmFabric.builder().path(path).capacityBytes(memoryBytes).serveRpc(true).build();
        } catch (FabricException | IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
        java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
            fabric.close();
            out.println("lockfabric serve: stopped");
            out.flush();
            stopped.countDown();
        }));
        long pid = ProcessHandle.current().pid();
        out.printf("lockfabric serve: serving the rpcs of shm:%s; pid %d, stop with 'kill %d' or Ctrl-C%n", path, pid, pid);
        out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Main.EXIT_OK;
    }
}
