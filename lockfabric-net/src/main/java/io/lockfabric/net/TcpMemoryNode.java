package io.lockfabric.net;

import io.lockfabric.fabric.ServiceResolver;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.RemoteAccessException;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableDroppedException;
import io.lockfabric.fabric.TableInUseException;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.memory.MemoryNode;
import io.lockfabric.fabric.memory.PendingRpc;
import io.lockfabric.net.wire.ErrorCode;
import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.FrameHeaderLayout;
import io.lockfabric.net.wire.FrameType;
import io.lockfabric.net.wire.MalformedFrameException;
import io.lockfabric.net.wire.TablesLayout;
import io.lockfabric.net.wire.VerbLayout;
import io.lockfabric.net.wire.WireCodec;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import javax.net.ssl.SSLException;

/**
 * A memory node served over TCP: the server side of the tcp fabric. It hosts the memory regions of
 * lock tables ({@link MemoryNode}), executes verbs and batches with {@link io.lockfabric.fabric.memory.MemoryRegion}'s
 * semantics, serves the tables' rpc services, and keeps the directory of client endpoints
 * (endpoint id → the host and port its mailbox listens on) so clients can message each other
 * directly. It never relays messages.
 *
 * <p>Per connection: the first request must be a HELLO, which opens a client endpoint on it; a
 * connection carries the endpoints of one client process that its HELLOs open, each until its BYE
 * or until the connection closes, when all of them are dead in the directory at once
 * ({@link io.lockfabric.net.wire.HelloLayout}). Requests are served on the connection's I/O thread
 * in arrival order, so the verbs of each endpoint (each queue pair) execute in order; the replies
 * to a read batch of requests are flushed together once it is served (many frames per system call
 * under load, none held back when idle). An rpc handler may reply later, and replies carry the
 * request id. Bad input (a malformed or unknown frame, a bad address or length, an endpoint not open
 * on the connection) is answered with an ERROR and changes no memory; a frame whose length is out
 * of bounds closes its connection. The server stays up either way.
 *
 * <p>Tables live as long as a client uses them ({@link TableLifecycle}): a table is kept while an
 * endpoint that opened it is open, and for a grace ({@link Builder#tableGraceNs}) after the last
 * one closes; then it is dropped and its memory freed. {@link #dropTable} (and the DROP_TABLE
 * frame, {@code lockfabric tables drop}) drops one at once, while clients have it open only if
 * forced: their later verbs on it then fail with a TABLE_DROPPED error.
 *
 * <p>Before its HELLO, every connection goes through the opening of {@link ListenerHandshake}: with a
 * {@link Builder#secret shared secret} the client must prove it (HMAC challenge; the secret never
 * crosses the wire), with {@link Builder#tls TLS} the connection is encrypted and, optionally,
 * client certificates are required. Every connection is held to the server's {@link ServerLimits}
 * (connections in all and per host, a deadline and a memory budget for frames being received,
 * tables and endpoints); refusals are logged once per cause per 10 s. A server that other hosts can
 * reach must have a secret or TLS unless built {@link Builder#insecure}.
 *
 * <p>Thread-safe; {@link #close()} stops it and frees its memory.
 */
public final class TcpMemoryNode implements AutoCloseable {
    public static final int DEFAULT_PORT = 7420;
    public static final String DEFAULT_BIND = "127.0.0.1";
    /** The most I/O threads a server starts by default ({@link #defaultIoThreads()}). */
    public static final int DEFAULT_IO_THREADS = 2;
    /**
     * How long an I/O thread keeps polling after its last request before it sleeps, where the
     * machine has cores to spare: {@value} ns ({@link Builder#spinNs}, {@link #defaultSpinNs()}).
     */
    public static final long SPIN_NS = 300_000;
    /** The longest spin a server takes: {@value} ns. */
    public static final long MAX_SPIN_NS = 100_000_000;
    private final java.util.concurrent.atomic.LongAdder replyFrames = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder replyFlushes = new java.util.concurrent.atomic.LongAdder();
    /** Polls of the I/O threads that found nothing to do and kept spinning ({@link Builder#spinNs}). */
    private final java.util.concurrent.atomic.LongAdder idlePolls = new java.util.concurrent.atomic.LongAdder();
    /** How long a table no client has open is kept: {@value} ns (60 s). */
    public static final long DEFAULT_TABLE_GRACE_NS = 60_000_000_000L;

    /**
     * I/O threads by default: one per two processors, at least 1 and at most
     * {@value #DEFAULT_IO_THREADS}. Threads that poll before they sleep ({@link Builder#spinNs})
     * must leave cores to the rest of the machine: on two cores, one.
     */
    public static int defaultIoThreads() {
        return Math.max(1, Math.min(DEFAULT_IO_THREADS, Runtime.getRuntime().availableProcessors() / 2));
    }

    /**
     * The spin by default: {@value #SPIN_NS} ns on 4 processors or more, else 0. A polling I/O thread
     * takes a core while it polls; on a smaller machine that is the core the clients on the same host
     * need (platform-thread clients on 2 cores lost a third of their throughput to it). A server on
     * a host of its own, or beside clients that leave a core free (virtual threads on one carrier),
     * gains from it whatever the cores: set it.
     */
    public static long defaultSpinNs() {
        return Runtime.getRuntime().availableProcessors() >= 4 ? SPIN_NS : 0;
    }

    /** The context of the memory node's handshake proofs ({@link ListenerHandshake}). */
    static final String HANDSHAKE_CONTEXT = "lockfabric memory node";
    private static final Logger LOG = System.getLogger(TcpMemoryNode.class.getName());

    private final MemoryNode memory;
    private final ServiceResolver resolver;
    private final NettyTransport transport;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel listener;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Map<EndpointId, DirectoryEntry> directory = new ConcurrentHashMap<>();
    private final Map<Long, Integer> nodeIdsByNonce = new ConcurrentHashMap<>();
    private final Map<String, TableSpec.ServiceFactory> offeredServices = new ConcurrentHashMap<>();
    private final AtomicInteger nextOrdinal = new AtomicInteger(1);
    private final AtomicInteger nextNodeId = new AtomicInteger(1);
    private final AtomicLongArray ops = new AtomicLongArray(VerbKind.count());
    private final AtomicLongArray bytes = new AtomicLongArray(VerbKind.count());
    private final TableLifecycle tables;
    private final boolean wildcardIsIpv6;
    private final ServerLimits limits;
    private final ConnectionGuard guard;
    private final SharedSecret secret;
    private final TlsConfig tls;
    private final AtomicInteger connectedEndpoints = new AtomicInteger();
    private volatile boolean closed;

    /** Where a client endpoint's mailbox listens, and whether it is still open on a connection that is up. */
    private record DirectoryEntry(String host, int port, OpenEndpoint endpoint, Channel connection) {
        boolean alive() {
            return endpoint.open && connection.isActive();
        }
    }

    /**
     * A client endpoint opened (HELLO) on a connection: what keeps its tables ({@link TableLifecycle}
     * counts openers per endpoint) and what the directory asks whether it is alive.
     */
    private static final class OpenEndpoint {
        final EndpointId id;
        volatile boolean open = true;

        OpenEndpoint(EndpointId id) {
            this.id = id;
        }
    }

    private TcpMemoryNode(Builder b) {
        this.memory = new MemoryNode(0, b.capacityBytes);
        this.resolver = b.resolver;
        this.limits = b.limits;
        this.guard = new ConnectionGuard(b.limits, LOG, "--");
        this.secret = b.secret;
        this.tls = b.tls;
        this.transport = NettyTransport.best();
        this.boss = transport.group(1, "lockfabric-mn-accept");
        this.workers = transport.group(b.ioThreads, "lockfabric-mn-io", b.spinNs, idlePolls);
        this.tables = new TableLifecycle(memory, b.tableGraceNs,
                (task, delayNs) -> {
                    try {
                        boss.schedule(task, delayNs, TimeUnit.NANOSECONDS);
                    } catch (java.util.concurrent.RejectedExecutionException stopping) {
                        // the server is closing: its tables go with it
                    }
                }, System::nanoTime);
        try {
            ServerBootstrap sb = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(transport.serverChannel())
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            connections.add(ch);
                            if (tls != null) {
                                ch.pipeline().addLast(tls.newHandler(ch.alloc(), null, 0, limits.frameDeadlineNs()));
                            }
                            String refused = guard.admit(ch);
                            if (refused != null) {
                                ch.pipeline().addLast(new Refuser(refused));
                                return;
                            }
                            ch.pipeline().addLast(guard.newDecoder(), new ListenerHandshake(secret, HANDSHAKE_CONTEXT,
                                    guard), new Connection());
                        }
                    });
            InetAddress bindTo = InetAddress.getByName(b.bind);
            this.wildcardIsIpv6 = bindTo instanceof Inet6Address;
            this.listener = sb.bind(new InetSocketAddress(bindTo, b.port)).syncUninterruptibly().channel();
        } catch (IOException | RuntimeException e) {
            shutdownGroups();
            memory.close();
            throw new FabricException("cannot listen on " + b.bind + ":" + b.port + ": " + e.getMessage(), e);
        }
        LOG.log(Level.INFO, "memory node listening on {0}{1} ({2} transport, {3} bytes of memory, tables kept {4} ms "
                + "after their last client; {5})", uri(), address().getAddress().isAnyLocalAddress() ? " and every interface"
                : "", transport.name(), b.capacityBytes, TimeUnit.NANOSECONDS.toMillis(b.tableGraceNs), security());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The decoder that cuts the byte stream into frames and rejects out-of-bounds lengths. */
    static LengthFieldBasedFrameDecoder frameDecoder() {
        return new LengthFieldBasedFrameDecoder(FrameHeaderLayout.LENGTH_BYTES + FrameHeaderLayout.MAX_FRAME_BYTES,
                FrameHeaderLayout.LENGTH_OFFSET, FrameHeaderLayout.LENGTH_BYTES, 0, FrameHeaderLayout.LENGTH_BYTES, true);
    }

    /** The address the server listens on (its port is the real one if 0 was asked). */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    public int port() {
        return address().getPort();
    }

    /**
     * {@code tcp://host:port} of this server, as a client on this host can paste it: the bound
     * address, or the loopback address if the server listens on every interface (0.0.0.0, ::);
     * an IPv6 address in brackets.
     */
    public String uri() {
        return uri(address(), wildcardIsIpv6);
    }

    /**
     * {@code tcp://host:port} for a server bound to {@code bound}: its wildcard (the JDK may report
     * a dual-stack wildcard as :: even for 0.0.0.0, so {@code ipv6Asked} says which was asked for)
     * as the loopback address of that family, an IPv6 address in brackets without its scope.
     */
    static String uri(InetSocketAddress bound, boolean ipv6Asked) {
        InetAddress a = bound.getAddress();
        if (a.isAnyLocalAddress()) {
            a = InetAddress.ofLiteral(ipv6Asked ? "::1" : "127.0.0.1");
        }
        String host = a.getHostAddress();
        if (a instanceof Inet6Address) {
            int scope = host.indexOf('%');
            host = "[" + (scope < 0 ? host : host.substring(0, scope)) + "]";
        }
        return "tcp://" + host + ":" + bound.getPort();
    }

    /** How clients are let in: "shared secret ...", "TLS (...)", both, or "no authentication". */
    public String security() {
        if (secret == null && tls == null) {
            return "no authentication";
        }
        return (secret == null ? "" : secret + (tls == null ? "" : ", ")) + (tls == null ? "" : tls.toString());
    }

    /** The limits this server holds its connections to. */
    public ServerLimits limits() {
        return limits;
    }

    /** Bytes of the frame-memory budget held now by frames being received. */
    long frameBytesInUse() {
        return guard.frameBytesInUse();
    }

    /** The most bytes of the frame-memory budget ever held at once. */
    long frameBytesPeak() {
        return guard.frameBytesPeak();
    }

    /** Polls of the I/O threads that found nothing to do and kept spinning (tests: the spin stops at rest). */
    long idlePolls() {
        return idlePolls.sum();
    }

    /** Replies written to client connections in read batches, and the flushes that sent them (tests: coalescing). */
    long[] replyCounts() {
        return new long[] {replyFlushes.sum(), replyFrames.sum()};
    }

    /** Connections admitted and open now. */
    int openConnections() {
        return guard.openConnections();
    }

    /** Refusals of {@code cause} so far ("connections", "frame-deadline", "secret", ...), logged or not. */
    long refusals(String cause) {
        return guard.refusals().total(cause);
    }

    /** The memory this server hosts (for tests and tools in the same JVM). */
    public MemoryNode memory() {
        return memory;
    }

    /**
     * Hands the server the rpc service of a table a client in this JVM is about to open, for tables
     * whose protocol the {@link ServiceResolver} cannot build (test services). Used by a
     * {@link TcpFabric} built with {@link TcpFabric.Builder#embeddedServer}.
     */
    public void offerService(String tableName, TableSpec.ServiceFactory factory) {
        offeredServices.putIfAbsent(tableName, factory);
    }

    /** The tables clients created here, with their memory, open connections and idle time. */
    public List<Frame.TableRow> tables() {
        return tables.list();
    }

    /**
     * Drops table {@code name} now (as {@code lockfabric tables drop} does).
     *
     * @return the table as it was, or empty if there is none
     * @throws TableInUseException      if a client connection has it open and {@code force} is false
     * @throws IllegalArgumentException if another table's service created it
     */
    public Optional<Frame.TableRow> dropTable(String name, boolean force) {
        return tables.drop(name, force);
    }

    /** Inbound counts: every verb served, by kind, and rpcs. */
    public CounterSnapshot counters() {
        long[] o = new long[VerbKind.count()];
        long[] b = new long[VerbKind.count()];
        for (int i = 0; i < o.length; i++) {
            o[i] = ops.get(i);
            b[i] = bytes.get(i);
        }
        return new CounterSnapshot(o, b);
    }

    /** Live client endpoints in the directory. */
    public List<EndpointId> liveEndpoints() {
        return directory.entrySet().stream().filter(e -> e.getValue().alive()).map(Map.Entry::getKey).toList();
    }

    /** Blocks until {@link #close()} has been called and the listener is closed. */
    public void awaitClose() {
        listener.closeFuture().syncUninterruptibly();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        LOG.log(Level.INFO, "memory node on {0} shutting down ({1} connections)", address(), connections.size());
        listener.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly();
        shutdownGroups();
        memory.close();
        LOG.log(Level.INFO, "memory node stopped");
    }

    private void shutdownGroups() {
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    private void count(VerbKind kind, long payload) {
        ops.incrementAndGet(kind.ordinal());
        bytes.addAndGet(kind.ordinal(), payload);
    }

    /**
     * One client connection, shared by the endpoints its HELLOs open (of one client process), until
     * their BYEs or its close. Runs on the connection's I/O thread: its frames are served in arrival
     * order, so each endpoint's verbs execute in the order it posted them.
     */
    private final class Connection extends SimpleChannelInboundHandler<ByteBuf> {
        /** The endpoints open on this connection, by packed id; touched on the I/O thread only. */
        private final Map<Long, OpenEndpoint> endpoints = new java.util.HashMap<>();
        /** Whether a HELLO has been answered on this connection: then verbs may come. */
        private boolean greeted;
        /** Replies written in the read batch being served, not flushed yet. */
        private int unflushed;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
            if (in.readableBytes() < FrameHeaderLayout.HEADER_BYTES) {
                LOG.log(Level.WARNING, "{0}: frame of {1} bytes has no header; closing the connection", who(ctx),
                        in.readableBytes());
                ctx.close();
                return;
            }
            Frame frame;
            try {
                frame = WireCodec.decode(in);
            } catch (MalformedFrameException e) {
                LOG.log(Level.DEBUG, "{0}: {1}", who(ctx), e.getMessage());
                respond(ctx, new Frame.ErrorReply(e.requestId(), ErrorCode.MALFORMED, e.getMessage()));
                return;
            }
            if (!frame.type().isRequest()) {
                respond(ctx, new Frame.ErrorReply(frame.requestId(), ErrorCode.MALFORMED,
                        frame.type() + " is not a request to a memory node"));
                return;
            }
            if (!greeted && !(frame instanceof Frame.Hello) && !(frame instanceof Frame.Stats)
                    && !(frame instanceof Frame.ListTables) && !(frame instanceof Frame.DropTable)) {
                respond(ctx, new Frame.ErrorReply(frame.requestId(), ErrorCode.REFUSED, "say HELLO first"));
                return;
            }
            try {
                serve(ctx, frame);
            } catch (RuntimeException e) {
                // a bug or an unexpected input: refuse the request, keep serving
                LOG.log(Level.WARNING, who(ctx) + ": " + frame.type() + " failed", e);
                respond(ctx, new Frame.ErrorReply(frame.requestId(), ErrorCode.REFUSED, frame.type() + " failed: " + e));
            }
        }

        private void serve(ChannelHandlerContext ctx, Frame frame) {
            switch (frame) {
                case Frame.Hello f -> hello(ctx, f);
                case Frame.Bye f -> bye(ctx, f);
                case Frame.VerbRequest f -> verb(ctx, f);
                case Frame.BatchRequest f -> batch(ctx, f);
                case Frame.RpcRequest f -> rpc(ctx, f);
                case Frame.OpenTable f -> openTable(ctx, f);
                case Frame.Lookup f -> lookup(ctx, f);
                case Frame.Stats f -> stats(ctx, f);
                case Frame.ListTables f -> listTables(ctx, f);
                case Frame.DropTable f -> dropTable(ctx, f);
                default -> respond(ctx, new Frame.ErrorReply(frame.requestId(), ErrorCode.MALFORMED,
                        frame.type() + " is not a request to a memory node"));
            }
        }

        private void hello(ChannelHandlerContext ctx, Frame.Hello f) {
            if (connectedEndpoints.incrementAndGet() > limits.maxEndpoints()) {
                connectedEndpoints.decrementAndGet();
                String why = "the server has " + limits.maxEndpoints() + " endpoints connected, its limit (--max-endpoints)";
                guard.refusals().refuse("endpoints", "an endpoint from " + ctx.channel().remoteAddress() + ": " + why);
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.REFUSED, why));
                return;
            }
            int ordinal = nextOrdinal.getAndIncrement();
            if (ordinal > EndpointId.MAX_QUEUE) {
                connectedEndpoints.decrementAndGet();
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.REFUSED, "no endpoint ids left"));
                return;
            }
            // one node id per client process (its nonce), as a compute node's in ShiftLock's TailPtr
            int node = nodeIdsByNonce.computeIfAbsent(f.processNonce(), n -> nextNodeId.getAndIncrement())
                    & EndpointId.MAX_NODE;
            EndpointId endpoint = new EndpointId(node, ordinal);
            OpenEndpoint open = new OpenEndpoint(endpoint);
            endpoints.put(endpoint.pack(), open);
            greeted = true;
            directory.put(endpoint, new DirectoryEntry(f.listenHost(), f.listenPort(), open, ctx.channel()));
            LOG.log(Level.INFO, "endpoint {0} connected from {1}; its mailbox listens on {2}:{3,number,#}", endpoint,
                    ctx.channel().remoteAddress(), f.listenHost(), f.listenPort());
            respond(ctx, new Frame.Welcome(f.requestId(), endpoint.pack(), ordinal, 1));
        }

        private void bye(ChannelHandlerContext ctx, Frame.Bye f) {
            OpenEndpoint open = endpoints.remove(f.endpoint());
            if (open == null) {
                respond(ctx, notOpenHere(f.requestId(), f.endpoint()));
                return;
            }
            closed(open);
            LOG.log(Level.INFO, "endpoint {0} disconnected; dead in the directory", open.id);
            respond(ctx, new Frame.Results(f.requestId(), new byte[0]));
        }

        /** {@code open} is closed (BYE, or its connection closed): dead in the directory, its tables closed. */
        private void closed(OpenEndpoint open) {
            open.open = false;
            tables.closeAll(open);
            connectedEndpoints.decrementAndGet();
        }

        /** The endpoint a frame names, if it is open on this connection; else null. */
        private OpenEndpoint opened(long packed) {
            return endpoints.get(packed);
        }

        private Frame.ErrorReply notOpenHere(long requestId, long packed) {
            return new Frame.ErrorReply(requestId, ErrorCode.REFUSED, "endpoint " + describe(packed)
                    + " is not open on this connection (HELLO opens one)");
        }

        private void verb(ChannelHandlerContext ctx, Frame.VerbRequest f) {
            Verb v = f.verb();
            Object result;
            try {
                result = memory.execute(v);
            } catch (TableDroppedException e) {
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.TABLE_DROPPED, e.getMessage()));
                return;
            } catch (RemoteAccessException e) {
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.REMOTE_ACCESS, e.getMessage()));
                return;
            }
            count(v.kind(), v.payloadBytes());
            ByteBuf out = ctx.alloc().ioBuffer(FrameHeaderLayout.LENGTH_BYTES + FrameHeaderLayout.HEADER_BYTES
                    + VerbLayout.resultBytes(v));
            writeResults(ctx, out, f.requestId(), List.of(v), new Object[] {result});
        }

        private void batch(ChannelHandlerContext ctx, Frame.BatchRequest f) {
            List<Verb> verbs = f.verbs();
            long resultBytes = 0;
            for (Verb v : verbs) {
                resultBytes += VerbLayout.resultBytes(v);
            }
            if (resultBytes > FrameHeaderLayout.MAX_BODY_BYTES) {
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.REMOTE_ACCESS, "the results of a batch of "
                        + verbs.size() + " verbs (" + resultBytes + " bytes) would not fit one frame; nothing executed"));
                return;
            }
            Object[] results = new Object[verbs.size()];
            for (int i = 0; i < results.length; i++) {
                Verb v = verbs.get(i);
                try {
                    results[i] = memory.execute(v);
                } catch (RemoteAccessException | TableDroppedException e) {
                    respond(ctx, new Frame.ErrorReply(f.requestId(), e instanceof TableDroppedException
                            ? ErrorCode.TABLE_DROPPED : ErrorCode.REMOTE_ACCESS, "batch verb " + i + " of "
                            + verbs.size() + " (" + v.kind().label() + "): " + e.getMessage()
                            + "; the verbs before it took effect"));
                    return;
                }
                count(v.kind(), v.payloadBytes());
            }
            ByteBuf out = ctx.alloc().ioBuffer((int) (FrameHeaderLayout.LENGTH_BYTES + FrameHeaderLayout.HEADER_BYTES
                    + resultBytes));
            writeResults(ctx, out, f.requestId(), verbs, results);
        }

        private void writeResults(ChannelHandlerContext ctx, ByteBuf out, long requestId, List<Verb> verbs,
                                  Object[] results) {
            // a RESULTS frame built in place, without copying the results into a byte[] first
            int start = out.writerIndex();
            out.writeInt(0);
            out.writeByte(FrameType.RESULTS.code());
            out.writeLong(requestId);
            for (int i = 0; i < verbs.size(); i++) {
                VerbLayout.encodeResult(verbs.get(i), results[i], out);
            }
            out.setInt(start, out.writerIndex() - start - FrameHeaderLayout.LENGTH_BYTES);
            ctx.write(out, ctx.voidPromise()); // flushed once the read batch is served (channelReadComplete)
            unflushed++;
        }

        private void rpc(ChannelHandlerContext ctx, Frame.RpcRequest f) {
            OpenEndpoint open = opened(f.endpoint());
            if (open == null) {
                respond(ctx, notOpenHere(f.requestId(), f.endpoint()));
                return;
            }
            count(VerbKind.RPC, f.payload().length);
            Channel caller = ctx.channel();
            long requestId = f.requestId();
            memory.call(f.service(), new PendingRpc(open.id, f.payload()) {
                @Override
                protected void replied(byte[] response) {
                    Outbox.of(caller).send(new Frame.Results(requestId, response));
                }

                @Override
                protected void failed(String reason) {
                    Outbox.of(caller).send(new Frame.ErrorReply(requestId, ErrorCode.RPC_FAILED, reason));
                }
            });
        }

        private void openTable(ChannelHandlerContext ctx, Frame.OpenTable f) {
            OpenEndpoint open = opened(f.endpoint());
            if (open == null) {
                respond(ctx, notOpenHere(f.requestId(), f.endpoint()));
                return;
            }
            EndpointId endpoint = open.id;
            TableSpec spec = f.spec();
            if (spec.memoryNode() != memory.index()) {
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.REFUSED, spec + ": this server is memory node "
                        + memory.index()));
                return;
            }
            Table existing = memory.table(spec.name());
            if (existing == null && memory.tables().size() >= limits.maxTables()) {
                String why = "cannot create " + spec + ": the server holds " + limits.maxTables()
                        + " tables, its limit (--max-tables)";
                guard.refusals().refuse("tables", "endpoint " + endpoint + ": " + why);
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.REFUSED, why));
                return;
            }
            if (existing == null && f.wantsService()) {
                TableSpec.ServiceFactory factory = offeredServices.remove(spec.name());
                if (factory == null) {
                    Optional<TableSpec.ServiceFactory> resolved = resolver.resolve(spec, f.serviceOptions());
                    if (resolved.isEmpty()) {
                        respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.REFUSED, "cannot create " + spec
                                + ": it needs an rpc service, and this server cannot build one for protocol '"
                                + spec.protocol() + "' with that shape and options " + f.serviceOptions()));
                        return;
                    }
                    factory = resolved.get();
                }
                spec = spec.withService(factory);
            }
            Table table;
            try {
                table = tables.open(spec, open);
            } catch (TableMismatchException e) {
                respond(ctx, new Frame.TableMismatch(f.requestId(), memory.table(spec.name()).spec()));
                return;
            } catch (FabricException | IllegalArgumentException e) {
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.REFUSED, e.getMessage()));
                return;
            }
            if (existing == null) {
                LOG.log(Level.INFO, "endpoint {0} opened {1}", endpoint, table.spec());
            }
            respond(ctx, new Frame.TableOpened(f.requestId(), table.memoryNode(), table.address(), table.service()));
        }

        private void listTables(ChannelHandlerContext ctx, Frame.ListTables f) {
            List<Frame.TableRow> all = tables.list();
            List<Frame.TableRow> rows = all.size() <= TablesLayout.MAX_ROWS ? all : all.subList(0, TablesLayout.MAX_ROWS);
            respond(ctx, new Frame.TableList(f.requestId(), all.size(), rows));
        }

        private void dropTable(ChannelHandlerContext ctx, Frame.DropTable f) {
            Optional<Frame.TableRow> dropped;
            try {
                java.util.Set<Long> mine = java.util.Set.copyOf(f.exceptEndpoints());
                dropped = tables.drop(f.name(), f.force(), opener -> opener instanceof OpenEndpoint o
                        && mine.contains(o.id.pack()));
            } catch (TableInUseException e) {
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.TABLE_IN_USE, e.getMessage()));
                return;
            } catch (IllegalArgumentException e) {
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.REFUSED, e.getMessage()));
                return;
            }
            respond(ctx, new Frame.TableList(f.requestId(), dropped.isPresent() ? 1 : 0, dropped.stream().toList()));
        }

        private void lookup(ChannelHandlerContext ctx, Frame.Lookup f) {
            EndpointId id;
            try {
                id = EndpointId.unpack(f.endpointId());
            } catch (IllegalArgumentException e) {
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.MALFORMED, e.getMessage()));
                return;
            }
            DirectoryEntry entry = id == null ? null : directory.get(id);
            if (entry == null || !entry.alive()) {
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.PEER_UNKNOWN, "endpoint " + id
                        + (entry == null ? " is not in the directory" : " is dead")));
                return;
            }
            respond(ctx, new Frame.PeerAddress(f.requestId(), entry.host(), entry.port()));
        }

        private void stats(ChannelHandlerContext ctx, Frame.Stats f) {
            if (f.memoryNode() != memory.index()) {
                respond(ctx, new Frame.ErrorReply(f.requestId(), ErrorCode.REFUSED, "this server is memory node "
                        + memory.index() + ", not " + f.memoryNode()));
                return;
            }
            CounterSnapshot s = counters();
            respond(ctx, new Frame.StatsReply(f.requestId(), s.ops(), s.bytes()));
        }

        /** The replies of a read batch leave together: one flush (one system call) once the batch is served. */
        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (unflushed > 0) {
                replyFrames.add(unflushed);
                replyFlushes.increment();
                unflushed = 0;
            }
            ctx.flush();
        }

        /** A reply of a request of the read batch being served: written now, flushed at the batch's end. */
        private void respond(ChannelHandlerContext ctx, Frame frame) {
            ByteBuf out = ctx.alloc().ioBuffer();
            try {
                WireCodec.encode(frame, out);
            } catch (RuntimeException e) {
                out.release();
                throw e;
            }
            ctx.write(out, ctx.voidPromise());
            unflushed++;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            for (OpenEndpoint open : endpoints.values()) {
                closed(open);
            }
            if (!endpoints.isEmpty()) {
                LOG.log(Level.INFO, "connection from {0} closed: endpoints {1} disconnected; dead in the directory",
                        ctx.channel().remoteAddress(), endpoints.values().stream().map(o -> o.id.toString()).toList());
            }
            endpoints.clear();
        }

        /** A client that does not read its replies stops being read until it does: its replies are bounded. */
        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            ctx.channel().config().setAutoRead(ctx.channel().isWritable());
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof SSLException || cause.getCause() instanceof SSLException) {
                guard.refusals().refuse("tls", who(ctx) + ": " + TlsConfig.oneLine(cause) + "; closing the connection");
            } else if (cause instanceof TooLongFrameException || cause.getCause() instanceof TooLongFrameException) {
                LOG.log(Level.WARNING, "{0}: {1}; closing the connection", who(ctx), cause.getMessage());
            } else if (!(cause instanceof IOException)) {
                LOG.log(Level.WARNING, who(ctx) + ": closing the connection", cause);
            }
            ctx.close();
        }

        private String who(ChannelHandlerContext ctx) {
            return "connection" + (endpoints.isEmpty() ? "" : " of endpoints " + endpoints.values().stream()
                    .map(o -> o.id.toString()).toList()) + " from " + ctx.channel().remoteAddress();
        }
    }

    /** A connection over the limits: told why in an ERROR, then closed; what it sends is dropped. */
    private static final class Refuser extends ChannelInboundHandlerAdapter {
        private final String why;

        Refuser(String why) {
            this.why = why;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ByteBuf out = ctx.alloc().ioBuffer();
            WireCodec.encode(new Frame.ErrorReply(0, ErrorCode.REFUSED, why), out);
            ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** A packed endpoint id as the log and errors show it: the id, or the raw number if it is none. */
    private static String describe(long packed) {
        try {
            EndpointId id = EndpointId.unpack(packed);
            return id == null ? Long.toString(packed) : id.toString();
        } catch (IllegalArgumentException e) {
            return "0x" + Long.toHexString(packed);
        }
    }

    static void reply(ChannelHandlerContext ctx, Frame frame) {
        send(ctx.channel(), frame);
    }

    static void send(Channel channel, Frame frame) {
        ByteBuf out = channel.alloc().ioBuffer();
        try {
            WireCodec.encode(frame, out);
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
        channel.writeAndFlush(out);
    }

    /** Whether {@code bind} names this host only (an address that does not resolve is not). */
    static boolean isLoopback(String bind) {
        try {
            return InetAddress.getByName(bind).isLoopbackAddress();
        } catch (IOException e) {
            return false;
        }
    }

    /** Configuration of a {@link TcpMemoryNode}; validated in {@link #start()}. */
    public static final class Builder {
        private int port = DEFAULT_PORT;
        private String bind = DEFAULT_BIND;
        private long capacityBytes = MemoryNode.DEFAULT_CAPACITY_BYTES;
        private int ioThreads = defaultIoThreads();
        private long spinNs = defaultSpinNs();
        private ServiceResolver resolver = ServiceResolver.installed();
        private long tableGraceNs = DEFAULT_TABLE_GRACE_NS;
        private ServerLimits limits = ServerLimits.DEFAULTS;
        private SharedSecret secret;
        private TlsConfig tls;
        private boolean insecure;

        /** TCP port; 0 picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Address to bind (default loopback: {@value TcpMemoryNode#DEFAULT_BIND}). */
        public Builder bind(String address) {
            this.bind = address;
            return this;
        }

        public Builder capacityBytes(long bytes) {
            this.capacityBytes = bytes;
            return this;
        }

        /** Threads serving connections, in [1, 64] (default {@link TcpMemoryNode#defaultIoThreads()}). */
        public Builder ioThreads(int threads) {
            this.ioThreads = threads;
            return this;
        }

        /**
         * How long an I/O thread keeps polling its connections after its last request before it
         * sleeps, in [0, {@value TcpMemoryNode#MAX_SPIN_NS}] ns (default {@link TcpMemoryNode#defaultSpinNs()}):
         * under load it never sleeps, so no request waits for the thread to be woken; at rest it
         * costs nothing. 0 sleeps at once.
         */
        public Builder spinNs(long ns) {
            this.spinNs = ns;
            return this;
        }

        /** How tables' rpc services are built from what clients send (default {@link ServiceResolver.installed()}). */
        public Builder serviceResolver(ServiceResolver resolver) {
            this.resolver = resolver;
            return this;
        }

        /**
         * How long a table is kept after the last client connection that had it open closes
         * (default {@link TcpMemoryNode#DEFAULT_TABLE_GRACE_NS}); 0 drops it at once.
         */
        public Builder tableGraceNs(long ns) {
            this.tableGraceNs = ns;
            return this;
        }

        /** The limits connections are held to (default {@link ServerLimits#DEFAULTS}). */
        public Builder limits(ServerLimits limits) {
            this.limits = limits;
            return this;
        }

        /** Clients must prove this secret when they connect (default: none, anyone may connect). */
        public Builder secret(SharedSecret secret) {
            this.secret = secret;
            return this;
        }

        /** Connections run TLS (default: plain TCP). */
        public Builder tls(TlsConfig tls) {
            this.tls = tls;
            return this;
        }

        /**
         * Lets the server listen on an address other hosts can reach without a secret or TLS
         * (default false: {@link #start()} refuses that).
         */
        public Builder insecure(boolean insecure) {
            this.insecure = insecure;
            return this;
        }

        public TcpMemoryNode start() {
            if (port < 0 || port > 0xFFFF) {
                throw new IllegalArgumentException("port must be in [0, 65535], got " + port);
            }
            if (bind == null || bind.isBlank()) {
                throw new IllegalArgumentException("bind address must not be blank");
            }
            if (capacityBytes <= 0) {
                throw new IllegalArgumentException("memory must be positive, got " + capacityBytes);
            }
            if (ioThreads < 1 || ioThreads > 64) {
                throw new IllegalArgumentException("io threads must be in [1, 64], got " + ioThreads);
            }
            if (spinNs < 0 || spinNs > MAX_SPIN_NS) {
                throw new IllegalArgumentException("spin must be in [0, " + MAX_SPIN_NS + "] ns, got " + spinNs);
            }
            if (tableGraceNs < 0) {
                throw new IllegalArgumentException("table grace must not be negative, got " + tableGraceNs + " ns");
            }
            if (resolver == null) {
                throw new IllegalArgumentException("service resolver must not be null");
            }
            if (limits == null) {
                throw new IllegalArgumentException("limits must not be null");
            }
            if (secret == null && tls == null && !insecure && !isLoopback(bind)) {
                throw new IllegalArgumentException("refusing to listen on " + bind + ", which other hosts may reach, "
                        + "without authentication: give a shared secret (--secret-file) or TLS (--tls-cert and --tls-key), "
                        + "or --insecure to let anyone who reaches the port read and write every lock");
            }
            return new TcpMemoryNode(this);
        }
    }
}
