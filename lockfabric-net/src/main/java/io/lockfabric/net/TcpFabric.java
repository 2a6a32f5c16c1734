package io.lockfabric.net;

import io.lockfabric.fabric.Attachments;
import io.lockfabric.fabric.AuthenticationException;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Durations;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.FabricTiming;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.TableInUseException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.net.wire.ErrorCode;
import io.lockfabric.net.wire.Frame;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The client side of the tcp fabric: endpoints in this JVM that reach one memory node
 * ({@link TcpMemoryNode}, usually another process) over TCP, and message each other directly.
 *
 * <pre>{@code
 * try (TcpFabric fabric = TcpFabric.connect("tcp://127.0.0.1:7420")) {
 *     Endpoint client = fabric.newEndpoint();
 *     ...
 * }
 * }</pre>
 *
 * <p>The endpoints share a few connections to the memory node ({@link Builder#connections}, or
 * {@code ?connections=N} in the address; default one per I/O thread, at most {@link #DEFAULT_CONNECTIONS}): each new endpoint
 * opens itself (HELLO) on the next one in turn and keeps it for its whole life, so its verbs execute
 * in order, as on an RC queue pair ({@link io.lockfabric.net.wire.HelloLayout}). Their frames are
 * coalesced: many per system call under load, none held back when idle. A plain connection is
 * written and read by the calling threads themselves, with no I/O thread in between
 * ({@link DirectServerLink}); a TLS one goes through Netty ({@link NettyServerLink}, {@link Outbox}). A lost
 * connection is lost for all its endpoints (each is told, {@link Endpoint#onMemoryNodeLost}); a later
 * endpoint opens a new one. Each endpoint has its own mailbox listener, announced to the memory
 * node's directory in its HELLO. A send to another endpoint
 * looks the receiver up in the directory once, connects straight to its listener, and caches the
 * connection for every endpoint of this fabric (one connection per receiver, so messages of one
 * sender arrive in order). A receiver whose connection closes, or that the directory does not know
 * or knows as dead, is remembered as gone: later sends to it throw {@link PeerUnreachableException}
 * at once, which protocols treat as RNR.
 *
 * <p>Tables are agreed through the memory node: the first opener creates a table, a later open with
 * another shape throws {@link io.lockfabric.fabric.TableMismatchException}. A table's rpc service
 * is built on the server from its protocol's name ({@link ServiceResolver}); a fabric built with
 * {@link Builder#shareServicesWithEmbeddedServer} hands its services to a server in the same JVM
 * (tests). A fabric built with a {@link Builder#tableNamespace} has tables of its own on a shared
 * server: its table names are prefixed with the namespace there.
 *
 * <p>The endpoints of one fabric are one compute node: the server gives the fabric one node id, as
 * to one process, and they share {@link Endpoint#computeNode() its attachments}; another fabric,
 * in this JVM or another, is another compute node.
 *
 * <p>Security ({@link Builder#secret}, {@link Builder#tls}): every connection opens with the
 * listener's challenge ({@link ListenerHandshake}); with a {@link SharedSecret} this fabric proves it
 * to the memory node and to other clients' mailbox listeners, and they prove it back, so a wrong
 * secret on either side is an {@link AuthenticationException} when the endpoint is made (or, toward
 * a peer, when the first message is sent). With {@link TlsConfig TLS} the connections to the memory
 * node are encrypted and the server's certificate is checked; connections between mailboxes are
 * authenticated by the secret but not encrypted. Each endpoint's mailbox listener is held to
 * {@link #MAILBOX_LIMITS}.
 *
 * <p>Thread-safe. Time is the JVM's monotonic clock ({@link #observerNanoTime()} is this process's).
 */
public final class TcpFabric implements Fabric {
    public static final String SCHEME = "tcp";
    public static final int DEFAULT_IO_THREADS = 2;
    /**
     * How long, by default, the reader of a connection for virtual-thread clients polls after a
     * reply before it blocks: {@value} ns ({@link Builder#readSpinNs}).
     */
    public static final long DEFAULT_READ_SPIN_NS = 200_000;
    /** The longest read spin a fabric takes: {@value} ns. */
    public static final long MAX_READ_SPIN_NS = 100_000_000;
    /** Connections to the memory node shared by a fabric's endpoints, unless told: its I/O threads, at most {@value}. */
    public static final int DEFAULT_CONNECTIONS = 4;
    /** Most connections to the memory node one fabric may be told to open. */
    public static final int MAX_CONNECTIONS = 64;
    public static final long DEFAULT_SEED = 0x7C9_FAB21CL;
    public static final int DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
    /** How long a connection's opening (TLS, then the CHALLENGE / AUTH exchange) may take. */
    public static final int DEFAULT_HANDSHAKE_TIMEOUT_MS = 15_000;
    /** The context of the handshake proofs on connections between mailboxes ({@link ListenerHandshake}). */
    static final String MAILBOX_CONTEXT = "lockfabric mailbox";
    /**
     * What a client's mailbox listener takes: messages and pings are a few dozen bytes, so frames of
     * at most 4 KiB and 1 MiB of them being received at once; other limits as a server's.
     */
    static final ServerLimits MAILBOX_LIMITS = ServerLimits.DEFAULTS.withMaxFrameBytes(4096).withFrameMemoryBytes(1 << 20);
    /** Message types 0 … this − 1 are tallied one by one in {@link #messagesSent}. */
    static final int TALLIED_TYPES = 32;
    /** Between a table namespace and a table name on the server. */
    public static final String NAMESPACE_SEPARATOR = "/";
    /**
     * The tcp fabric's timing: a loopback or LAN round trip of tens of microseconds (40 us, 20
     * times RDMA's), and clients that share cores with each other, their I/O threads and the
     * server, so that a client ready to run may wait a scheduler's slice or two (2 ms) between two
     * of its steps. Protocols' default waits scale from it ({@link FabricTiming}).
     */
    public static final FabricTiming TIMING = new FabricTiming(40_000, 2_000_000);

    private final String host;
    private final int port;
    private final long seed;
    private final int connectTimeoutMs;
    private final boolean virtualThreads;
    private final long readSpinNs;
    private final String configuredListenHost;
    private final TcpMemoryNode colocated;
    private final boolean shareServices;
    private final String tableNamespace;
    private final SharedSecret secret;
    private final TlsConfig tls;
    private final int handshakeTimeoutMs;
    private final ConnectionGuard mailboxGuard;
    private final long processNonce = new SecureRandom().nextLong();
    private final NettyTransport transport;
    private final EventLoopGroup group;
    private final Map<EndpointId, TcpEndpoint> endpoints = new ConcurrentHashMap<>();
    private final Set<EndpointId> closedHere = ConcurrentHashMap.newKeySet();
    private final Map<EndpointId, Channel> peers = new ConcurrentHashMap<>();
    /** This fabric's endpoints are one compute node: they share one node id, as one process does. */
    private final Attachments computeNode = new Attachments();
    private final Attachments attachments = new Attachments();
    private final Set<EndpointId> gonePeers = ConcurrentHashMap.newKeySet();
    private final Object connectLock = new Object();
    /** The shared connections to the memory node, made on first use and again once lost; guarded by themselves. */
    private final ServerLink[] links;
    private final java.util.concurrent.atomic.AtomicInteger nextLink = new java.util.concurrent.atomic.AtomicInteger();
    /** Messages sent, by message type (the last bucket takes the rest): to this process's endpoints, to others'. */
    private final AtomicLongArray sentWithinProcess = new AtomicLongArray(TALLIED_TYPES + 1);
    private final AtomicLongArray sentToOtherProcesses = new AtomicLongArray(TALLIED_TYPES + 1);
    private volatile boolean closed;

    private TcpFabric(Builder b) {
        this.host = b.host;
        this.port = b.port;
        this.seed = b.seed;
        this.connectTimeoutMs = b.connectTimeoutMs;
        this.virtualThreads = b.virtualThreads;
        this.readSpinNs = b.readSpinNs;
        this.configuredListenHost = b.listenHost;
        this.colocated = b.colocated;
        this.shareServices = b.shareServices;
        this.tableNamespace = b.tableNamespace;
        this.secret = b.secret;
        this.tls = b.tls;
        this.handshakeTimeoutMs = b.handshakeTimeoutMs;
        this.links = new ServerLink[b.connections > 0 ? b.connections : Math.min(b.ioThreads, DEFAULT_CONNECTIONS)];
        this.mailboxGuard = new ConnectionGuard(MAILBOX_LIMITS, System.getLogger(PeerListener.class.getName()), "");
        this.transport = NettyTransport.best();
        this.group = transport.group(b.ioThreads, "lockfabric-tcp-client");
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A fabric on the memory node at {@code tcp://host:port}, with defaults otherwise. */
    public static TcpFabric connect(String uri) {
        return builder().uri(uri).build();
    }

    @Override
    public String name() {
        return SCHEME + "://" + host + ":" + port;
    }

    @Override
    public int memoryNodes() {
        return 1;
    }

    @Override
    public Endpoint newEndpoint() {
        if (closed) {
            throw new FabricException("fabric " + name() + " is closed");
        }
        ServerLink link = sharedLink(Math.floorMod(nextLink.getAndIncrement(), links.length));
        PeerListener listener = new PeerListener();
        try {
            String listenHost = configuredListenHost != null ? configuredListenHost
                    : link.localAddress().getAddress().getHostAddress();
            Channel listening = new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannel())
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            String refused = mailboxGuard.admit(ch);
                            if (refused != null) {
                                ch.close();
                                return;
                            }
                            ch.pipeline().addLast(mailboxGuard.newDecoder(), new ListenerHandshake(secret, MAILBOX_CONTEXT,
                                    mailboxGuard), listener.newConnectionHandler(ch));
                        }
                    })
                    .bind(listenHost, 0).syncUninterruptibly().channel();
            listener.bound(listening);
            int listenPort = ((InetSocketAddress) listening.localAddress()).getPort();
            // not given up on an interrupt: the endpoint would stay open on the shared connection, unknown here
            Frame reply = link.callUninterruptibly(id -> new Frame.Hello(id, processNonce, listenHost, listenPort),
                    Long.MAX_VALUE);
            if (!(reply instanceof Frame.Welcome w)) {
                throw TcpQueuePair.unexpected(reply);
            }
            EndpointId id = EndpointId.unpack(w.endpointId());
            TcpMailbox mailbox = new TcpMailbox(this, id, link);
            listener.deliverTo(mailbox);
            TcpEndpoint e = new TcpEndpoint(this, id, w.ordinal(), link, listener, mailbox,
                    seed * 0x9E3779B97F4A7C15L + w.ordinal(), computeNode);
            endpoints.put(id, e);
            return e;
        } catch (RuntimeException e) {
            listener.close();
            throw e;
        }
    }

    /** Shared connection {@code slot}: made on first use, and anew once lost. */
    private ServerLink sharedLink(int slot) {
        synchronized (links) {
            ServerLink link = links[slot];
            if (link == null || link.isLost()) {
                if (closed) {
                    throw new FabricException("fabric " + name() + " is closed");
                }
                link = connectToServer();
                links[slot] = link;
            }
            return link;
        }
    }

    /** How long the readers of virtual-thread clients poll after a reply ({@link Builder#readSpinNs}). */
    long readSpinNs() {
        return readSpinNs;
    }

    /** Connections this fabric's endpoints opened to other endpoints' mailbox listeners (tests). */
    int peerConnections() {
        return peers.size();
    }

    /** Polls the readers of this fabric's plain connections made that found no reply (tests: the spin stops at rest). */
    long readSpinPolls() {
        long sum = 0;
        synchronized (links) {
            for (ServerLink link : links) {
                if (link instanceof DirectServerLink d) {
                    sum += d.spinPolls();
                }
            }
        }
        return sum;
    }

    /**
     * Write system calls this fabric made on its connections to the memory node and the frames they
     * carried (plain connections; tests and {@link LoopbackThroughput}: how well writes coalesce).
     */
    long[] writeCounts() {
        long[] sum = new long[2];
        synchronized (links) {
            for (ServerLink link : links) {
                if (link instanceof DirectServerLink d) {
                    long[] c = d.writeCounts();
                    sum[0] += c[0];
                    sum[1] += c[1];
                }
            }
        }
        return sum;
    }

    /** How many connections to the memory node this fabric's endpoints share. */
    public int connections() {
        return links.length;
    }

    /**
     * A connection to the memory node, opened (TLS, the handshake): a plain one on a blocking socket
     * that the callers read and write themselves ({@link DirectServerLink}), a TLS one through
     * Netty ({@link NettyServerLink}).
     */
    private ServerLink connectToServer() {
        if (tls == null && DirectServerLink.enabled()) {
            String peer = "the memory node at " + host + ":" + port;
            return DirectServerLink.open(name(), host, port, connectTimeoutMs,
                    new ConnectorHandshake(secret, TcpMemoryNode.HANDSHAKE_CONTEXT, peer, false), handshakeTimeoutMs, peer,
                    virtualThreads, readSpinNs);
        }
        NettyServerLink link = new NettyServerLink(name());
        Channel ch = connect(host, port, link.handler(), "the memory node", tls, TcpMemoryNode.HANDSHAKE_CONTEXT);
        link.attach(ch);
        return link;
    }

    private Channel connect(String toHost, int toPort, io.netty.channel.ChannelHandler handler, String what,
                            TlsConfig withTls, String context) {
        String peer = what + " at " + toHost + ":" + toPort;
        ConnectorHandshake handshake = new ConnectorHandshake(secret, context, peer, withTls != null);
        ChannelFuture f = new Bootstrap()
                .group(group)
                .channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMs)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (withTls != null) {
                            ch.pipeline().addLast(withTls.newHandler(ch.alloc(), toHost, toPort,
                                    TimeUnit.MILLISECONDS.toNanos(handshakeTimeoutMs)));
                        }
                        ch.pipeline().addLast(TcpMemoryNode.frameDecoder(), handshake, handler);
                    }
                })
                .connect(toHost, toPort);
        f.awaitUninterruptibly();
        if (!f.isSuccess()) {
            throw new FabricException("cannot connect to " + peer + ": " + f.cause(), f.cause());
        }
        ConnectorHandshake.await(f.channel(), handshake, handshakeTimeoutMs);
        return f.channel();
    }

    /**
     * The connection to {@code to}'s mailbox listener: cached, or looked up in the directory through
     * {@code lookup} and made now.
     *
     * @throws PeerUnreachableException if {@code to} is closed, dead, unknown or cannot be reached
     */
    Channel peerChannel(EndpointId to, ServerLink lookup) {
        if (closedHere.contains(to) || gonePeers.contains(to)) {
            throw new PeerUnreachableException(to);
        }
        Channel ch = peers.get(to);
        if (ch != null && ch.isActive()) {
            return ch;
        }
        synchronized (connectLock) {
            ch = peers.get(to);
            if (ch != null) {
                if (ch.isActive()) {
                    return ch;
                }
                gone(to);
                throw new PeerUnreachableException(to);
            }
            Frame reply = lookup.call(id -> new Frame.Lookup(id, to.pack()));
            if (reply instanceof Frame.ErrorReply e && e.code() == ErrorCode.PEER_UNKNOWN) {
                gone(to);
                throw new PeerUnreachableException(to);
            }
            if (!(reply instanceof Frame.PeerAddress address)) {
                throw TcpQueuePair.unexpected(reply);
            }
            try {
                ch = connect(address.host(), address.port(), new PeerOutbound(), "endpoint " + to, null,
                        MAILBOX_CONTEXT);
            } catch (AuthenticationException refused) {
                throw refused;
            } catch (FabricException unreachable) {
                gone(to);
                throw new PeerUnreachableException(to);
            }
            ch.closeFuture().addListener(f -> gone(to));
            peers.put(to, ch);
            return ch;
        }
    }

    private void gone(EndpointId to) {
        gonePeers.add(to);
        Channel ch = peers.remove(to);
        if (ch != null) {
            ch.close();
        }
    }

    /**
     * Records a message of {@code type} sent from {@code from} to {@code to}: within this process if
     * both have its node id, else to another process. (The server gives each client fabric a node
     * id of its own, so two fabrics in one JVM count as two processes, as two compute nodes.)
     */
    void recordSent(EndpointId from, EndpointId to, int type) {
        AtomicLongArray tally = from.node() == to.node() ? sentWithinProcess : sentToOtherProcesses;
        tally.incrementAndGet(type >= 0 && type < TALLIED_TYPES ? type : TALLIED_TYPES);
    }

    /**
     * Messages of {@code type} this fabric's endpoints sent to endpoints of this process (same node
     * id), or to endpoints of other processes. Those of the same fabric are queued in the
     * receiver's mailbox directly; the others travel over TCP. The count says which protocol
     * messages cross compute nodes. Types outside [0, {@value #TALLIED_TYPES}) are counted together.
     */
    long messagesSent(int type, boolean toOtherProcesses) {
        AtomicLongArray tally = toOtherProcesses ? sentToOtherProcesses : sentWithinProcess;
        return tally.get(type >= 0 && type < TALLIED_TYPES ? type : TALLIED_TYPES);
    }

    void offerService(TableSpec spec) {
        if (colocated != null && shareServices) {
            colocated.offerService(serverTableName(spec.name()), spec.service());
        }
    }

    /** The name the server knows table {@code name} of this fabric by: prefixed with the namespace, if any. */
    String serverTableName(String name) {
        return tableNamespace == null ? name : tableNamespace + NAMESPACE_SEPARATOR + name;
    }

    /** {@code onServer} as this fabric's endpoints name it (without the namespace). */
    TableSpec clientSpec(TableSpec onServer) {
        String prefix = serverTableName("");
        if (tableNamespace == null || !onServer.name().startsWith(prefix)) {
            return onServer;
        }
        return new TableSpec(onServer.name().substring(prefix.length()), onServer.protocol(), onServer.locks(),
                onServer.bytes(), onServer.fill(), onServer.memoryNode(), onServer.service());
    }

    /**
     * Queues {@code m} in the mailbox of {@code to} if it is an open endpoint of this fabric (the
     * same compute node): true if it did. A closed one fails the send with
     * {@link PeerUnreachableException}, as a gone peer does; false for endpoints of other fabrics.
     */
    boolean deliverHere(EndpointId to, Message m) {
        TcpEndpoint e = endpoints.get(to);
        if (e == null) {
            if (closedHere.contains(to)) {
                throw new PeerUnreachableException(to);
            }
            return false;
        }
        e.tcpMailbox().deliver(m);
        return true;
    }

    /** Whether {@code to} is an open endpoint of this fabric. */
    boolean isOpenHere(EndpointId to) {
        return endpoints.containsKey(to);
    }

    void detach(TcpEndpoint endpoint) {
        closedHere.add(endpoint.id());
        endpoints.remove(endpoint.id());
    }

    @Override
    public ClientThread spawn(String name, Runnable body) {
        return virtualThreads ? ClientThread.startVirtual(name, body) : ClientThread.startPlatform(name, body);
    }

    @Override
    public long observerNanoTime() {
        return System.nanoTime();
    }

    /** {@link #TIMING}: TCP's round trips and a shared machine's scheduler stalls. */
    @Override
    public FabricTiming timing() {
        return TIMING;
    }

    /** What this fabric's endpoints share: this process's clients of the memory node, not the other processes'. */
    @Override
    public Attachments attachments() {
        return attachments;
    }

    /** False: the tcp fabric is for clients in many processes, even when a test runs them in one. */
    @Override
    public boolean isInProcess() {
        return false;
    }

    /**
     * Drops table {@code name} of this fabric (in its {@link Builder#tableNamespace}, if any) on the
     * memory node; see {@link Fabric#dropTable}. The server counts a table open while a client
     * connection (an endpoint) that opened it is up.
     */
    @Override
    public long dropTable(int memoryNode, String name, boolean force) {
        checkMemoryNode(memoryNode);
        String onServer = serverTableName(name);
        return drop(onServer, new Frame.DropTable(0, onServer, force));
    }

    /**
     * Drops table {@code name} unless a connection other than those of {@code users} (endpoints of
     * this fabric) has it open; the memory node decides at once.
     */
    @Override
    public long dropTable(int memoryNode, String name, java.util.Collection<? extends Endpoint> users) {
        checkMemoryNode(memoryNode);
        String onServer = serverTableName(name);
        List<Long> mine = new java.util.ArrayList<>();
        for (Endpoint e : users) {
            mine.add(e.id().pack());
        }
        return drop(onServer, new Frame.DropTable(0, onServer, false, mine));
    }

    private long drop(String onServer, Frame.DropTable request) {
        Frame reply = controlLink().call(id -> new Frame.DropTable(id, onServer, request.force(), request.exceptEndpoints()));
        return switch (reply) {
            case Frame.TableList l -> l.tables().stream().mapToLong(Frame.TableRow::bytes).sum();
            case Frame.ErrorReply e when e.code() == ErrorCode.TABLE_IN_USE -> throw new TableInUseException(e.message());
            case Frame.ErrorReply e when e.code() == ErrorCode.REFUSED -> throw new IllegalArgumentException(e.message());
            default -> throw TcpQueuePair.unexpected(reply);
        };
    }

    /**
     * The tables clients created on the memory node, every namespace's, by their names there: their
     * memory (with the tables their services created), the client connections that have them open,
     * and how long none has. At most {@link io.lockfabric.net.wire.TablesLayout#MAX_ROWS} (the
     * first created); {@link Frame.TableList#total()} says how many there are.
     */
    public Frame.TableList tables() {
        Frame reply = controlLink().call(Frame.ListTables::new);
        if (!(reply instanceof Frame.TableList l)) {
            throw TcpQueuePair.unexpected(reply);
        }
        return l;
    }

    private static void checkMemoryNode(int memoryNode) {
        if (memoryNode != 0) {
            throw new IllegalArgumentException("no memory node " + memoryNode + " (fabric has 1)");
        }
    }

    @Override
    public CounterSnapshot memoryNodeCounters(int memoryNode) {
        checkMemoryNode(memoryNode);
        Frame reply = controlLink().call(id -> new Frame.Stats(id, memoryNode));
        if (!(reply instanceof Frame.StatsReply s)) {
            throw TcpQueuePair.unexpected(reply);
        }
        return new CounterSnapshot(s.ops(), s.bytes());
    }

    /** The connection for requests of no endpoint (counters, tables): the first shared one. */
    private ServerLink controlLink() {
        return sharedLink(0);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (TcpEndpoint e : endpoints.values()) {
            e.close(false); // no BYE each: closing the connections closes them all at once
        }
        for (Channel ch : peers.values()) {
            ch.close();
        }
        synchronized (links) {
            for (ServerLink link : links) {
                if (link != null) {
                    link.closeByOwner();
                }
            }
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        if (colocated != null) {
            colocated.close();
        }
    }

    /** A connection to another endpoint's listener: nothing ever comes back on it. */
    private static final class PeerOutbound extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
            ctx.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Configuration of a {@link TcpFabric}; validated in {@link #build()}. */
    public static final class Builder {
        private String host;
        private int port = -1;
        private long seed = DEFAULT_SEED;
        private int ioThreads = DEFAULT_IO_THREADS;
        private int connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
        private String listenHost;
        private TcpMemoryNode colocated;
        private boolean shareServices;
        private String tableNamespace;
        private SharedSecret secret;
        private TlsConfig tls;
        private int handshakeTimeoutMs = DEFAULT_HANDSHAKE_TIMEOUT_MS;
        private int connections = -1; // as many as I/O threads, at most DEFAULT_CONNECTIONS
        private boolean virtualThreads;
        private long readSpinNs = DEFAULT_READ_SPIN_NS;

        /**
         * The memory node, as {@code tcp://host:port}, optionally with {@code ?connections=N} (how
         * many connections the endpoints share, {@link #connections}), {@code threads=virtual} or
         * {@code threads=platform} (the default; {@link #virtualThreads}) and {@code spin=TIME} (the
         * read spin of virtual-thread clients, {@link #readSpinNs}; {@code 200us}, {@code 0}),
         * joined by {@code &}.
         */
        public Builder uri(String uri) {
            URI u;
            try {
                u = new URI(uri);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("'" + uri + "' is not a fabric address tcp://host:port", e);
            }
            if (!SCHEME.equals(u.getScheme()) || u.getHost() == null || u.getPort() < 0
                    || (u.getPath() != null && !u.getPath().isEmpty()) || u.getFragment() != null) {
                throw new IllegalArgumentException("'" + uri + "' is not a fabric address tcp://host:port");
            }
            if (u.getQuery() != null) {
                for (String option : u.getQuery().split("&")) {
                    String[] kv = option.split("=", 2);
                    if (kv.length == 2 && kv[0].equals("threads")) {
                        switch (kv[1]) {
                            case "virtual" -> virtualThreads(true);
                            case "platform" -> virtualThreads(false);
                            default -> throw new IllegalArgumentException("'" + uri
                                    + "': threads must be virtual or platform, got '" + kv[1] + "'");
                        }
                        continue;
                    }
                    if (kv.length == 2 && kv[0].equals("spin")) {
                        try {
                            readSpinNs(Durations.parseNanos(kv[1]));
                        } catch (IllegalArgumentException e) {
                            throw new IllegalArgumentException("'" + uri + "': spin must be a time (200us, 0), got '"
                                    + kv[1] + "'", e);
                        }
                        continue;
                    }
                    if (kv.length != 2 || !kv[0].equals("connections")) {
                        throw new IllegalArgumentException("'" + uri + "': unknown option '" + option
                                + "' (tcp://host:port takes connections=N, threads=virtual|platform and spin=TIME)");
                    }
                    try {
                        connections(Integer.parseInt(kv[1]));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("'" + uri + "': connections must be a number, got '"
                                + kv[1] + "'");
                    }
                }
            }
            return server(u.getHost(), u.getPort());
        }

        public Builder server(String host, int port) {
            this.host = host;
            this.port = port;
            return this;
        }

        /** Seed of the endpoints' random generators. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder ioThreads(int threads) {
            this.ioThreads = threads;
            return this;
        }

        /**
         * The secret to prove to the memory node and to other clients' mailboxes, and that they must
         * prove back (default: none; a server or mailbox that asks for one then refuses this fabric).
         */
        public Builder secret(SharedSecret secret) {
            this.secret = secret;
            return this;
        }

        /** Connections to the memory node run TLS (default: plain TCP). */
        public Builder tls(TlsConfig tls) {
            this.tls = tls;
            return this;
        }

        /** How long a connection's opening (TLS and the handshake) may take (default {@value TcpFabric#DEFAULT_HANDSHAKE_TIMEOUT_MS} ms). */
        public Builder handshakeTimeoutMs(int ms) {
            this.handshakeTimeoutMs = ms;
            return this;
        }

        /**
         * How many connections to the memory node the endpoints share (default: as many as
         * {@link #ioThreads I/O threads}, at most {@value TcpFabric#DEFAULT_CONNECTIONS}; at most
         * {@value TcpFabric#MAX_CONNECTIONS}): each endpoint uses one of them, in turn, for its whole life.
         */
        public Builder connections(int connections) {
            this.connections = connections;
            return this;
        }

        /**
         * Whether the fabric's clients run on virtual threads (default: platform threads).
         * {@link TcpFabric#spawn} then starts virtual threads, and each plain connection to the memory
         * node has a reader thread that reads all the time and a flusher that writes the frames of
         * the virtual callers one batch of replies woke in one system call: with many clients on few
         * cores a reply costs no operating-system thread switch. Platform threads may still call
         * (they park until the reader wakes them); TLS connections are not changed.
         * {@code LoopbackThroughput} measures both ways.
         */
        public Builder virtualThreads(boolean virtual) {
            this.virtualThreads = virtual;
            return this;
        }

        /**
         * For {@link #virtualThreads virtual-thread} clients: how long a connection's reader keeps
         * polling the socket after a reply before it blocks, in [0, {@value TcpFabric#MAX_READ_SPIN_NS}]
         * ns (default {@value TcpFabric#DEFAULT_READ_SPIN_NS}). It yields its carrier between polls,
         * so callers still run; under load the carrier never sleeps and a reply costs no wake-up; at
         * rest the reader blocks and costs nothing. 0 blocks at once. Platform-thread clients ignore it.
         */
        public Builder readSpinNs(long ns) {
            if (ns < 0 || ns > MAX_READ_SPIN_NS) {
                throw new IllegalArgumentException("read spin must be in [0, " + MAX_READ_SPIN_NS + "] ns, got " + ns);
            }
            this.readSpinNs = ns;
            return this;
        }

        public Builder connectTimeoutMs(int ms) {
            this.connectTimeoutMs = ms;
            return this;
        }

        /**
         * The address endpoints' mailboxes listen on and announce (default: the local address of
         * the connection to the memory node, which other clients can reach if the server can).
         */
        public Builder listenHost(String host) {
            this.listenHost = host;
            return this;
        }

        /**
         * A memory node in this JVM that the fabric owns: it connects to it over TCP like to any
         * other, and stops it when the fabric closes.
         */
        public Builder embeddedServer(TcpMemoryNode server) {
            this.colocated = server;
            return server(server.address().getHostString(), server.port());
        }

        /**
         * Hands tables' rpc services to the {@link #embeddedServer} directly instead of letting it
         * rebuild them from the protocol's name, so services of unregistered protocols (tests) work.
         */
        public Builder shareServicesWithEmbeddedServer() {
            this.shareServices = true;
            return this;
        }

        /**
         * Gives this fabric tables of its own on a server other fabrics use too: the server knows
         * its table {@code t} as {@code namespace/t}, so fabrics with different namespaces never
         * share or collide on a table, and fabrics with the same one share them as usual. Letters,
         * digits, '.', '_' and '-' (at most 64). Default: none (names as given).
         */
        public Builder tableNamespace(String namespace) {
            if (namespace == null || !namespace.matches("[A-Za-z0-9._-]{1,64}")) {
                throw new IllegalArgumentException("a table namespace is 1 to 64 letters, digits, '.', '_' or '-', got '"
                        + namespace + "'");
            }
            this.tableNamespace = namespace;
            return this;
        }

        public TcpFabric build() {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("the memory node's address is missing: give tcp://host:port");
            }
            if (shareServices && colocated == null) {
                throw new IllegalArgumentException("sharing services needs an embedded server");
            }
            if (port < 1 || port > 0xFFFF) {
                throw new IllegalArgumentException("port must be in [1, 65535], got " + port);
            }
            if (ioThreads < 1 || ioThreads > 64) {
                throw new IllegalArgumentException("io threads must be in [1, 64], got " + ioThreads);
            }
            if (connections != -1 && (connections < 1 || connections > MAX_CONNECTIONS)) {
                throw new IllegalArgumentException("connections must be in [1, " + MAX_CONNECTIONS + "], got "
                        + connections);
            }
            if (handshakeTimeoutMs < 1) {
                throw new IllegalArgumentException("handshake timeout must be positive, got " + handshakeTimeoutMs);
            }
            if (connectTimeoutMs < 1) {
                throw new IllegalArgumentException("connect timeout must be positive, got " + connectTimeoutMs);
            }
            return new TcpFabric(this);
        }
    }
}
