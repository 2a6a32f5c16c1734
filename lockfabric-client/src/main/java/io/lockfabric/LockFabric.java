package io.lockfabric;

import io.lockfabric.client.EndpointPool;
import io.lockfabric.fabric.ClientRuntime;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricAddress;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.FabricTiming;
import io.lockfabric.fabric.Fabrics;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.protocols.RangeLockProtocols;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The entry point of the client API: a connection to a lock fabric, its pool of endpoints, and the
 * named lock spaces and range spaces on its memory node.
 *
 * <pre>{@code
 * try (LockFabric lf = LockFabric.open("tcp://127.0.0.1:7420")) {   // or "local"
 *     LockSpace orders = lf.lockSpace("orders");
 *     try (Held h = orders.acquire("order:42")) {
 *         store.write(value, h.fencingToken());
 *     }
 * }
 * }</pre>
 *
 * <p><b>Fabrics.</b> {@link #open} takes a fabric address as {@code Fabrics.open} does:
 * {@code local} (the memory node in this JVM: locks among this process's threads) or
 * {@code tcp://host:port} (a {@code lockfabric serve} memory node: every process that opens a space
 * of the same name on it contends for the same locks) or {@code shm:/PATH} (a memory node in a file
 * every process on the host maps; protocols with an rpc service, CITRON's range spaces among them,
 * need a {@code lockfabric serve --shm PATH} process). The simulator runs its clients in virtual
 * time, inside {@code Fabric.spawn}: {@link #builder(Fabric)} runs the API on a simulated fabric the
 * caller configured, its processes being the application's threads.
 *
 * <p><b>The pool.</b> Any number of application threads, virtual threads included, share a bounded
 * pool of endpoints ({@link Builder#poolSize}), made when the fabric opens. The pool is a fair
 * free-list, not threads: a request checks an endpoint out, and the protocol runs on the caller's
 * own thread. A request keeps its endpoint (and that endpoint's lock client for the space) from the
 * acquisition to the release, as handover protocols require; so the pool's size bounds the locks
 * this process waits for or holds at once. When every endpoint is out, requests wait in one FIFO
 * queue, parked (or, asynchronous ones, as a callback without a thread): a thread that holds as
 * many locks as the pool has endpoints and asks for one more waits for ever. Default size:
 * {@link #DEFAULT_IN_PROCESS_POOL_SIZE} on an in-process fabric (its waits spin and yield on this
 * machine's cores: more endpoints than that would only take turns on the CPUs), and
 * {@link #DEFAULT_REMOTE_POOL_SIZE} on a remote one (each endpoint is one TCP connection; waits
 * there are mostly round trips, so more requests in flight hide them).
 *
 * <p><b>Threads.</b> {@code acquire}, {@code Lock.lock()} and range {@code acquire} run the
 * protocol's acquisition on the calling thread, and {@link Held#close()} runs the release on the
 * closing thread: no thread hand-off. An interrupt of that thread never cuts an acquisition short
 * (the protocol's waits ignore it until the lock is granted; the interrupt status is then set
 * again). Requests the caller may give up on ({@code tryAcquire} with a wait, {@code tryLock},
 * {@code lockInterruptibly}, {@code acquireAsync}) queue for an endpoint without a thread, and a
 * virtual thread runs the acquisition once they have one; a caller that gives up abandons the
 * request, which is released at once when granted. One daemon timer thread watches leases
 * (one timer for all holds, armed for the next lease to run out); auto-releases run on a virtual
 * thread each. All of these waits, timers and tasks go through the fabric's {@code ClientRuntime},
 * which on the simulator makes them simulated processes and waits in virtual time. What the API costs over the lock SPI ({@code lockfabric api-bench}, 16 threads,
 * 1000 keys, Zipf 0.99, on a 2-core machine): about 1 us per lock, so 0.78 of the SPI's
 * rate on local (dslr) and 0.92 (median of rounds from 0.69 to 1.73) on tcp (declock-tf); the README's "What the API
 * costs" has the rounds.
 *
 * <p>Thread-safe. Closing releases every hold still open and closes the fabric.
 */
public final class LockFabric implements AutoCloseable {
    /** Default pool size on an in-process fabric: twice the available processors, at least 4. */
    public static final int DEFAULT_IN_PROCESS_POOL_SIZE = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    /** Default pool size on a remote fabric (tcp). */
    public static final int DEFAULT_REMOTE_POOL_SIZE = 16;
    /**
     * How often the endpoints no one has checked out answer what other clients wait for from them
     * ({@link io.lockfabric.lock.LockClient#answersWhileIdle}: DecLock's reset signals), while this
     * process takes locks. Without it a pooled endpoint idle since its last use never answered, and
     * every reset of a lock waited a whole lease for it (1 s with the spaces' default lease).
     */
    static final long IDLE_ANSWER_NS = TimeUnit.MILLISECONDS.toNanos(20);
    /**
     * The longest period of those answers: after a period in which no space of this process
     * acquired anything, the period doubles up to this; the next acquisition brings it back to
     * {@link #IDLE_ANSWER_NS}. A process at rest wakes ten times a second for it, and a reset
     * elsewhere waits at most about this for its answer. (A process that opened a space and takes no
     * locks, as a comparison's parent that serves the shm file, is a member all the same.)
     */
    static final long IDLE_ANSWER_MAX_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The shortest wait of a try-acquire: a request must reach the memory node and come back. */
    public static final long MIN_TRY_LOCK_GRACE_NS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * The default lock protocol on an in-process fabric: {@code dslr}. Among the registered
     * reader-writer protocols that recover from crashed clients (dslr, shiftlock, cql, declock-tf),
     * the fastest on the local fabric, measured with {@code ./lockfabric bench --protocols
     * cas-rw,dslr,shiftlock,cql,declock-tf,rpc --clients 16 --locks 1000 --zipf 0.99 --duration 3s}
     * (50% reads) on a busy 2-core machine: dslr 100.4 Kops/s, shiftlock 55.3, cql 10.1, declock-tf
     * 4.0 (and, not recovering: cas-rw 136.4, rpc 164.7). Its fencing tokens are not strict (they
     * restart at a counter reset): a space that hands tokens to a store should name {@code cql} or
     * {@code declock-tf}. Its lease is the space's ({@link SpaceOptions#DEFAULT_LEASE}, 1 s), not the
     * protocol's 10 ms: with 10 ms, a hold of 20 ms (a thread descheduled on a busy machine) lets
     * waiters take the lock.
     */
    public static final String DEFAULT_IN_PROCESS_PROTOCOL = "dslr";
    /**
     * The default lock protocol on a remote fabric (tcp): {@code declock-tf}. Among the recovering
     * reader-writer protocols the fastest over loopback TCP, same benchmark against
     * {@code ./lockfabric serve --port 0} on the same machine, two runs: declock-tf 2.9 / 6.9 Kops/s,
     * shiftlock 2.2 / 2.6, cql 1.1 / 2.6, dslr 0.9 / 2.4 (not recovering: cas-rw 1.0 / 1.5, rpc 2.4 /
     * 7.6). DecLock hands a lock over between the endpoints of one process (one compute node)
     * without the memory node, which is what a pool of endpoints in one process is; its tokens are
     * strict. Its queue holds one entry per compute node ({@code capacity}, default 8): with more
     * processes waiting for one lock it resets, correctly but slowly; raise {@code capacity}.
     */
    public static final String DEFAULT_REMOTE_PROTOCOL = "declock-tf";
    /** The protocols' option that sets their lease, which {@link SpaceOptions#DEFAULT_LEASE} gives a default. */
    static final String LEASE_OPTION = "lease-ns";
    /** The default range protocol: CITRON. */
    public static final String DEFAULT_RANGE_PROTOCOL = "citron";

    private final String address;
    private final Fabric fabric;
    private final boolean ownsFabric;
    private final ClientRuntime runtime;
    /** {@link #observerOnSystemClock()}: the runtime is in real time. */
    private final boolean observerOnSystemClock;
    private final EndpointPool pool;
    private final ClientRuntime.Timers timers;
    private final long tryLockGraceNs;
    private final long slowAcquireNs;
    private final int localHandovers;
    private final Map<String, SpaceEntry> spaces = new HashMap<>();
    /** The requests not ended yet (a sweep visits them in the order of their sequence numbers). */
    private final LiveHolds live = new LiveHolds();
    /** Sessions that have an endpoint checked out (hold locks), for {@link #close} to release. */
    private final java.util.Set<EndpointSession> sessions = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicLong sequence = new java.util.concurrent.atomic.AtomicLong();
    /** When the armed lease sweep runs ({@link ClientRuntime#nanoTime}), {@link Long#MAX_VALUE} if none is armed. */
    private final java.util.concurrent.atomic.AtomicLong sweepAt = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);
    private volatile boolean closed;
    /** Whether the idle endpoints' answers ({@link #answerWhileIdle}) are scheduled. */
    private final java.util.concurrent.atomic.AtomicBoolean answeringWhileIdle = new java.util.concurrent.atomic.AtomicBoolean();
    /** The period of those answers now, and the acquisitions counted at the last: their task's only (one at a time). */
    private long idleAnswerNs = IDLE_ANSWER_NS;
    private long acquisitionsAtIdleAnswer = -1;

    /** A space, open or being opened, and the options it is opened with. */
    private record SpaceEntry(CompletableFuture<SpaceCore> space, SpaceOptions options, boolean range) {
    }

    private LockFabric(Builder b, Fabric fabric, boolean ownsFabric) {
        this.address = b.address;
        this.fabric = fabric;
        this.ownsFabric = ownsFabric;
        this.runtime = fabric.clientRuntime();
        this.observerOnSystemClock = !runtime.virtualTime();
        FabricTiming timing = fabric.timing();
        this.tryLockGraceNs = b.tryLockGraceNs > 0 ? b.tryLockGraceNs
                : Math.max(MIN_TRY_LOCK_GRACE_NS, timing.scaled(50 * FabricTiming.RDMA.roundTripNs(), 1));
        this.slowAcquireNs = 4 * timing.roundTripNs();
        this.localHandovers = b.localHandovers;
        int size = b.poolSize > 0 ? b.poolSize
                : fabric.isInProcess() ? DEFAULT_IN_PROCESS_POOL_SIZE : DEFAULT_REMOTE_POOL_SIZE;
        this.pool = new EndpointPool(fabric, size);
        this.timers = runtime.newTimers("lockfabric-leases");
    }

    /**
     * Opens the fabric at {@code address} with the defaults.
     *
     * @throws IllegalArgumentException    for an address that is not one, or the {@code sim} fabric
     * @throws FabricUnreachableException if no memory node answers there
     */
    public static LockFabric open(String address) {
        return builder(address).open();
    }

    /** A builder for the fabric at {@code address}, to set the pool's size and the try-lock grace. */
    public static Builder builder(String address) {
        return new Builder(Objects.requireNonNull(address, "address"), null);
    }

    /**
     * A builder over a fabric the caller has opened and keeps: closing the {@code LockFabric} does
     * not close it. This is how the client API runs on the simulator, whose fabric a test configures
     * (topology, faults, seed) and whose simulated processes ({@code Fabric.spawn}) are the
     * application's threads: every wait of the API is then a wait in virtual time, and a run is a
     * function of its seed. There, open spaces outside the simulation or inside a process, call the
     * API inside processes, and compose the futures of {@code acquireAsync} rather than block on
     * them (a thread blocked in {@code get} would stop the simulation); {@code Thread.interrupt} does
     * not reach a simulated process's waits.
     */
    public static Builder builder(Fabric fabric) {
        Objects.requireNonNull(fabric, "fabric");
        return new Builder(fabric.name(), fabric);
    }

    /** The address opened. */
    public String address() {
        return address;
    }

    /** The number of endpoints in the pool. */
    public int poolSize() {
        return pool.size();
    }

    /**
     * Runs {@code body} on an endpoint of the pool, checked out for the call, with the client
     * {@code open} made on that endpoint for {@code owner} (once per endpoint, kept until the fabric
     * closes, closed with it if {@link AutoCloseable}). This is how an application that keeps its
     * data on the memory node ({@code io.lockfabric.apps}: the object store, the B+-tree) issues its
     * data verbs and takes its locks on one endpoint, as the papers' clients do on one queue pair.
     * Waits for an endpoint as {@code acquire} does; {@code body} runs on the calling thread with
     * interrupts deferred, and must not keep the endpoint past its return.
     *
     * @throws FabricUnreachableException if the endpoint lost its memory node (before or during
     *                                    {@code body}); the next call gets a new connection. Other
     *                                    fabric errors ({@code TableMismatchException}, a refused
     *                                    verb) reach the caller as they are
     * @throws LockFabricException        if this {@code LockFabric} is closed
     */
    public <C, T> T withEndpoint(Object owner, Class<C> type, Function<Endpoint, C> open,
                                 Function<? super C, ? extends T> body) {
        Objects.requireNonNull(owner, "owner");
        EndpointPool.Worker w = checkout();
        try {
            FabricException lost = w.memoryNodeLost();
            if (lost != null) {
                throw new FabricUnreachableException(address, lost);
            }
            return w.runProtocol(() -> body.apply(w.client(owner, type, open)));
        } catch (FabricException e) {
            FabricException lost = w.memoryNodeLost();
            if (lost != null) {
                throw new FabricUnreachableException(address, lost);
            }
            throw e; // not a lost connection: a table of another shape, a refused verb, the body's own error
        } finally {
            checkin(w);
        }
    }

    /**
     * The lock protocol a space gets when its options name none: {@link #DEFAULT_IN_PROCESS_PROTOCOL}
     * on an in-process fabric, {@link #DEFAULT_REMOTE_PROTOCOL} on a remote one (their javadoc gives
     * the measurements behind the choice).
     */
    public String defaultProtocol() {
        return fabric.isInProcess() ? DEFAULT_IN_PROCESS_PROTOCOL : DEFAULT_REMOTE_PROTOCOL;
    }

    /** {@link #lockSpace(String, SpaceOptions)} with {@link SpaceOptions#DEFAULTS}. */
    public LockSpace lockSpace(String name) {
        return lockSpace(name, SpaceOptions.DEFAULTS);
    }

    /**
     * The lock space {@code name}, made on the memory node if it does not exist. Opening a name this
     * {@code LockFabric} has open again with the same options gives the same space.
     *
     * @throws IllegalArgumentException for an unknown protocol or option (the registry's message), or
     *                                  a protocol this fabric cannot run
     * @throws SpaceMismatchException   if the space exists with other options (here, or on the
     *                                  memory node with another shape)
     */
    public LockSpace lockSpace(String name, SpaceOptions options) {
        checkName(name);
        SpaceOptions resolved = options.protocol() == null ? options.withProtocol(defaultProtocol()) : options;
        LockProtocol protocol = LockProtocols.byName(resolved.protocol());
        LockOptions lockOptions = parse(protocol.name(), resolved.options(), protocol.options()).validate(protocol.name(), protocol.options());
        return (LockSpace) open(name, resolved, false,
                () -> new PointSpace(this, name, protocol, lockOptions, resolved.slots()));
    }

    /** {@link #rangeSpace(String, SpaceOptions)} with {@link SpaceOptions#DEFAULTS} (CITRON). */
    public RangeSpace rangeSpace(String name) {
        return rangeSpace(name, SpaceOptions.DEFAULTS);
    }

    /**
     * The range space {@code name}, made on the memory node if it does not exist; its protocol is
     * {@link #DEFAULT_RANGE_PROTOCOL} unless {@code options} name another range protocol ({@link
     * SpaceOptions#slots()} does not apply).
     *
     * @throws IllegalArgumentException for an unknown range protocol or option
     * @throws SpaceMismatchException   if the space exists with other options
     */
    public RangeSpace rangeSpace(String name, SpaceOptions options) {
        checkName(name);
        SpaceOptions resolved = options.protocol() == null ? options.withProtocol(DEFAULT_RANGE_PROTOCOL) : options;
        RangeLockProtocol protocol = RangeLockProtocols.byName(resolved.protocol());
        LockOptions lockOptions = parse(protocol.name(), resolved.options(), protocol.options()).validate(protocol.name(), protocol.options());
        return (RangeSpace) open(name, resolved, true, () -> new PooledRangeSpace(this, name, protocol, lockOptions));
    }

    private SpaceCore open(String name, SpaceOptions resolved, boolean range, java.util.function.Supplier<SpaceCore> make) {
        String id = (range ? "range:" : "lock:") + name;
        SpaceEntry e;
        boolean mine = false;
        synchronized (spaces) {
            checkOpen();
            e = spaces.get(id);
            if (e == null) {
                e = new SpaceEntry(new CompletableFuture<>(), resolved, range);
                spaces.put(id, e);
                mine = true;
            }
        }
        if (!e.options().equals(resolved)) {
            throw new SpaceMismatchException((range ? "range" : "lock") + " space '" + name + "' is open with "
                    + e.options() + ", not " + resolved, null);
        }
        if (mine) {
            // opened outside the monitor: opening takes round trips, and on the simulator it blocks in virtual time
            try {
                SpaceCore space = make.get();
                space.openNow();
                e.space().complete(space);
            } catch (RuntimeException | Error failure) {
                synchronized (spaces) {
                    spaces.remove(id, e);
                }
                e.space().completeExceptionally(failure);
                throw failure;
            }
        }
        return awaitOpen(e.space());
    }

    /** The space another caller is opening, once it is open; its failure is this caller's too. */
    private SpaceCore awaitOpen(CompletableFuture<SpaceCore> opening) {
        boolean interrupted = false;
        ClientRuntime.Parker parker = opening.isDone() ? null : runtime.parker();
        if (parker != null) {
            opening.whenComplete((s, e) -> parker.unpark());
        }
        try {
            while (!opening.isDone()) {
                parker.park();
                interrupted |= Thread.interrupted();
            }
            return opening.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Drops the lock space {@code name} on the memory node: its table goes, with every lock in it,
     * and its memory is freed (a {@code serve} memory node also drops a space nobody has open after
     * its grace, {@code serve --table-grace}). The space object this {@code LockFabric} had for it
     * refuses requests from now on; {@link #lockSpace} makes a new, empty space of that name.
     *
     * @return whether the space existed on the memory node
     * @throws IllegalStateException          if this {@code LockFabric} has requests of the space in
     *                                        flight (waiting or held): release them first
     * @throws SpaceInUseException            if another client (another process, another
     *                                        {@code LockFabric}) has the space open; nothing changed
     * @throws UnsupportedOperationException on a fabric that cannot drop tables (the simulator)
     */
    public boolean dropSpace(String name) {
        return drop(name, false);
    }

    /** {@link #dropSpace} for the range space {@code name}. */
    public boolean dropRangeSpace(String name) {
        return drop(name, true);
    }

    private boolean drop(String name, boolean range) {
        checkName(name);
        String id = (range ? "range:" : "lock:") + name;
        String table = (range ? PooledRangeSpace.TABLE_PREFIX : PointSpace.TABLE_PREFIX) + name;
        SpaceEntry entry;
        SpaceCore space = null;
        synchronized (spaces) {
            checkOpen();
            entry = spaces.get(id);
            if (entry != null) {
                space = entry.space().getNow(null);
                if (space == null) {
                    throw new IllegalStateException("space '" + name + "' is being opened by another thread");
                }
                long inFlight = space.tryMarkDropped();
                if (inFlight > 0) {
                    throw new IllegalStateException("space '" + name + "' has " + inFlight + " request(s) of this "
                            + "LockFabric waiting or held: release them before dropping it");
                }
                spaces.remove(id);
            }
        }
        try {
            long bytes = fabric.dropTable(0, table, pool.endpoints());
            if (space != null) {
                pool.forget(space);
            }
            return bytes > 0;
        } catch (RuntimeException e) {
            if (space != null) {
                synchronized (spaces) {
                    if (spaces.putIfAbsent(id, entry) == null) {
                        space.unmarkDropped();
                    }
                }
            }
            if (e instanceof io.lockfabric.fabric.TableInUseException) {
                throw new SpaceInUseException((range ? "range" : "lock") + " space '" + name + "' was not dropped: "
                        + e.getMessage(), e);
            }
            if (e instanceof FabricException) {
                throw new LockFabricException("cannot drop space '" + name + "' on " + address + ": " + e.getMessage(), e);
            }
            throw e;
        }
    }

    private static void checkName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a space needs a name that is not blank");
        }
    }

    /**
     * Protocol options as {@code name=value}, a {@code protocol.} prefix dropped, and
     * {@link SpaceOptions#DEFAULT_LEASE} for a protocol with a {@code lease-ns} option not given.
     */
    private static LockOptions parse(String protocol, List<String> pairs, List<LockOption> known) {
        List<String> plain = new ArrayList<>();
        if (known.stream().anyMatch(o -> o.name().equals(LEASE_OPTION))) {
            plain.add(LEASE_OPTION + "=" + SpaceOptions.DEFAULT_LEASE.toNanos() + "ns");
        }
        for (String p : pairs) {
            plain.add(p.startsWith(protocol + ".") ? p.substring(protocol.length() + 1) : p);
        }
        return LockOptions.parse(plain);
    }

    // ---- for the spaces

    FabricTiming timing() {
        return fabric.timing();
    }

    ClientRuntime runtime() {
        return runtime;
    }

    long nowNs() {
        return fabric.observerNanoTime();
    }

    /** Whether {@link #nowNs} is {@link System#nanoTime}: on a real-time fabric ({@link Fabric#observerNanoTime}). */
    boolean observerOnSystemClock() {
        return observerOnSystemClock;
    }

    long tryLockGraceNs() {
        return tryLockGraceNs;
    }

    long slowAcquireNs() {
        return slowAcquireNs;
    }

    /**
     * How many holders of this process in a row may share one grant of a slot ({@link
     * Builder#localHandovers}); 0: every acquisition asks the memory node.
     */
    public int localHandovers() {
        return localHandovers;
    }

    boolean hasFreeEndpoint() {
        return pool.hasFreeEndpoint();
    }

    /** A fresh number in this fabric's order of requests and sessions (the lease sweep's order). */
    long nextSequence() {
        return sequence.incrementAndGet();
    }

    /**
     * Tracks a request until it ends, so that {@link #close} can end it. Its sequence number, the
     * order in which a sweep reports and a close ends, is the next of {@link #sequence} in virtual
     * time, where the simulator's runs depend on it; in real time it is the request's submission
     * time, read already: the order of the requests is the same, and no line that every acquisition
     * writes passes between processors (the counter took 5% of the samples of a client JVM with two
     * carrier threads).
     */
    void track(PooledHold h) {
        h.sequence = runtime.virtualTime() ? sequence.incrementAndGet() : h.submittedNs();
        live.add(h);
        if (closed) { // close took its snapshot of the live requests before this one was in it
            live.remove(h);
            throw new LockFabricException("the LockFabric of " + address + " is closed");
        }
    }

    /** An endpoint for the calling thread (parks for its turn, uninterruptibly). */
    EndpointPool.Worker checkout() {
        checkOpen();
        try {
            return pool.checkout();
        } catch (IllegalStateException e) {
            throw closedException(e);
        }
    }

    /** An endpoint for a callback, when it is the request's turn; {@code failed} if the pool closes first. */
    void checkoutAsync(java.util.function.Consumer<EndpointPool.Worker> granted,
                       java.util.function.Consumer<RuntimeException> failed) {
        checkOpen();
        try {
            pool.checkoutAsync(granted, failed);
        } catch (IllegalStateException e) {
            throw closedException(e);
        }
    }

    /** Makes an endpoint handed to a callback ready on the thread that will use it. */
    EndpointPool.Worker ready(EndpointPool.Worker w) {
        return pool.ready(w);
    }

    void checkin(EndpointPool.Worker w) {
        pool.checkin(w);
    }

    /** Runs {@code action} on each endpoint not checked out now ({@link EndpointPool#forEachIdle}). */
    void forEachIdleEndpoint(java.util.function.Consumer<EndpointPool.Worker> action) {
        pool.forEachIdle(action);
    }

    private LockFabricException closedException(IllegalStateException e) {
        return new LockFabricException("the LockFabric of " + address + " is closed", e);
    }

    void untrack(PooledHold h) {
        live.remove(h);
    }

    /**
     * A space made a client that answers while idle ({@link io.lockfabric.lock.LockClient#answersWhileIdle}):
     * from now on, the endpoints no one has checked out answer every {@link #IDLE_ANSWER_NS} or so.
     * Not on virtual time: there the application's processes end the simulation, and a task that
     * schedules itself for ever would keep it from ending.
     */
    void answerWhileIdle() {
        if (!runtime.virtualTime() && answeringWhileIdle.compareAndSet(false, true)) { // once per client made, not per request
            scheduleIdleAnswers(IDLE_ANSWER_NS);
        }
    }

    private void scheduleIdleAnswers(long delayNs) {
        try {
            // a thread of control of its own: an answer is a send, which may wait for room in a full mailbox,
            // and the timer thread runs the lease sweep
            timers.schedule(() -> runtime.start("lockfabric-idle-answers", this::answerOnIdleEndpoints), delayNs);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // closed: nothing more to answer
        }
    }

    /**
     * One round of {@link #answerWhileIdle}: every idle endpoint's clients answer; then the next
     * round is scheduled, whatever this one met, until the {@code LockFabric} closes.
     */
    private void answerOnIdleEndpoints() {
        if (closed) {
            return;
        }
        try {
            List<SpaceCore> open = new ArrayList<>();
            synchronized (spaces) {
                for (SpaceEntry e : spaces.values()) {
                    if (e.space().isDone() && !e.space().isCompletedExceptionally()) {
                        open.add(e.space().join());
                    }
                }
            }
            long acquisitions = 0;
            for (SpaceCore s : open) {
                acquisitions += s.acquisitionCount();
            }
            pool.forEachIdle(w -> {
                for (SpaceCore s : open) {
                    s.answerOn(w); // each client's failure stays its own
                }
            });
            idleAnswerNs = acquisitions != acquisitionsAtIdleAnswer ? IDLE_ANSWER_NS : Math.min(2 * idleAnswerNs, IDLE_ANSWER_MAX_NS);
            acquisitionsAtIdleAnswer = acquisitions;
        } finally {
            if (!closed) {
                scheduleIdleAnswers(idleAnswerNs);
            }
        }
    }

    /** A session checked out an endpoint: {@link #close} releases what it holds. */
    void sessionHolds(EndpointSession s) {
        sessions.add(s);
    }

    /** A session gave its endpoint back. */
    void sessionIdle(EndpointSession s) {
        sessions.remove(s);
    }

    /**
     * Makes sure the lease sweep runs within {@code delayNs}: one timer for all holds, armed only
     * when a lease would run out before the sweep already armed (under load, a read of one field).
     */
    void watchLease(long delayNs) {
        long at = runtime.nanoTime() + delayNs;
        long armed = sweepAt.get();
        while (at < armed) {
            if (sweepAt.compareAndSet(armed, at)) {
                try {
                    timers.schedule(this::sweepLeases, delayNs);
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    // closing: its holds are released without a loss being reported
                }
                return;
            }
            armed = sweepAt.get();
        }
    }

    /**
     * Reports the holds whose lease ran out (the requests' and the sessions' with an endpoint), and
     * arms the sweep for the next lease to run out.
     */
    private void sweepLeases() {
        sweepAt.set(Long.MAX_VALUE);
        long next = Long.MAX_VALUE;
        for (PooledHold h : live.snapshot()) { // the order of the reports is the order of the requests
            long left = h.checkLease(); // -1 for a hold that ended since: it is closed, or never delivered
            if (left >= 0 && left < next) {
                next = left;
            }
        }
        List<EndpointSession> holding = new ArrayList<>(sessions);
        holding.sort(java.util.Comparator.comparingLong(s -> s.sequence));
        for (EndpointSession s : holding) {
            long left = s.checkLeases();
            if (left >= 0 && left < next) {
                next = left;
            }
        }
        if (next != Long.MAX_VALUE && !closed) {
            watchLease(next);
        }
    }

    ClientRuntime.Cancellable schedule(Runnable r, long delayNs) {
        return timers.schedule(r, delayNs);
    }

    private void checkOpen() {
        if (closed) {
            throw new LockFabricException("the LockFabric of " + address + " is closed");
        }
    }

    /**
     * Releases every hold still open (they become invalid, without a loss being reported), and every
     * lock of a {@link LockSession} that is not in the middle of an acquisition or release on its
     * thread (such a session keeps its endpoint until the pool's grace runs out), gives up the
     * requests still waiting (their callers get a {@link LockFabricException}), stops the pool and
     * closes the fabric. Idempotent.
     */
    @Override
    public void close() {
        synchronized (spaces) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // Every request still waiting fails before any grant is released: a release first could
        // pass the lock on (the memory node's queue, or a local handover) to a request queued
        // behind it, and that caller would be granted after close began.
        List<PooledHold> grantedBefore = new ArrayList<>();
        for (PooledHold h : live.snapshot()) {
            if (!h.granted.completeExceptionally(new LockFabricException("the LockFabric of " + address + " was closed"))) {
                grantedBefore.add(h);
            }
        }
        for (PooledHold h : grantedBefore) {
            runtime.start("lockfabric-close", h::releaseInBackground);
        }
        for (EndpointSession session : List.copyOf(sessions)) {
            runtime.start("lockfabric-close", session::closeByFabric);
        }
        pool.close();
        timers.shutdown();
        if (ownsFabric) {
            fabric.close();
        }
    }

    @Override
    public String toString() {
        return "LockFabric[" + address + ", " + pool.size() + " endpoints]";
    }

    /** Options of a {@link LockFabric}. Not thread-safe. */
    public static final class Builder {
        private final String address;
        /** The caller's fabric, or null to open {@link #address}. */
        private final Fabric given;
        private int poolSize;
        private long tryLockGraceNs;
        private int localHandovers;

        private Builder(String address, Fabric given) {
            this.address = address;
            this.given = given;
        }

        /**
         * The number of endpoints application threads share (default: {@link
         * #DEFAULT_IN_PROCESS_POOL_SIZE} in process, {@link #DEFAULT_REMOTE_POOL_SIZE} remote).
         *
         * @throws IllegalArgumentException if {@code n < 1}
         */
        public Builder poolSize(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("the pool needs at least one endpoint, got " + n);
            }
            this.poolSize = n;
            return this;
        }

        /**
         * The shortest wait of a try-acquire ({@code Lock.tryLock()}, a {@code tryAcquire} with a
         * shorter wait): a protocol cannot tell whether a lock is free without asking the memory node,
         * so a try waits this long for the answer before it gives up. Default: 50 round trips and one
         * stall of the fabric ({@code FabricTiming}), at least 1 ms (local 1 ms, tcp 4 ms).
         */
        public Builder tryLockGrace(Duration grace) {
            long ns = grace.toNanos();
            if (ns <= 0) {
                throw new IllegalArgumentException("a try-lock grace must be positive, got " + grace);
            }
            this.tryLockGraceNs = ns;
            return this;
        }

        /**
         * Lets a released exclusive lock pass straight to another thread of this process that waits
         * for the same slot, at most {@code n} times in a row, before it goes back to the memory node
         * (default 0: never). A cohort lock: the threads of one process that want a hot key queue in
         * the process, behind the one request of theirs that the memory node sees, and the lock moves
         * among them without a round trip; after {@code n} passes it is released to the memory node,
         * so other processes wait at most {@code n} critical sections longer than they would.
         *
         * <p>Only exclusive {@link LockSpace#acquire(String, io.lockfabric.lock.Mode) acquire} calls
         * (and {@code Lock.lock()} of the lock views) of lock spaces queue so; a try, an asynchronous
         * request, a shared one, a session's or a range's asks the memory node as before. A pass keeps
         * the grant's endpoint, fencing token and lease: the holders that share a grant share its
         * token (so {@link LockSpace#strictFencing()} is false), and its lease counts from the first
         * acquisition, so a grant with less than half its lease left is released, not passed.
         *
         * <p>It pays where a round trip to the memory node costs more than waking a waiting thread
         * (tcp); on {@code local} and {@code shm} with platform threads it can cost instead.
         *
         * @throws IllegalArgumentException if {@code n < 0}
         */
        public Builder localHandovers(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("local handovers cannot be negative, got " + n);
            }
            this.localHandovers = n;
            return this;
        }

        /**
         * Opens the fabric and starts the pool.
         *
         * @throws IllegalArgumentException    for an address that is not one, or the {@code sim} fabric
         * @throws FabricUnreachableException if no memory node answers there
         */
        public LockFabric open() {
            if (given != null) {
                return new LockFabric(this, given, false);
            }
            if (FabricAddress.parse(address).scheme().equals("sim")) {
                throw new IllegalArgumentException("LockFabric.open takes a fabric that runs in real time (local, "
                        + "tcp://host:port), not " + address + ": the simulator runs its clients in virtual time, "
                        + "inside Fabric.spawn; open the SimFabric yourself and pass it to LockFabric.builder(Fabric)");
            }
            Fabric fabric;
            try {
                fabric = Fabrics.open(address);
            } catch (FabricException e) {
                throw new FabricUnreachableException(address, e);
            }
            try {
                return new LockFabric(this, fabric, true);
            } catch (FabricException e) {
                fabric.close();
                throw new FabricUnreachableException(address, e);
            } catch (RuntimeException e) {
                fabric.close();
                throw e;
            }
        }
    }
}
