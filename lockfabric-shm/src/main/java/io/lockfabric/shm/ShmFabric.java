package io.lockfabric.shm;

import io.lockfabric.fabric.Attachments;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.FabricTiming;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RpcException;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.fabric.ServiceHost;
import io.lockfabric.fabric.ServiceResolver;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.fabric.realtime.BackoffIdleStrategy;
import io.lockfabric.fabric.realtime.BlockingRpc;
import io.lockfabric.fabric.realtime.RealTimeClock;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The shared-memory fabric: one memory node, a file (in {@code /dev/shm} or any path) that every
 * process of the host maps. It is what CXL shared memory offers across hosts, and the truest
 * one-sided fabric one machine can run: verbs run in the client's process on the mapping, with no
 * memory-node CPU in the path.
 *
 * <ul>
 *   <li>Tables: created by the first process that opens a name, found by name by the others
 *       ({@link ShmFile}: a directory in the file, under a creation lock).</li>
 *   <li>Verbs: {@link ShmQueuePair}; 64-bit and masked 64-bit atomics are hardware atomics (CAS loops)
 *       on the mapping; 128-bit atomics go through a stripe lock with a redo log ({@link StripeGuard},
 *       where the argument for their safety across process deaths is).</li>
 *   <li>Messages: {@link ShmMailbox}, a ring per endpoint in the file; a dead process's endpoints
 *       fail sends as RNR.</li>
 *   <li>Compute nodes: one per opened fabric (per process, as a rule): its endpoints share
 *       {@link Endpoint#computeNode()} and the node id of their {@link EndpointId}.</li>
 *   <li>rpc: served by the one process that opened the file with {@link Builder#serveRpc(boolean)
 *       serveRpc(true)} ({@code lockfabric serve --shm PATH} does): its own endpoints call the handlers
 *       directly, other processes through a request ring in the file ({@link ShmRpcServer}), up to
 *       {@link ShmLayout#RPC_MAX_BYTES} each way. Without a serving process an rpc fails with an
 *       {@link RpcException} that says how to start one. A standby ({@link Builder#standbyRpc}) takes
 *       over when the serving process dies; rpcs in flight to the dead one fail, and an endpoint
 *       whose rpcs went to a server that is gone is lost ({@link Endpoint#onMemoryNodeLost}), as
 *       what they left there is ({@link ShmQueuePair}).</li>
 *   <li>Waits across processes: whoever waits for another process (the rpc server for requests, a
 *       caller for its reply, a receiver for a message) spins a moment, then sleeps on a bell, a
 *       futex word in the file ({@link Futex}), which the other process rings once there is
 *       something for it. Virtual threads park instead, and this process's {@link ShmReplyWatcher}
 *       sleeps on the bell for them. No timer in the path, and no wake-up at rest but one a second.</li>
 *   <li>Tables can be dropped ({@link #dropTable}): refused while an open endpoint of a live process
 *       has them open, unless forced; their memory goes back to the file's heap.</li>
 *   <li>Counters: {@link #memoryNodeCounters} counts what this process's endpoints sent, not other
 *       processes' (no shared counter is touched on the verb path).</li>
 * </ul>
 *
 * <pre>{@code
 * try (Fabric fabric = Fabrics.open("shm:/dev/shm/locks")) { ... }
 * }</pre>
 *
 * The file stays when the fabric is closed; delete it to start afresh. Thread-safe.
 */
public final class ShmFabric implements Fabric {
    /** The {@link io.lockfabric.fabric.FabricAddress} scheme. */
    public static final String SCHEME = "shm";
    public static final long DEFAULT_CAPACITY_BYTES = 256L << 20;
    public static final long DEFAULT_SEED = 0x54A3_ED00L;
    /**
     * Round trips as RDMA's (a verb is a memory access here, faster still), but clients are processes
     * that share the host's cores, so a ready one may wait a scheduler's slice for a CPU: waits that
     * bound a client's steps or another's hold (leases) allow for that, as on tcp.
     */
    public static final FabricTiming TIMING = new FabricTiming(FabricTiming.RDMA.roundTripNs(), 2_000_000);

    private final ShmFile file;
    private final long seed;
    private final int node;
    private final Attachments computeNode = new Attachments();
    private final Attachments attachments = new Attachments();
    private final List<ShmQueuePair> queuePairs = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<Integer, RpcHandler> services = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ShmEndpoint, Long> open = new ConcurrentHashMap<>();
    private final ShmRpcServer server;
    /** Queue pairs bound to an rpc server and not lost yet: {@link #watchServers} looks at their server. */
    private final java.util.Set<ShmQueuePair> bound = ConcurrentHashMap.newKeySet();
    /** Runs {@link #watchServers}; started at the first rpc, null before. */
    private Thread serverWatch;
    /** Wakes this process's virtual threads when their replies come; started at the first that sleeps. */
    private volatile ShmReplyWatcher watcher;
    private volatile boolean closed;
    /** Tests only: runs in {@link #newEndpoint} right after the slot is claimed ({@link #onSlotClaimed}). */
    private volatile Runnable slotClaimedHook;

    private ShmFabric(Builder b) {
        this.file = ShmFile.open(b.path, b.capacityBytes);
        this.seed = b.seed;
        this.node = (int) (file.next(ShmLayout.HEADER_NEXT_NODE) & EndpointId.MAX_NODE);
        try {
            this.server = b.serveRpc || b.standby ? new ShmRpcServer(this, services, b.resolver, b.standby) : null;
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    ShmFile file() {
        return file;
    }

    /** The file this fabric maps. */
    public Path path() {
        return file.path();
    }

    @Override
    public String name() {
        return SCHEME + ":" + file.path();
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
        long ordinal = file.next(ShmLayout.HEADER_NEXT_ORDINAL);
        if (ordinal > EndpointId.MAX_QUEUE) {
            throw new FabricException(name() + " has given out all " + EndpointId.MAX_QUEUE
                    + " endpoint ordinals: delete the file to start afresh");
        }
        int index = claimSlot();
        Runnable hook = slotClaimedHook;
        if (hook != null) {
            hook.run();
        }
        long slot = ShmLayout.slot(index);
        EndpointId id = new EndpointId(node, index + 1);
        ShmQueuePair qp = new ShmQueuePair(this, id, ordinal);
        queuePairs.add(qp);
        ShmEndpoint e = new ShmEndpoint(this, id, (int) ordinal, slot, qp, new ShmMailbox(this, id, slot),
                seed * 0x9E3779B97F4A7C15L + ordinal, computeNode);
        open.put(e, slot);
        return e;
    }

    /**
     * Takes a free endpoint slot for this fabric: one never used, closed by another fabric (never one
     * this fabric closed: a stale id of its own must not reach a new endpoint), or left by a dead
     * process. Decided and marked under the slot's ring lock in one step with the endpoint's id
     * (owner, last node and id written together, the ring's leftovers dropped): a slot taken but
     * without its id looks vacant, and another process would take it too. Two endpoints would then
     * read one ring, and sends and pings to the one whose id was overwritten would fail as to a dead
     * endpoint while it lived: a DecLock node-mate would release that endpoint's lock on its behalf
     * while it held it.
     */
    private int claimSlot() {
        MemoryRegion control = file.control();
        ProcessLiveness liveness = file.liveness();
        for (int i = 0; i < ShmLayout.MAX_ENDPOINTS; i++) {
            long slot = ShmLayout.slot(i);
            if (!isFree(control, liveness, slot)) {
                continue;
            }
            long ringLock = slot + ShmLayout.SLOT_RING_LOCK;
            file.locks().lock(ringLock);
            try {
                if (isFree(control, liveness, slot)) {
                    control.write8(slot + ShmLayout.SLOT_ID, 0);
                    control.write8(slot + ShmLayout.SLOT_OWNER, liveness.self());
                    control.write8(slot + ShmLayout.SLOT_LAST_NODE, node + 1L);
                    control.write8(slot + ShmLayout.SLOT_HEAD, control.read8(slot + ShmLayout.SLOT_TAIL)); // drops leftovers
                    control.write8(slot + ShmLayout.SLOT_WAKE, 0); // a dead process's thread slept on it
                    for (int w = 0; w < ShmLayout.SLOT_OPEN_WORDS; w++) {
                        control.write8(slot + ShmLayout.SLOT_OPEN + w * 8L, 0); // the tables the last one had open
                    }
                    control.write8(slot + ShmLayout.SLOT_ID, new EndpointId(node, i + 1).pack());
                    return i;
                }
            } finally {
                file.locks().unlock(ringLock);
            }
        }
        throw new FabricException(name() + " has no free endpoint slot (all " + ShmLayout.MAX_ENDPOINTS
                + " are held by live processes)");
    }

    private boolean isFree(MemoryRegion control, ProcessLiveness liveness, long slot) {
        long owner = control.read8(slot + ShmLayout.SLOT_OWNER);
        if (owner == 0) {
            return true;
        }
        boolean vacant = control.read8(slot + ShmLayout.SLOT_ID) == 0 || !liveness.isAlive(owner);
        return vacant && control.read8(slot + ShmLayout.SLOT_LAST_NODE) != node + 1L;
    }

    /**
     * Tests only: {@code hook} runs in {@link #newEndpoint} right after the endpoint's slot is
     * claimed, before the endpoint is made (null: none). A test opens another fabric's endpoint
     * there, as a process scheduled at that moment would.
     */
    void onSlotClaimed(Runnable hook) {
        slotClaimedHook = hook;
    }

    /** The file offset of the slot of {@code id}, or -1 if it names none. */
    long slotOf(EndpointId id) {
        int index = id.queue() - 1;
        return index < ShmLayout.MAX_ENDPOINTS ? ShmLayout.slot(index) : -1;
    }

    /** Closes {@code endpoint}'s slot: later sends to it fail. */
    void release(ShmEndpoint endpoint, long slot) {
        bound.remove(endpoint.shmQueuePair());
        if (open.remove(endpoint) == null || closed) {
            return;
        }
        vacate(slot);
    }

    private void vacate(long slot) {
        long ringLock = slot + ShmLayout.SLOT_RING_LOCK;
        file.locks().lock(ringLock);
        try {
            file.control().write8(slot + ShmLayout.SLOT_ID, 0);
        } finally {
            file.locks().unlock(ringLock);
        }
    }

    /**
     * Opens (creating if needed) the table of {@code spec} for the endpoint at {@code slot} (-1: for
     * the service of the table of region {@code parent}, which it is dropped with).
     */
    Table openTable(TableSpec spec, long slot, int parent) {
        if (closed) {
            throw new FabricException("fabric " + name() + " is closed");
        }
        if (spec.memoryNode() != 0) {
            throw new IllegalArgumentException("the shm fabric has one memory node (0), not " + spec.memoryNode()
                    + ": " + spec);
        }
        Table table = file.openTable(spec, slot, parent);
        if (server != null && spec.service() != null) {
            services.computeIfAbsent(table.service(), id -> spec.service().create(new Host(table)));
        }
        return table;
    }

    /**
     * An rpc from {@code caller}, a client of this fabric, as its {@code call}-th (a number no other
     * call of the file's endpoints has). In the serving process, the handler runs on the caller's
     * thread; from any other, the call goes through the file's request ring to the serving process.
     */
    byte[] rpc(ShmQueuePair qp, int service, EndpointId caller, long call, byte[] request) {
        file.checkService(service);
        if (request.length > ShmLayout.RPC_MAX_BYTES) {
            throw new RpcException("an rpc request of " + request.length + " bytes is longer than the shm fabric carries ("
                    + ShmLayout.RPC_MAX_BYTES + " bytes); nothing was sent");
        }
        if (server != null && server.isActive()) {
            qp.bindOrCheck(server.token(), server.epoch()); // this process serves: neither changes while it does
            server.awaitGrace();
            return BlockingRpc.call(c -> server.dispatch(service, c), caller, request);
        }
        MemoryRegion f = file.control();
        long slot = slotOf(caller);
        long owner = caller.pack();
        long blob = 0;
        if (request.length > ShmLayout.RPC_INLINE_BYTES) {
            liveServer();
            try {
                blob = file.storeBlob(owner, caller.queue() - 1, call, request);
            } catch (FabricException e) {
                throw new RpcException("an rpc request of " + request.length + " bytes was not sent: " + e.getMessage());
            }
        }
        boolean blobs = blob != 0;
        boolean settled = false; // answered or failed: the server no longer reads the request's blob
        try {
            IdleStrategy idle = RealTimeClock.INSTANCE.idleStrategy();
            long serverToken;
            while ((serverToken = appendRequest(qp, f, service, caller, call, request, blob)) == 0) {
                idle.idle();
            }
            idle.reset();
            if (f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_ASLEEP) != 0 && Futex.AVAILABLE) {
                file.ring(ShmLayout.SERVER_AT + ShmLayout.SERVER_BELL); // after the tail: the server flags, then looks
            }
            long reply = slot + ShmLayout.SLOT_REPLY;
            awaitReply(qp, f, slot, reply + ShmLayout.REPLY_CALL, call, idle, serverToken, service);
            int length = (int) f.read8(reply + ShmLayout.REPLY_LENGTH);
            long replyBlob = f.read8(reply + ShmLayout.REPLY_BLOB);
            blobs |= replyBlob != 0;
            byte[] data = replyBlob != 0 ? file.readBlob(replyBlob, length) : f.read(reply + ShmLayout.REPLY_DATA, length);
            settled = true;
            if (f.read8(reply + ShmLayout.REPLY_FAILED) != 0) {
                throw new RpcException(new String(data, java.nio.charset.StandardCharsets.UTF_8));
            }
            return data;
        } catch (RpcException e) {
            blobs = true; // the server is gone: it may have stored a reply's blob it never published
            settled = true;
            throw e;
        } finally {
            // a caller interrupted while it waits leaves its blobs to the sweep after its endpoint closes:
            // the server may still read the request's
            if (blobs && settled) {
                file.freeBlobs(owner, call);
            }
        }
    }

    /**
     * Waits until the reply to {@code call} is in the slot at {@code slot}. The caller spins, and a
     * platform thread yields, a while ({@link #awakeLooks()}); where there are {@link Futex futexes} it
     * then sleeps until the server rings it ({@link #sleepOnce}). Elsewhere it goes on with
     * {@code idle}'s parks. Every {@link #SERVER_CHECK_NS} it checks that its server still lives.
     */
    private void awaitReply(ShmQueuePair qp, MemoryRegion f, long slot, long replyCall, long call, IdleStrategy idle,
                            long serverToken, int service) {
        int awake = awakeLooks();
        int looks = 0;
        long checkedAt = System.nanoTime();
        try {
            while (f.read8(replyCall) != call) {
                WaitInterruptedException.throwIfInterrupted("an rpc's reply");
                if (looks < awake || !Futex.AVAILABLE) {
                    looks++;
                    idle.idle();
                } else {
                    sleepOnce(slot, replyCall, call, true, Long.MAX_VALUE);
                }
                long now = System.nanoTime();
                if (now - checkedAt > SERVER_CHECK_NS) {
                    checkedAt = now;
                    if (f.read8(replyCall) != call) {
                        checkServer(qp, serverToken, service);
                    }
                }
            }
        } finally {
            if (looks >= awake) {
                awake(slot);
            }
        }
    }

    /**
     * How many times a thread waiting for another process looks before it sleeps: a platform thread
     * spins and yields ({@link BackoffIdleStrategy}'s defaults: 16 each), a virtual thread only spins.
     */
    static int awakeLooks() {
        return Thread.currentThread().isVirtual() ? BackoffIdleStrategy.DEFAULT_MAX_SPINS : AWAKE_LOOKS;
    }

    /** Spins and yields of a platform thread before it sleeps ({@link #awakeLooks()}). */
    static final int AWAKE_LOOKS = BackoffIdleStrategy.DEFAULT_MAX_SPINS + BackoffIdleStrategy.DEFAULT_MAX_YIELDS;

    /** Whether the word at {@code word} holds {@code value} ({@code equal}), or does not (not {@code equal}). */
    static boolean holds(MemoryRegion f, long word, long value, boolean equal) {
        return (f.read8(word) == value) == equal;
    }

    /**
     * One sleep of the thread of the endpoint slot at {@code slot} (only where {@link Futex#AVAILABLE})
     * until the word at {@code word} {@link #holds} {@code value} or not, at most {@code timeoutNs}
     * ({@link Long#MAX_VALUE}: none) and {@link #replySleepNs}. A platform thread names its slot's bell
     * in the slot's wake word, looks once more and sleeps on the bell; a virtual thread, which must
     * not block its carrier in a system call, parks for this process's {@link ShmReplyWatcher}. The
     * waker stores first, then reads the wake word ({@link ShmFile#bellToRing}): one of the two sees
     * the other. The caller looks again in any case, and clears the wake word ({@link #awake}) once
     * it stops waiting.
     */
    void sleepOnce(long slot, long word, long value, boolean equal, long timeoutNs) {
        if (Thread.currentThread().isVirtual()) {
            watcher().await(slot, word, value, equal, timeoutNs);
            return;
        }
        MemoryRegion f = file.control();
        long bell = slot + ShmLayout.SLOT_BELL;
        int rung = (int) f.read8(bell);
        f.write8(slot + ShmLayout.SLOT_WAKE, bell);
        if (!holds(f, word, value, equal)) {
            file.sleepOn(bell, rung, Math.min(timeoutNs, replySleepNs));
        }
    }

    /**
     * Wakes the thread of the endpoint slot at {@code slot}, which may sleep on bell {@code wake}
     * ({@link ShmFile#bellToRing}, not 0). A virtual thread of this fabric parked for its
     * {@link ShmReplyWatcher} is unparked here, on the caller's thread: no system call, and no hop
     * through the watcher thread, which a sender and a receiver in one process paid on every message
     * before. Anyone else is woken by ringing the bell, and so is a waiter not listed with the
     * watcher at this moment (between two of its sleeps: it looks again before the next).
     */
    void wake(long slot, long wake) {
        ShmReplyWatcher w = watcher;
        if (w == null || wake != w.bell() || !w.unparkIfReady(slot)) {
            file.ring(wake);
        }
    }

    /** Clears the wake word of the endpoint slot at {@code slot}: its thread no longer sleeps. */
    void awake(long slot) {
        if (Futex.AVAILABLE) {
            file.control().write8(slot + ShmLayout.SLOT_WAKE, 0);
        }
    }

    /** This process's watcher of the replies its virtual threads sleep for, started at the first. */
    private ShmReplyWatcher watcher() {
        ShmReplyWatcher w = watcher;
        if (w == null) {
            synchronized (this) {
                w = watcher;
                if (w == null) {
                    if (closed) {
                        throw new FabricException("fabric " + name() + " is closed");
                    }
                    int index = claimSlot();
                    w = new ShmReplyWatcher(file, ShmLayout.slot(index));
                    watcher = w;
                }
            }
        }
        return w;
    }

    /**
     * Fails a caller whose server is gone: dead (a {@code kill -9}), or stopped and its word freed or
     * taken over by a standby. The call may or may not have taken effect.
     */
    private void checkServer(ShmQueuePair qp, long serverToken, int service) {
        long now = file.control().read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN);
        if (!file.liveness().isAlive(serverToken) || now != serverToken) {
            qp.lose(serverGone(serverToken, now)); // told before the caller fails, as the SPI says
        }
        if (!file.liveness().isAlive(serverToken)) {
            throw new RpcException("the rpc server of " + file.path() + " (process " + ProcessLiveness.pid(serverToken)
                    + ") died before it answered rpc service " + service + " (the call may or may not have taken effect"
                    + (now != serverToken && now != 0 ? "; process " + ProcessLiveness.pid(now) + " serves now" : "") + ")");
        }
        if (now != serverToken) {
            throw new RpcException("the rpc server of " + file.path() + " (process " + ProcessLiveness.pid(serverToken)
                    + ") stopped before it answered rpc service " + service + " (the call may or may not have taken effect)");
        }
    }

    /**
     * How often this process looks whether the rpc server its endpoints' rpcs went to is still the
     * one serving ({@link #watchServers}).
     */
    static final long SERVER_WATCH_NS = 20_000_000;

    /** Watches {@code qp}'s server from now on (it was just bound): starts the watch at the first. */
    void watchServer(ShmQueuePair qp) {
        bound.add(qp);
        synchronized (bound) {
            if (serverWatch == null && !closed) {
                serverWatch = Thread.ofPlatform().daemon().name("shm-rpc-server-watch").start(this::watchServers);
            } else if (serverWatch != null) {
                java.util.concurrent.locks.LockSupport.unpark(serverWatch); // it may sleep with nothing to watch
            }
        }
    }

    /**
     * Every {@link #SERVER_WATCH_NS}, loses each bound queue pair whose server is gone: dead (pid
     * liveness), stopped (the word cleared) or followed by another (another token, or a new epoch
     * of the same process). Its endpoint's loss listeners run here; the client API then reports its
     * holds lost and replaces the endpoint. A bound queue pair needs no rpc in flight to be told: a
     * holder of an {@code rpc} lock learns that the lock is gone while it does nothing. With no
     * queue pair bound (none sent an rpc, or all are closed or lost) it sleeps until one is.
     */
    private void watchServers() {
        MemoryRegion f = file.control();
        while (!closed) {
            if (bound.isEmpty()) {
                java.util.concurrent.locks.LockSupport.park(this); // watchServer wakes it
                continue;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(SERVER_WATCH_NS);
            if (closed) {
                return;
            }
            long token = f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN);
            long epoch = f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_EPOCH); // after the token, as claims write them
            for (ShmQueuePair qp : bound) {
                long t = qp.boundToken();
                if (qp.isLost()) {
                    bound.remove(qp);
                } else if (t != token || qp.boundEpoch() != epoch || !file.liveness().isAlive(t)) {
                    qp.lose(serverGone(t, token));
                    bound.remove(qp);
                }
            }
        }
    }

    /** Why an endpoint bound to the server of {@code boundToken} is lost, now that {@code nowToken} (0: none) serves. */
    FabricException serverGone(long boundToken, long nowToken) {
        String was = "the rpc server of " + file.path() + " (process " + ProcessLiveness.pid(boundToken) + ")";
        String what = !file.liveness().isAlive(boundToken) ? " died"
                : nowToken == boundToken ? " stopped and served again" : " stopped";
        String next = nowToken != 0 && nowToken != boundToken ? "; process " + ProcessLiveness.pid(nowToken) + " serves now"
                : "";
        return new FabricException(was + what + next + ": what this endpoint's rpcs left there (rpc locks held, places"
                + " in their queues) is gone with it, so the endpoint is lost (a new endpoint goes to the new server)");
    }

    /** How often a caller waiting for a reply checks that the server still lives. */
    static final long SERVER_CHECK_NS = 10_000_000;
    /**
     * The longest a caller sleeps for its reply before it looks again ({@link #SERVER_CHECK_NS}). Tests
     * make it longer than they run, so that a wake-up lost would hang them.
     */
    static volatile long replySleepNs = SERVER_CHECK_NS;

    private long liveServer() {
        long token = file.control().read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN);
        if (token == 0 || !file.liveness().isAlive(token)) {
            throw noServer();
        }
        return token;
    }

    private RpcException noServer() {
        return new RpcException("no process serves the rpcs of " + file.path() + ": start 'lockfabric serve --shm "
                + file.path() + "' (or open the fabric with serve=true in one process)");
    }

    /**
     * Appends a request under the ring lock, addressed to the server serving now (a standby that
     * takes over later skips it: its caller fails as its server's death is seen).
     *
     * @return the token of the server it went to, or 0 if the ring is full
     * @throws RpcException if no live process serves the file
     */
    private long appendRequest(ShmQueuePair qp, MemoryRegion f, int service, EndpointId caller, long call, byte[] request,
                               long blob) {
        long ringLock = ShmLayout.SERVER_AT + ShmLayout.SERVER_RING_LOCK;
        file.locks().lock(ringLock);
        try {
            long server = f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN);
            boolean alive = server != 0 && file.liveness().isAlive(server); // one liveness look per rpc
            long was = qp.boundToken();
            if (was != 0 && (server != was || !alive)) { // its server is gone, and maybe none serves now
                qp.lose(serverGone(was, server));
                qp.checkNotLost();
            }
            if (!alive) {
                throw noServer();
            }
            qp.bindOrCheck(server, f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_EPOCH));
            long tail = f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TAIL);
            if (tail - f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_HEAD) >= ShmLayout.REQUEST_CAPACITY) {
                return 0;
            }
            long r = ShmLayout.request(tail);
            f.write8(r + ShmLayout.REQ_CALLER_SLOT, caller.queue() - 1);
            f.write8(r + ShmLayout.REQ_CALLER_ID, caller.pack());
            f.write8(r + ShmLayout.REQ_SERVICE, service);
            f.write8(r + ShmLayout.REQ_CALL, call);
            f.write8(r + ShmLayout.REQ_LENGTH, request.length);
            f.write8(r + ShmLayout.REQ_BLOB, blob);
            f.write8(r + ShmLayout.REQ_SERVER, server);
            if (blob == 0) {
                f.write(r + ShmLayout.REQ_DATA, request, 0, request.length);
            }
            f.write8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TAIL, tail + 1); // publishes the request
            return server;
        } finally {
            file.locks().unlock(ringLock);
        }
    }

    /**
     * Drops table {@code name} of the file (see {@link Fabric#dropTable}): refused while an open
     * endpoint of any process has it open, unless forced. A table nobody has open is freed at once
     * and its memory reused by later tables; one forced from under open endpoints is hidden at once
     * (their later verbs fail with {@link io.lockfabric.fabric.TableDroppedException}) and freed
     * when the last of them closes or its process dies.
     */
    @Override
    public long dropTable(int memoryNode, String name, boolean force) {
        checkDrop(memoryNode);
        long bytes = file.drop(name, force, java.util.Set.of());
        forgetServices();
        return bytes;
    }

    /** Drops table {@code name} unless an endpoint other than {@code users} (endpoints of this fabric) has it open. */
    @Override
    public long dropTable(int memoryNode, String name, java.util.Collection<? extends Endpoint> users) {
        checkDrop(memoryNode);
        java.util.Set<Long> slots = new java.util.HashSet<>();
        for (Endpoint e : users) {
            Long slot = e instanceof ShmEndpoint s ? open.get(s) : null;
            if (slot != null) {
                slots.add(slot);
            }
        }
        long bytes = file.drop(name, false, slots);
        forgetServices();
        return bytes;
    }

    /**
     * The tables of the file that clients created, in directory order: a table's bytes include those
     * of the tables its rpc service created.
     */
    public List<TableRow> tables() {
        if (closed) {
            throw new FabricException("fabric " + name() + " is closed");
        }
        return file.tables();
    }

    /**
     * A table of the file as {@link #tables} lists it.
     *
     * @param name          its name
     * @param protocol      the protocol its creator gave
     * @param bytes         its memory, with that of the tables its service created
     * @param openEndpoints the open endpoints of live processes that have it open
     * @param dropped       whether it was dropped from under those endpoints (its memory is freed
     *                      once they have closed)
     */
    public record TableRow(String name, String protocol, long bytes, int openEndpoints, boolean dropped) {
    }

    private void checkDrop(int memoryNode) {
        if (closed) {
            throw new FabricException("fabric " + name() + " is closed");
        }
        if (memoryNode != 0) {
            throw new IllegalArgumentException("no memory node " + memoryNode + " (the shm fabric has one)");
        }
    }

    /** Lets go of the services of tables that are no longer there (this process's handlers). */
    void forgetServices() {
        services.keySet().removeIf(id -> !file.isLive(id));
    }

    /** What the service of {@code table} sees of the memory node. */
    ServiceHost hostOf(Table table) {
        return new Host(table);
    }

    /** What a table's service sees of the memory node: its region and table creation. */
    private final class Host implements ServiceHost {
        private final Table table;

        Host(Table table) {
            this.table = table;
        }

        @Override
        public int memoryNode() {
            return 0;
        }

        @Override
        public RegionAccess table() {
            return file.region(table.address());
        }

        @Override
        public Table openTable(TableSpec spec) {
            return ShmFabric.this.openTable(spec, -1, table.service());
        }
    }

    /**
     * Whether this process serves the file's rpcs now; false for a process that does not serve them
     * and for a standby that has not taken over yet.
     */
    public boolean servesRpc() {
        return server != null && server.isActive();
    }

    /**
     * For a serving or standby process: completes once this process serves the file's rpcs, with the
     * pid of the process it took over from (0: none); null if this process neither serves nor stands by.
     */
    public java.util.concurrent.CompletableFuture<Long> rpcServing() {
        return server == null ? null : server.serving().thenApply(ProcessLiveness::pid);
    }

    /** This process's watcher of its virtual threads' replies, or null if none has slept yet (for the tests). */
    ShmReplyWatcher replyWatcher() {
        return watcher;
    }

    /** The rpc server of this process, or null if it serves none (for the tests). */
    ShmRpcServer rpcServer() {
        return server;
    }

    /** The pid of the process serving the file's rpcs now, or 0 if none does. */
    public long rpcServerPid() {
        long token = file.control().read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN);
        return token == 0 || !file.liveness().isAlive(token) ? 0 : ProcessLiveness.pid(token);
    }

    /** {@link #TIMING}. */
    @Override
    public FabricTiming timing() {
        return TIMING;
    }

    @Override
    public ClientThread spawn(String name, Runnable body) {
        return ClientThread.startPlatform(name, body);
    }

    @Override
    public long observerNanoTime() {
        return System.nanoTime();
    }

    /** False: the fabric's clients are in several processes and share no Java objects. */
    @Override
    public boolean isInProcess() {
        return false;
    }

    @Override
    public Attachments attachments() {
        return attachments;
    }

    /** What this process's endpoints sent to the memory node (other processes' verbs are not counted here). */
    @Override
    public CounterSnapshot memoryNodeCounters(int memoryNode) {
        if (memoryNode != 0) {
            throw new IllegalArgumentException("no memory node " + memoryNode + " (the shm fabric has one)");
        }
        CounterSnapshot total = CounterSnapshot.ZERO;
        for (ShmQueuePair qp : queuePairs) {
            total = total.plus(qp.counters());
        }
        return total;
    }

    /** Closes every endpoint of this fabric still open and unmaps the file; the file stays. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (Long slot : open.values()) {
            vacate(slot);
        }
        open.clear();
        closed = true;
        synchronized (bound) {
            if (serverWatch != null) {
                java.util.concurrent.locks.LockSupport.unpark(serverWatch); // it sees closed and ends
            }
        }
        bound.clear();
        synchronized (this) {
            ShmReplyWatcher w = watcher;
            if (w != null) {
                w.close();
                vacate(w.slot());
            }
        }
        if (server != null) {
            server.close();
        }
        file.close();
    }

    /** Configuration of a {@link ShmFabric}; validated in {@link #build()}. */
    public static final class Builder {
        private Path path;
        private long capacityBytes = DEFAULT_CAPACITY_BYTES;
        private long seed = DEFAULT_SEED;
        private boolean serveRpc;
        private boolean standby;
        private ServiceResolver resolver = ServiceResolver.installed();

        /** The file of the memory node; created if it does not exist. Required. */
        public Builder path(Path path) {
            this.path = path;
            return this;
        }

        /** The size of the file when this fabric creates it (an existing file keeps its size). */
        public Builder capacityBytes(long bytes) {
            this.capacityBytes = bytes;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Whether this process is the memory node's CPU: it serves the rpcs of the file's tables (its own
         * endpoints' directly, other processes' through the request ring). Only one process of a file
         * does: building fails if another live process serves it (see {@link #standbyRpc}).
         */
        public Builder serveRpc(boolean serve) {
            this.serveRpc = serve;
            return this;
        }

        /**
         * Whether this process serves the file's rpcs, or, while another live process does, stands by
         * and takes over when that process dies or stops ({@code lockfabric serve --shm} does). Any
         * number of processes may stand by; one takes over.
         */
        public Builder standbyRpc(boolean standby) {
            this.standby = standby;
            return this;
        }

        /**
         * How a serving fabric builds the rpc services of tables other processes created (default
         * {@link ServiceResolver#installed()}: every registered protocol's).
         */
        public Builder serviceResolver(ServiceResolver resolver) {
            this.resolver = java.util.Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        public ShmFabric build() {
            if (path == null) {
                throw new IllegalArgumentException("the shm fabric needs the path of its file: shm:/dev/shm/NAME");
            }
            if (!path.isAbsolute()) {
                throw new IllegalArgumentException("the shm fabric's path must be absolute, got '" + path + "'");
            }
            if (capacityBytes < ShmLayout.MIN_FILE_BYTES) {
                throw new IllegalArgumentException("shm capacity must be at least " + ShmLayout.MIN_FILE_BYTES
                        + " bytes, got " + capacityBytes);
            }
            return new ShmFabric(this);
        }
    }
}
