package io.lockfabric.cli;

import io.lockfabric.fabric.Durations;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.memory.MemoryNode;
import io.lockfabric.net.ServerLimits;
import io.lockfabric.net.SharedSecret;
import io.lockfabric.net.TcpFabricProvider;
import io.lockfabric.net.TcpMemoryNode;
import io.lockfabric.net.TlsConfig;
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
import java.nio.file.Path;
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
            description = "Address to listen on; 0.0.0.0 for every interface, which needs --secret-file or "
                    + "--tls-cert/--tls-key (or --insecure). Default: ${DEFAULT-VALUE} (this host only).")
    String bind;

    @Option(names = "--table-grace", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "60s",
            description = "How long a table is kept after the last client connection that had it open closes (then "
                    + "it is dropped: its memory is freed and its lock state is gone); 0s drops it at once. 'lockfabric "
                    + "tables list|drop' shows and drops tables. Default: ${DEFAULT-VALUE}.")
    long tableGraceNs;

    @Option(names = "--secret-file", paramLabel = "FILE",
            description = "Clients must prove this shared secret (HMAC challenge; the secret never crosses the wire): "
                    + "at least 16 bytes, surrounding whitespace ignored (make one: head -c 32 /dev/urandom | base64 > FILE). "
                    + "Clients give it as secret-file=FILE in the address or LOCKFABRIC_SECRET_FILE / LOCKFABRIC_SECRET. "
                    + "Default: LOCKFABRIC_SECRET_FILE or LOCKFABRIC_SECRET if set, else none.")
    Path secretFile;

    @Option(names = "--tls-cert", paramLabel = "PEM",
            description = "Serve TLS with this certificate chain (PEM; with --tls-key). Clients add tls-trust=PEM "
                    + "(this certificate or its CA) to the address.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The private key of --tls-cert (PEM, PKCS#8 unencrypted).")
    Path tlsKey;

    @Option(names = "--tls-client-ca", paramLabel = "PEM",
            description = "Require client certificates that chain to these CA certificates (PEM); clients add "
                    + "tls-cert=PEM,tls-key=PEM to the address.")
    Path tlsClientCa;

    @Option(names = "--insecure", description = "Allow a --bind address other hosts can reach without a secret or TLS: "
            + "anyone who reaches the port can then read and write every lock.")
    boolean insecure;

    @Option(names = "--max-connections", paramLabel = "N", defaultValue = "" + ServerLimits.DEFAULT_MAX_CONNECTIONS,
            description = "Connections open at once (each endpoint has one); more are refused with this reason. "
                    + "Default: ${DEFAULT-VALUE}.")
    int maxConnections;

    @Option(names = "--max-connections-per-host", paramLabel = "N",
            defaultValue = "" + ServerLimits.DEFAULT_MAX_CONNECTIONS_PER_HOST,
            description = "Connections open at once from one client address. Default: ${DEFAULT-VALUE}.")
    int maxConnectionsPerHost;

    @Option(names = "--frame-deadline", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "10s",
            description = "A frame (and a connection's opening handshake) must arrive whole within this time of its "
                    + "first byte; slower senders are cut. Default: ${DEFAULT-VALUE}.")
    long frameDeadlineNs;

    @Option(names = "--frame-memory", paramLabel = "SIZE", converter = ByteSizeConverter.class, defaultValue = "64m",
            description = "Memory for frames over 4 KiB being received, over all connections, reserved from a frame's "
                    + "length prefix before its body is read; when full, such frames wait (until --frame-deadline). "
                    + "Default: ${DEFAULT-VALUE}.")
    long frameMemoryBytes;

    @Option(names = "--max-frame", paramLabel = "SIZE", converter = ByteSizeConverter.class, defaultValue = "1m",
            description = "Largest frame accepted (checked at its length prefix); at most 1m. Default: ${DEFAULT-VALUE}.")
    long maxFrameBytes;

    @Option(names = "--max-tables", paramLabel = "N", defaultValue = "" + ServerLimits.DEFAULT_MAX_TABLES,
            description = "Tables held at once; creating another is refused. Default: ${DEFAULT-VALUE}.")
    int maxTables;

    @Option(names = "--max-endpoints", paramLabel = "N", defaultValue = "" + ServerLimits.DEFAULT_MAX_ENDPOINTS,
            description = "Client endpoints connected at once. Default: ${DEFAULT-VALUE}.")
    int maxEndpoints;

    @Option(names = "--io-threads", paramLabel = "N",
            description = "Threads serving connections (verbs run on them). Default: one per two processors, at "
                    + "least 1 and at most " + TcpMemoryNode.DEFAULT_IO_THREADS + ".")
    Integer ioThreads;

    @Option(names = "--spin", paramLabel = "TIME", converter = DurationConverter.class,
            description = "How long an I/O thread keeps polling its connections after its last request before it "
                    + "sleeps (at most 100ms; 0 sleeps at once): under load it never sleeps, so no request waits for "
                    + "it to be woken; at rest it costs nothing. It takes a core while it polls, so set it where the "
                    + "server has cores to spare (a host of its own). Default: " + TcpMemoryNode.SPIN_NS / 1000
                    + "us on 4 processors or more, else 0.")
    Long spinNs;

    @Option(names = "--shm", paramLabel = "PATH",
            description = "Serve the rpcs of the shm fabric whose file is PATH (an absolute path, e.g. /dev/shm/locks; "
                    + "created with --memory bytes if it does not exist) through its request ring, instead of a tcp "
                    + "memory node: the process that protocols with an rpc service (rpc, shiftlock, ...) need on shm. "
                    + "One serves a file at a time; a second one started while it lives stands by and takes over when "
                    + "it dies (kill -9 too) or stops: rpcs in flight to the dead one fail, later ones go to the new "
                    + "one, which starts its services' in-memory state afresh.")
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
        if (ioThreads == null) {
            ioThreads = TcpMemoryNode.defaultIoThreads();
        }
        if (ioThreads < 1 || ioThreads > 64) {
            throw new BadInputException("--io-threads must be in [1, 64], got " + ioThreads);
        }
        if (spinNs == null) {
            spinNs = TcpMemoryNode.defaultSpinNs();
        }
        if (spinNs < 0 || spinNs > TcpMemoryNode.MAX_SPIN_NS) {
            throw new BadInputException("--spin must be in [0, 100ms], got " + Durations.format(spinNs));
        }
        if (tableGraceNs < 0) {
            throw new BadInputException("--table-grace must not be negative");
        }
        PrintWriter out = spec.commandLine().getOut();
        if (maxFrameBytes > Integer.MAX_VALUE) {
            throw new BadInputException("--max-frame must be at most 1m, got " + maxFrameBytes);
        }
        ServerLimits limits;
        try {
            limits = new ServerLimits(maxConnections, maxConnectionsPerHost, frameDeadlineNs, frameMemoryBytes,
                    (int) maxFrameBytes, maxTables, maxEndpoints);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage().replace("max connections per host", "--max-connections-per-host")
                    .replace("max connections", "--max-connections").replace("the frame deadline", "--frame-deadline")
                    .replace("the largest frame", "--max-frame").replace("the frame memory", "--frame-memory")
                    .replace("max tables", "--max-tables").replace("max endpoints", "--max-endpoints"));
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new BadInputException("--tls-cert and --tls-key go together: give both or neither");
        }
        if (tlsClientCa != null && tlsCert == null) {
            throw new BadInputException("--tls-client-ca needs --tls-cert and --tls-key");
        }
        TcpMemoryNode server;
        try {
            SharedSecret secret = secretFile != null ? SharedSecret.fromFile(secretFile)
                    : TcpFabricProvider.secret(null, System.getenv(TcpFabricProvider.SECRET_FILE_ENV),
                    System.getenv(TcpFabricProvider.SECRET_ENV), null);
            TlsConfig tls = tlsCert == null ? null : TlsConfig.server(tlsCert, tlsKey, tlsClientCa);
            server = TcpMemoryNode.builder().port(port).bind(bind).capacityBytes(memoryBytes).ioThreads(ioThreads)
                    .spinNs(spinNs).tableGraceNs(tableGraceNs).limits(limits).secret(secret).tls(tls).insecure(insecure).start();
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
        out.printf("lockfabric serve: %s%s%n", server.security(), tlsCert == null ? ""
                : "; clients add ?tls-trust=" + tlsCert + " (or its CA) to the address");
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
            fabric = ShmFabric.builder().path(path).capacityBytes(memoryBytes).standbyRpc(true).build();
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
        if (fabric.servesRpc()) {
            out.printf("lockfabric serve: serving the rpcs of shm:%s; pid %d, stop with 'kill %d' or Ctrl-C%n", path, pid, pid);
        } else {
            out.printf("lockfabric serve: process %d serves the rpcs of shm:%s; standing by to take over when it dies or "
                    + "stops; pid %d, stop with 'kill %d' or Ctrl-C%n", fabric.rpcServerPid(), path, pid, pid);
            fabric.rpcServing().thenAccept(from -> {
                out.printf("lockfabric serve: serving the rpcs of shm:%s (took over from process %d); pid %d, stop with "
                        + "'kill %d' or Ctrl-C%n", path, from, pid, pid);
                out.flush();
            });
        }
        out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Main.EXIT_OK;
    }
}
