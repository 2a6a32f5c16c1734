package io.lockfabric.compare;

import io.lockfabric.net.TcpMemoryNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code lockfabric compare}: one {@link CompareWorkload} against LockFabric (on each fabric, with
 * each protocol) and against its peers, each through its own client library on its real server,
 * started here in a process of its own on loopback and stopped when its runs are done:
 *
 * <ul>
 *   <li>{@code lockfabric}: the client API on {@code local} (in this JVM), {@code tcp} (a memory
 *       node, {@link MemoryNodeMain}, in a JVM of its own) or any other address {@code Fabrics.open}
 *       takes ({@code tcp://HOST:PORT} of a running server, {@code shm:PATH});
 *   <li>{@code redisson}: Redisson's {@code RLock} / {@code RReadWriteLock} on {@code redis-server}
 *       from the PATH, started with {@code --save '' --appendonly no} (memory only);
 *   <li>{@code curator}: Curator's {@code InterProcessMutex} / {@code InterProcessReadWriteLock} on a
 *       standalone ZooKeeper server ({@link ZooKeeperMain}: the {@code org.apache.zookeeper} server of
 *       this class path in a JVM of its own, data in a temporary directory, {@code forceSync=no});
 *   <li>{@code hazelcast}: the CP subsystem's {@code FencedLock} through a Hazelcast client, the
 *       members ({@link HazelcastMemberMain}) in JVMs of their own: one member by default, with the CP
 *       subsystem off, so CP structures run in Hazelcast's "unsafe" mode (on the partitioned AP
 *       layer, no Raft); three or more members form a CP group of that many (Raft);
 *   <li>{@code etcd}: etcd's lock service through jetcd ({@link EtcdPeer}: a lease per client thread,
 *       kept alive by jetcd; no shared mode, a read takes the lock exclusive) on {@code etcd} from the
 *       PATH, a single member on loopback with its data in a temporary directory on {@code /dev/shm}
 *       (tmpfs: its fsyncs cost nothing, as ZooKeeper's with {@code forceSync=no}) deleted after.
 * </ul>
 *
 * <p>Every server it started is stopped by {@link #close()}, and by a shutdown hook if the JVM ends
 * first (Ctrl-C, SIGTERM). Not thread-safe: one caller runs it.
 */
public final class Comparison implements AutoCloseable {
    /** The peers, in the order they run. */
    public static final List<String> PEERS = List.of("lockfabric", "redisson", "curator", "hazelcast", "etcd");

    /**
     * What to compare.
     *
     * @param peers            the peers to run, of {@link #PEERS}
     * @param fabrics          LockFabric's fabrics: {@code local}, {@code tcp} (a memory node started here),
     *                         or any address {@code Fabrics.open} takes
     * @param protocols        LockFabric's protocols; {@code default} is the client API's default for the fabric
     * @param workload         the workload of every run
     * @param hazelcastMembers Hazelcast members to start: 1 (CP unsafe mode) or at least 3 (a CP group)
     * @param localHandovers   LockFabric's local handovers ({@code LockFabric.Builder.localHandovers}), each
     *                         fabric and protocol run once per value; 0 passes nothing
     * @param clientProcesses  the JVMs the workload's client threads run in, for every peer alike, each peer
     *                         run once per value: 1 runs them in this one; more split them as evenly as they
     *                         go among JVMs of their own ({@link ClientProcessMain}), each with its own
     *                         client of the peer
     */
    public record Settings(List<String> peers, List<String> fabrics, List<String> protocols, CompareWorkload workload,
                           int hazelcastMembers, List<Integer> localHandovers, List<Integer> clientProcesses) {
        /** Settings whose client threads all run in this JVM. */
        public Settings(List<String> peers, List<String> fabrics, List<String> protocols, CompareWorkload workload,
                        int hazelcastMembers, List<Integer> localHandovers) {
            this(peers, fabrics, protocols, workload, hazelcastMembers, localHandovers, List.of(1));
        }

        /** Settings whose LockFabric rows pass no grant within the process. */
        public Settings(List<String> peers, List<String> fabrics, List<String> protocols, CompareWorkload workload,
                        int hazelcastMembers) {
            this(peers, fabrics, protocols, workload, hazelcastMembers, List.of(0));
        }

        /** Checks the values. */
        public Settings {
            localHandovers = List.copyOf(new LinkedHashSet<>(localHandovers));
            if (localHandovers.isEmpty() || localHandovers.stream().anyMatch(n -> n < 0)) {
                throw new IllegalArgumentException("--local-handovers needs values of 0 or more, got " + localHandovers);
            }
            peers = List.copyOf(new LinkedHashSet<>(peers));
            fabrics = List.copyOf(fabrics);
            protocols = List.copyOf(protocols);
            for (String p : peers) {
                if (!PEERS.contains(p)) {
                    throw new IllegalArgumentException("--peers: unknown peer '" + p + "' (known: " + String.join(", ", PEERS) + ")");
                }
            }
            if (peers.isEmpty()) {
                throw new IllegalArgumentException("--peers: name at least one of " + String.join(", ", PEERS));
            }
            if (peers.contains("lockfabric") && (fabrics.isEmpty() || protocols.isEmpty())) {
                throw new IllegalArgumentException("--fabrics and --protocols need at least one value each");
            }
            clientProcesses = List.copyOf(new LinkedHashSet<>(clientProcesses));
            if (clientProcesses.isEmpty() || clientProcesses.stream().anyMatch(n -> n < 1 || n > workload.threads())) {
                throw new IllegalArgumentException("--client-processes needs values between 1 and --threads (" + workload.threads()
                        + "), got " + clientProcesses);
            }
            if (!clientProcesses.contains(1) && peers.contains("lockfabric") && fabrics.contains("local")) {
                throw new IllegalArgumentException("--client-processes " + clientProcesses + ": the local fabric is one "
                        + "process's memory, which other processes cannot reach; leave it out of --fabrics (tcp and shm "
                        + "are shared between processes), or add 1 to --client-processes");
            }
            if (hazelcastMembers != 1 && hazelcastMembers < 3) {
                throw new IllegalArgumentException("--hazelcast-members must be 1 (CP unsafe mode) or at least 3 (a CP group), got "
                        + hazelcastMembers);
            }
        }
    }

    private static final String SIMPLE_LOGGER_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

    private final Settings settings;
    private final PrintStream progress;
    private final List<ChildProcess> children = new ArrayList<>();
    private final List<Path> tempDirs = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::stopAll, "compare-stop-servers");
    private final Properties versions = new Properties();
    private ChildProcess memoryNode;
    private String memoryNodeUri;
    /** How long the memory node's I/O thread polls before it sleeps (see {@link #tcpMemoryNode}). */
    private long memoryNodeSpinNs;

    /** A comparison of {@code settings}, telling its progress on {@code progress} (or null). */
    public Comparison(Settings settings, PrintStream progress) {
        this.settings = settings;
        this.progress = progress;
        // the peers' client libraries log through SLF4J (slf4j-simple here): their warnings only
        if (System.getProperty(SIMPLE_LOGGER_LEVEL) == null) {
            System.setProperty(SIMPLE_LOGGER_LEVEL, "warn");
            // the ZooKeeper client warns of each connection attempt the server refuses while it loads its
            // database (the port listens before it serves); a server that never serves fails the run anyway
            System.setProperty(SIMPLE_LOGGER_LEVEL.replace("defaultLogLevel", "log.org.apache.zookeeper.ClientCnxn"), "error");
        }
        try (InputStream in = Comparison.class.getResourceAsStream("versions.properties")) {
            if (in != null) {
                versions.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Checks that every chosen peer's server can be started here, before anything runs.
     *
     * @throws PeerUnavailableException naming what is missing and how to install it
     */
    public void checkAvailable() {
        checkAvailable(ChildProcess::onPath);
    }

    /** {@link #checkAvailable()} with {@code onPath} finding programs (null: not found). */
    void checkAvailable(java.util.function.Function<String, Path> onPath) {
        if (settings.peers().contains("redisson") && onPath.apply("redis-server") == null) {
            throw new PeerUnavailableException("redisson needs redis-server on the PATH, and found none: install it "
                    + "(Debian/Ubuntu: apt-get install redis-server), or leave the peer out (--peers "
                    + settings.peers().stream().filter(p -> !p.equals("redisson")).collect(Collectors.joining(",")) + ")");
        }
        if (settings.peers().contains("etcd") && onPath.apply("etcd") == null) {
            throw new PeerUnavailableException("etcd needs the etcd server on the PATH, and found none: install it "
                    + "(Debian/Ubuntu: apt-get install etcd-server), or leave the peer out (--peers "
                    + settings.peers().stream().filter(p -> !p.equals("etcd")).collect(Collectors.joining(",")) + ")");
        }
    }

    /** Runs every peer in turn; their results, in order. */
    public List<PeerResult> run() throws InterruptedException {
        checkAvailable();
        List<PeerResult> results = new ArrayList<>();
        CompareWorkload w = settings.workload();
        for (String peer : settings.peers()) {
            switch (peer) {
                case "lockfabric" -> runLockFabric(results, w);
                case "redisson" -> results.addAll(runRedisson(w));
                case "curator" -> results.addAll(runCurator(w));
                case "hazelcast" -> results.addAll(runHazelcast(w));
                case "etcd" -> results.addAll(runEtcd(w));
                default -> throw new IllegalStateException(peer);
            }
        }
        return results;
    }

    private void say(String format, Object... args) {
        if (progress != null) {
            progress.printf(Locale.ROOT, "compare: " + format + "%n", args);
            progress.flush();
        }
    }

    private PeerResult report(PeerResult r) {
        say("%s: %.0f ops/s, p50 %.1f us, p99 %.1f us, check %s", r.peer(), r.opsPerSec(), r.p50Us(), r.p99Us(), r.outcome());
        return r;
    }

    private void runLockFabric(List<PeerResult> results, CompareWorkload w) throws InterruptedException {
        String runId = Long.toString(ProcessHandle.current().pid(), 36) + "-" + Long.toString(System.currentTimeMillis(), 36);
        for (String fabric : settings.fabrics()) {
            String address = withThreads(fabric.equals("tcp") ? tcpMemoryNode(w) : fabric, w);
            for (String protocol : settings.protocols()) {
                String proto = protocol.equals("default") ? null : protocol;
                for (int handovers : settings.localHandovers()) {
                    String space = "compare-" + runId + "-" + results.size();
                    String[] served = {address};
                    try (LockFabricPeer client = openServing(address, proto, space, w, handovers, served).droppingOnClose()) {
                        String lock = client.protocol() + (handovers > 0 ? "+lh" + handovers : "");
                        String row = "lockfabric " + fabric + " " + lock;
                        String system = (fabric.equals("tcp") ? "LockFabric, memory node in its own process (" + address
                                + (memoryNodeSpinNs > 0 ? ", polls " + memoryNodeSpinNs / 1000 + "us before it sleeps" : "") + ")"
                                : served[0].equals(address) ? "LockFabric on " + fabric
                                : "LockFabric on " + fabric + ", its rpcs served by this process")
                                + (handovers > 0 ? ", up to " + handovers + " local handovers in a row" : "");
                        // the client processes open the space this one opened (and serves, on shm)
                        PeerSpec spec = PeerSpec.of("lockfabric", address, client.protocol(), space,
                                Integer.toString(handovers));
                        results.addAll(measure(row, fabric, system, lock, spec, () -> client, false, w));
                    }
                }
            }
        }
        if (memoryNode != null) {
            stop(memoryNode);
            memoryNode = null;
        }
    }

    /**
     * Opens the peer on {@code address}. A {@code shm:} file whose address leaves {@code serve} out is
     * opened with {@code serve=true}, so that rpc protocols have the file's rpc server they need,
     * unless another live process serves the file already; {@code opened[0]} is set to the address
     * opened.
     */
    static LockFabricPeer openServing(String address, String protocol, String space, CompareWorkload w,
                                      int localHandovers, String[] opened) {
        opened[0] = address;
        if (!address.startsWith("shm:") || address.contains("serve=")) {
            return LockFabricPeer.open(address, protocol, space, w, localHandovers);
        }
        String serving = address + (address.contains("?") ? "," : "?") + "serve=true";
        try {
            LockFabricPeer peer = LockFabricPeer.open(serving, protocol, space, w, localHandovers);
            opened[0] = serving;
            return peer;
        } catch (RuntimeException e) {
            if (String.valueOf(e.getMessage()).contains("has an rpc server already")) {
                return LockFabricPeer.open(address, protocol, space, w, localHandovers);
            }
            throw e;
        }
    }

    /**
     * {@code address}, its tcp fabric built for virtual threads when the workload's threads are
     * ({@code threads=virtual}, unless the address says otherwise); other addresses as they are.
     */
    static String withThreads(String address, CompareWorkload w) {
        if (!w.virtualThreads() || !address.startsWith("tcp://") || address.contains("threads=")) {
            return address;
        }
        return address + (address.contains("?") ? "," : "?") + "threads=virtual";
    }

    /**
     * The memory node for LockFabric's {@code tcp} rows, started once. Its I/O thread polls before it
     * sleeps ({@link TcpMemoryNode#SPIN_NS}) when the clients are virtual threads (they leave it a core:
     * the launcher runs them on one carrier) or the machine has cores to spare; with platform-thread
     * clients on a small machine it does not, as {@code lockfabric serve} would not
     * ({@link TcpMemoryNode#defaultSpinNs()}).
     */
    private String tcpMemoryNode(CompareWorkload w) {
        if (memoryNode == null) {
            memoryNodeSpinNs = w.virtualThreads() ? TcpMemoryNode.SPIN_NS : TcpMemoryNode.defaultSpinNs();
            say("lockfabric tcp: starting a memory node (lockfabric serve" + (memoryNodeSpinNs > 0 ? " --spin "
                    + memoryNodeSpinNs / 1000 + "us" : "") + ") in its own JVM on loopback");
            memoryNode = started(ChildProcess.java("memory node", List.of("-Xmx2g", "-XX:+UseParallelGC",
                            "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED"),
                    MemoryNodeMain.class.getName(), List.of(Long.toString(1L << 30), Long.toString(memoryNodeSpinNs)),
                    "LISTENING "));
            memoryNodeUri = memoryNode.awaitMark(60);
        }
        return memoryNodeUri;
    }

    private List<PeerResult> runRedisson(CompareWorkload w) throws InterruptedException {
        int port = ChildProcess.freePort();
        Path binary = ChildProcess.onPath("redis-server");
        say("redisson: starting %s on 127.0.0.1:%d (no persistence)", binary, port);
        ChildProcess redis = started(ChildProcess.start("redis-server", List.of(binary.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--daemonize", "no",
                "--loglevel", "warning"), null));
        try {
            redis.awaitPort(port, 30);
            String server = "redis-server " + redisVersion(binary);
            return measure("redisson", null, "Redisson " + versions.getProperty("redisson", "?") + " on " + server,
                    RedissonPeer.lockName(w), PeerSpec.of("redisson", Integer.toString(port)), () -> new RedissonPeer(port, w), true, w);
        } finally {
            stop(redis);
        }
    }

    private static String redisVersion(Path binary) {
        return programVersion(binary, "v=(\\S+)");
    }

    /** What {@code binary --version} prints, the first group of {@code pattern} in it ("?" if none). */
    private static String programVersion(Path binary, String pattern) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            p.waitFor();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(pattern).matcher(out);
            return m.find() ? m.group(1) : "?";
        } catch (IOException e) {
            return "?";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }

    /**
     * Curator on a ZooKeeper server of its own, connected once the server says it runs
     * ({@link ZooKeeperMain}). A server that never answers is stopped and started again once, on a
     * new port and data directory, before the peer is reported unavailable. (The server that "bound
     * its port but never served", seen in CI, was a client that connected as soon as the port
     * listened, before the server ran: ZooKeeper 3.9.3 then neither serves nor closes the
     * connection, see {@link ZooKeeperMain}.)
     */
    private List<PeerResult> runCurator(CompareWorkload w) throws InterruptedException {
        try {
            return runCuratorOnce(w);
        } catch (PeerUnavailableException first) {
            say("curator: %s; starting ZooKeeper again", first.getMessage().lines().findFirst().orElse("no connection"));
            return runCuratorOnce(w);
        }
    }

    private List<PeerResult> runCuratorOnce(CompareWorkload w) throws InterruptedException {
        int port = ChildProcess.freePort();
        Path dir = tempDir("lockfabric-compare-zk");
        Path cfg = dir.resolve("zoo.cfg");
        try {
            Files.writeString(cfg, String.join("\n",
                    "tickTime=2000",
                    "dataDir=" + dir.resolve("data"),
                    "clientPort=" + port,
                    "clientPortAddress=127.0.0.1",
                    "maxClientCnxns=0",
                    "admin.enableServer=false",
                    "4lw.commands.whitelist=",
                    "") + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String zk = "ZooKeeper " + versions.getProperty("zookeeper", "?");
        say("curator: starting %s (standalone, forceSync=no) in its own JVM on 127.0.0.1:%d", zk, port);
        ChildProcess server = started(ChildProcess.java("zookeeper", List.of("-Xmx512m", "-Dzookeeper.forceSync=no",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "--sun-misc-unsafe-memory-access=allow",
                        "--enable-native-access=ALL-UNNAMED"), ZooKeeperMain.class.getName(), List.of(cfg.toString()),
                ZooKeeperMain.SERVING));
        try {
            // not the port: it listens before the server runs, and a connection then can hang (ZooKeeperMain)
            server.awaitMark(60);
            return measure("curator", null, "Curator " + versions.getProperty("curator", "?") + " on " + zk + " (standalone)",
                    CuratorPeer.lockName(w), PeerSpec.of("curator", Integer.toString(port)), () -> {
                        try {
                            return new CuratorPeer(port, w);
                        } catch (PeerUnavailableException e) {
                            throw new PeerUnavailableException(e.getMessage() + "; the server's output:\n" + server.output(), e);
                        }
                    }, true, w);
        } finally {
            stop(server);
        }
    }

    private List<PeerResult> runHazelcast(CompareWorkload w) throws InterruptedException {
        int n = settings.hazelcastMembers();
        int cp = n >= 3 ? n : 0;
        String cluster = "lockfabric-compare-" + ProcessHandle.current().pid();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ports.add(ChildProcess.freePort());
        }
        String all = ports.stream().map(String::valueOf).collect(Collectors.joining(","));
        String hz = "Hazelcast " + versions.getProperty("hazelcast", "?");
        say("hazelcast: starting %d %s member(s) in JVMs of their own on loopback (%s)", n, hz,
                cp == 0 ? "CP subsystem off: FencedLock in unsafe mode" : "CP group of " + cp);
        List<ChildProcess> members = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                members.add(started(ChildProcess.java("hazelcast member " + (i + 1), List.of("-Xmx512m",
                                "--add-modules", "java.se", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
                                "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                                "--add-opens", "java.management/sun.management=ALL-UNNAMED",
                                "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
                                "-Dhazelcast.logging.type=jdk", "-Djava.util.logging.config.file=/dev/null"),
                        HazelcastMemberMain.class.getName(),
                        List.of(cluster, Integer.toString(ports.get(i)), all, Integer.toString(cp)), "LISTENING ")));
            }
            String confirmed = "";
            for (ChildProcess m : members) {
                String listening = m.awaitMark(180);
                if (cp > 0) {
                    java.util.regex.Matcher k = java.util.regex.Pattern.compile("cp-members=(\\d+)").matcher(listening);
                    if (!k.find() || Integer.parseInt(k.group(1)) != cp) {
                        throw new PeerUnavailableException(m + " formed no CP group of " + cp + " (" + listening + "); its output:\n"
                                + m.output());
                    }
                    confirmed = ", " + cp + " CP members confirmed";
                }
            }
            long connecting = System.nanoTime();
            return measure("hazelcast", null, hz + ", " + n + " member(s) in their own JVM(s), "
                    + (cp == 0 ? "CP unsafe mode" : "CP group of " + cp + confirmed + " (Raft)"), "FencedLock",
                    PeerSpec.of("hazelcast", cluster, all), () -> {
                        HazelcastPeer client = new HazelcastPeer(cluster, ports, w);
                        say("hazelcast: client connected and a first FencedLock taken in %.1f s", (System.nanoTime() - connecting) / 1e9);
                        return client;
                    }, true, w);
        } finally {
            members.forEach(this::stop);
        }
    }

    /**
     * jetcd on an etcd server of its own: a single member on loopback (free ports for its client and
     * peer URLs), its data in a temporary directory on {@code /dev/shm} when there is one, deleted
     * when it stops.
     */
    private List<PeerResult> runEtcd(CompareWorkload w) throws InterruptedException {
        Path binary = ChildProcess.onPath("etcd");
        int clientPort = ChildProcess.freePort();
        int peerPort = ChildProcess.freePort();
        while (peerPort == clientPort) {
            peerPort = ChildProcess.freePort();
        }
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ? tempDir(shm, "lockfabric-compare-etcd")
                : tempDir("lockfabric-compare-etcd");
        String clientUrl = "http://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + peerPort;
        String version = programVersion(binary, "etcd Version:\\s*(\\S+)");
        say("etcd: starting %s %s (one member, data in %s) on %s", binary, version, dir, clientUrl);
        ChildProcess etcd = started(ChildProcess.start("etcd", List.of(binary.toString(), "--name", "lockfabric-compare",
                "--data-dir", dir.resolve("data").toString(), "--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl,
                "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
                "--initial-cluster", "lockfabric-compare=" + peerUrl, "--initial-cluster-state", "new",
                "--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn"), null));
        try {
            etcd.awaitPort(clientPort, 30);
            if (w.reads()) {
                say("etcd: etcd has no reader-writer lock: reads take the lock exclusive");
            }
            return measure("etcd", null, "jetcd " + versions.getProperty("jetcd", "?") + " on etcd " + version
                    + " (one member, data on " + (dir.startsWith(shm) ? "tmpfs" : "disk") + ")", EtcdPeer.lockName(w),
                    PeerSpec.of("etcd", Integer.toString(clientPort)), () -> {
                        try {
                            return new EtcdPeer(clientPort, w, 30);
                        } catch (PeerUnavailableException e) {
                            throw new PeerUnavailableException(e.getMessage() + "; the server's output:\n" + etcd.output(), e);
                        }
                    }, true, w);
        } finally {
            stop(etcd);
            deleteTree(dir);
        }
    }

    /** Connects to a peer in this process. */
    @FunctionalInterface
    private interface Opener {
        PeerClient open() throws InterruptedException;
    }

    /**
     * Runs the workload on one peer once per value of {@link Settings#clientProcesses}: in this JVM
     * through the client {@code open} makes (closed after if {@code owned}), or in that many JVMs of
     * their own that connect as {@code spec} says (a row named {@code ROW/Np}, whose system says
     * so). LockFabric's {@code local} fabric ({@code fabric}) runs in this JVM only.
     */
    private List<PeerResult> measure(String row, String fabric, String system, String lock, PeerSpec spec, Opener open,
                                     boolean owned, CompareWorkload w) throws InterruptedException {
        List<PeerResult> out = new ArrayList<>();
        for (int n : settings.clientProcesses()) {
            if (n == 1) {
                PeerClient client = open.open();
                try {
                    say("%s: running %d threads", row, w.threads());
                    out.add(report(WorkloadRunner.run(row, fabric, system, lock, client, w, progress)));
                } finally {
                    if (owned) {
                        client.close();
                    }
                }
            } else if ("local".equals(fabric)) {
                say("%s: not in %d processes: the local fabric is this process's memory", row, n);
            } else {
                out.add(report(inClientProcesses(row + "/" + n + "p", fabric, system + ", clients in " + n + " processes",
                        lock, spec, w, n)));
            }
        }
        return out;
    }

    /**
     * Runs the workload's threads in {@code n} client processes ({@link ClientProcessMain}), which
     * count in one {@link ExclusionCheck} file and start together: each says it is ready in the file,
     * and this one says go once all are. Their parts are added into one row.
     */
    PeerResult inClientProcesses(String row, String fabric, String system, String lock, PeerSpec spec, CompareWorkload w, int n)
            throws InterruptedException {
        Path shm = Path.of("/dev/shm");
        Path dir = tempDir(Files.isDirectory(shm) && Files.isWritable(shm) ? shm : null, "lockfabric-compare-check");
        Path file = dir.resolve("check");
        ExclusionCheck.Mapped check = ExclusionCheck.Mapped.map(file, w.locks(), true);
        List<ChildProcess> clients = new ArrayList<>();
        try {
            int first = 0;
            for (int i = 0; i < n; i++) {
                int threads = w.threads() / n + (i < w.threads() % n ? 1 : 0);
                List<String> args = new ArrayList<>(List.of(file.toString(), Integer.toString(first), Integer.toString(threads),
                        Integer.toString(w.locks()), Double.toString(w.zipf()),
                        Double.toString(w.readRatio()), Long.toString(w.warmupNs()), Long.toString(w.durationNs()),
                        Long.toString(w.seed()), w.threadKind(), row));
                args.addAll(spec.words());
                clients.add(started(ChildProcess.java(row + " client process " + (i + 1), clientJvmOptions(),
                        ClientProcessMain.class.getName(), args, ClientProcessMain.RESULT)));
                first += threads;
            }
            say("%s: starting %d client processes (%d threads in all)", row, n, w.threads());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (check.readyCount() < n) {
                for (ChildProcess c : clients) {
                    if (!c.isAlive()) {
                        throw new PeerUnavailableException(c + " ended before it was ready: " + failure(c.awaitMark(5))
                                + "; its output:\n" + c.output());
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new PeerUnavailableException(row + ": " + check.readyCount() + " of " + n
                            + " client processes connected in 180 s");
                }
                Thread.sleep(5);
            }
            check.go();
            say("%s: %d client processes running", row, n);
            long wait = TimeUnit.NANOSECONDS.toSeconds(w.warmupNs() + w.durationNs()) + 120;
            List<WorkloadRunner.Part> parts = new ArrayList<>();
            for (ChildProcess c : clients) {
                String result = c.awaitMark(wait);
                if (result.startsWith(ClientProcessMain.FAILED)) {
                    throw new PeerUnavailableException(c + " failed: " + failure(result) + "; its output:\n" + c.output());
                }
                parts.add(WorkloadRunner.Part.decode(result));
            }
            return WorkloadRunner.result(row, fabric, system, lock, w, parts, check);
        } finally {
            clients.forEach(this::stop);
            deleteTree(dir);
        }
    }

    private static String failure(String result) {
        return result.startsWith(ClientProcessMain.FAILED) ? result.substring(ClientProcessMain.FAILED.length()) : result;
    }

    /** A client process's JVM: as the launcher's, its one carrier for virtual threads too (if this JVM has one). */
    private static List<String> clientJvmOptions() {
        List<String> o = new ArrayList<>(List.of("-Xmx1g", "-XX:+UseParallelGC", "--sun-misc-unsafe-memory-access=allow",
                "--enable-native-access=ALL-UNNAMED"));
        String parallelism = System.getProperty("jdk.virtualThreadScheduler.parallelism");
        if (parallelism != null) {
            o.add("-Djdk.virtualThreadScheduler.parallelism=" + parallelism);
        }
        return o;
    }

    private ChildProcess started(ChildProcess p) {
        synchronized (children) {
            children.add(p);
        }
        return p;
    }

    private void stop(ChildProcess p) {
        p.close();
        synchronized (children) {
            children.remove(p);
        }
    }

    private Path tempDir(String prefix) {
        return tempDir(null, prefix);
    }

    /** A new temporary directory in {@code parent} (null: the default one), deleted by {@link #close()} at the latest. */
    private Path tempDir(Path parent, String prefix) {
        try {
            Path d = parent == null ? Files.createTempDirectory(prefix) : Files.createTempDirectory(parent, prefix);
            synchronized (children) {
                tempDirs.add(d);
            }
            return d;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops every server still running and deletes the temporary directories. */
    private void stopAll() {
        List<ChildProcess> left;
        List<Path> dirs;
        synchronized (children) {
            left = new ArrayList<>(children);
            children.clear();
            dirs = new ArrayList<>(tempDirs);
            tempDirs.clear();
        }
        left.forEach(ChildProcess::close);
        dirs.forEach(Comparison::deleteTree);
    }

    /** Deletes {@code d} and everything in it, if it is still there. */
    private static void deleteTree(Path d) {
        if (!Files.exists(d)) {
            return;
        }
        try (Stream<Path> files = Files.walk(d)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException ignored) {
            // a temporary directory left behind is no failure
        }
    }

    /** Stops every server it started. */
    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException ignored) {
            // the JVM is shutting down: the hook runs (or ran) anyway
        }
    }
}
