package io.lockfabric.shm;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.fabric.ServiceResolver;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.fabric.memory.PendingRpc;
import io.lockfabric.fabric.realtime.BackoffIdleStrategy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The memory node's CPU of a shm file: one process at a time ({@code lockfabric serve --shm PATH}, or
 * a fabric opened with {@code serve=true}) claims the file's rpc server word with its process token
 * and serves the request ring ({@link ShmLayout}) on a thread of its own. When no request is there
 * it spins and yields a while ({@link #AWAKE_LOOKS}), then sleeps on the ring's bell, a futex word
 * in the file ({@link Futex}): a client that appends a request while the server sleeps rings it.
 * Where futexes are not there it polls instead (spin, yield, park up to {@link #SERVER_MAX_PARK_NS};
 * after about a second without a request, parks of {@link #QUIET_PARK_NS}). A reply wakes its caller
 * the same way, if the caller went to sleep (its slot's wake word names its bell): once per batch of
 * requests ({@link #defer}). Clients append requests under the
 * ring's {@link PidLock} and wait for the reply in their endpoint slot; a request is published by its
 * tail store, so a client killed while appending leaves nothing. Requests and replies longer than
 * {@link ShmLayout#RPC_INLINE_BYTES} travel in blobs of the file's heap, owned by the caller.
 *
 * <p><b>Standby.</b> A server built as a standby while another live process serves the file waits:
 * every {@link #STANDBY_CHECK_NS} it looks at the server word, and once that process has died (pid
 * liveness) or stopped, it takes the word over by CAS (so one standby of several does) and serves.
 * Requests addressed to the dead server are skipped: each names the server it was sent to, and its
 * caller, which watches that server's liveness, fails with an {@link io.lockfabric.fabric.RpcException}
 * saying the call may or may not have taken effect, rather than hang or run twice. What the dead
 * server's services kept in its own memory (the {@code rpc} protocol's holders and queues) is gone:
 * the new server builds them afresh from the tables, whose memory (the fencing counts) survives.
 * Each claim of the file starts a new {@linkplain ShmLayout#SERVER_EPOCH epoch}; the clients whose
 * endpoints were bound to the old server see it and lose those endpoints ({@link ShmQueuePair}),
 * and a server that took over waits {@link #TAKEOVER_GRACE_NS} before it serves, so that they have.
 *
 * <p>Services: a table opened in this process with a service factory uses it; any other table's
 * service is built from the directory (protocol, shape, the options the creator's factory declared)
 * by a {@link ServiceResolver}, as the tcp server does. Thread-safe.
 */
final class ShmRpcServer implements AutoCloseable {
    /**
     * The longest the idle server parks between two looks at the ring while rpcs came lately: the
     * most such an rpc waits before it is seen.
     */
    static final long SERVER_MAX_PARK_NS = 100_000;
    /**
     * Looks at an empty ring after which the server is quiet (about a second: the spins, yields
     * and parks of its idle strategy, then parks of {@link #SERVER_MAX_PARK_NS}).
     */
    static final int QUIET_AFTER_LOOKS = 10_000;
    /**
     * How long a quiet server parks between two looks: the most the first rpc after a second
     * without one waits before it is seen (within the fabric's stall, {@link ShmFabric#TIMING}).
     * At rest this is about 1 000 wake-ups a second. With {@link #SERVER_MAX_PARK_NS} only it was
     * 10 000, which took 13% of a core on this 2-core machine while a workload used no rpc at all
     * (top, a compare run of {@code cas} on shm).
     */
    static final long QUIET_PARK_NS = 1_000_000;
    /**
     * Looks at an empty ring (spins, then yields) before a server that has {@link Futex futexes}
     * sleeps on the ring's bell, which the next client to append a request rings.
     */
    static final int AWAKE_LOOKS = 80;
    /** The longest a server sleeps on its bell: it sweeps the forgotten services in between. */
    static final long SLEEP_NS = 1_000_000_000L;
    /** {@link #SLEEP_NS}; tests make it longer than they run, so that a wake-up lost would hang them. */
    static volatile long sleepNs = SLEEP_NS;
    /** How long without a request before a server counts as quiet ({@link #isQuiet()}). */
    static final long QUIET_AFTER_NS = 1_000_000_000L;
    /** How often a standby looks whether the serving process still lives. */
    static final long STANDBY_CHECK_NS = 20_000_000;
    /**
     * How long a server that took over (from a dead or stopped one: the file's epoch was not 0)
     * waits before it serves its first rpc: three looks of the clients' watch ({@link
     * ShmFabric#SERVER_WATCH_NS}), so that a client holding an {@code rpc} lock of the old server
     * has been told it lost it (its endpoint lost) before the new server, which starts with every
     * lock free, grants that lock to another. A client whose watch is late by more than that (a
     * process stopped for longer) learns later: fencing tokens, whose counts are in the table, order
     * the new grants above the old ones.
     */
    static final long TAKEOVER_GRACE_NS = 3 * ShmFabric.SERVER_WATCH_NS;

    private final ShmFabric fabric;
    private final ShmFile file;
    private final MemoryRegion f;
    private final ServiceResolver resolver;
    private final ConcurrentHashMap<Integer, RpcHandler> handlers;
    private final Thread thread;
    /** The most bells the server keeps to ring after a batch of requests ({@link #defer}). */
    static final int DEFERRED_BELLS = 16;
    /** Bells of the replies of this batch of requests, to ring once it is served: the server's thread only. */
    private final long[] deferred = new long[DEFERRED_BELLS];
    private int bells;
    private final long me;
    private final java.util.concurrent.CompletableFuture<Long> serving = new java.util.concurrent.CompletableFuture<>();
    private volatile boolean running = true;
    private volatile boolean active;
    /** The file's server epoch this server started (0 until it claims the file). */
    private volatile long epoch;
    /** Until when (System.nanoTime) this server waits before it serves, after a takeover; 0: no wait. */
    private volatile long graceUntilNs;
    /** Whether the server has seen no request for about a second (for the tests). */
    private volatile boolean quiet;
    /** How many times the server slept on its bell (for the tests). */
    private volatile long sleeps;

    /**
     * Serves the file's rpcs, or, if another live process serves them and {@code standby}, waits to
     * take over from it.
     *
     * @throws FabricException if another live process serves the file and not {@code standby}
     */
    ShmRpcServer(ShmFabric fabric, ConcurrentHashMap<Integer, RpcHandler> handlers, ServiceResolver resolver,
                 boolean standby) {
        this.fabric = fabric;
        this.file = fabric.file();
        this.f = file.control();
        this.resolver = resolver;
        this.handlers = handlers;
        this.me = file.liveness().self();
        long previous = tryClaim();
        if (previous == -1 && !standby) {
            long current = f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN);
            throw new FabricException(file.path() + " has an rpc server already: process " + ProcessLiveness.pid(current)
                    + " (serve=standby, or a second 'lockfabric serve --shm', waits to take over from it)");
        }
        if (previous != -1) {
            becomeActive(previous);
        }
        this.thread = Thread.ofPlatform().daemon().name(active ? "shm-rpc-server" : "shm-rpc-standby").start(this::run);
    }

    /**
     * Claims the server word if it is free or its holder is dead, and starts a new {@linkplain
     * ShmLayout#SERVER_EPOCH epoch}: both under the request ring's lock, under which clients read
     * them too, so a client never sees this server with the epoch before it.
     *
     * @return the token it held before (0: none), or -1 if a live process holds it
     */
    private long tryClaim() {
        long word = ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN;
        long seen = f.read8(word);
        if (seen != 0 && seen != me && file.liveness().isAlive(seen)) {
            return -1; // a standby's look while the server lives takes no lock from the clients
        }
        long ringLock = ShmLayout.SERVER_AT + ShmLayout.SERVER_RING_LOCK;
        boolean interrupted = Thread.interrupted(); // the ring lock is waited for whole
        file.locks().lock(ringLock);
        try {
            long current = f.read8(word);
            if (current == me) {
                throw new FabricException("this process serves the rpcs of " + file.path() + " already");
            }
            if (current != 0 && file.liveness().isAlive(current)) {
                return -1;
            }
            if (f.cas(word, current, me) != current) { // a build that claims without the lock got there first
                return -1;
            }
            long epoch = f.faa(ShmLayout.SERVER_AT + ShmLayout.SERVER_EPOCH, 1);
            this.epoch = epoch + 1;
            if (epoch > 0) { // a server served before: its clients are to learn that their rpc state is gone
                graceUntilNs = System.nanoTime() + TAKEOVER_GRACE_NS;
            }
            return current;
        } finally {
            file.locks().unlock(ringLock);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits out the grace after a takeover ({@link #TAKEOVER_GRACE_NS}) before the first rpc is
     * served, uninterruptibly (an interrupt is kept for afterwards). At once otherwise.
     */
    void awaitGrace() {
        long until = graceUntilNs;
        if (until == 0) {
            return; // no clock read on the in-process rpc path once the grace is over
        }
        long left;
        boolean interrupted = false;
        while (running && (left = until - System.nanoTime()) > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(left);
            interrupted |= Thread.interrupted();
        }
        if (running) {
            graceUntilNs = 0;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void becomeActive(long previous) {
        active = true;
        serving.complete(previous);
    }

    /** Whether this process serves the file's rpcs now (not a standby). */
    boolean isActive() {
        return active;
    }

    /** Completes with the token of the server taken over from (0: none) once this process serves. */
    java.util.concurrent.CompletableFuture<Long> serving() {
        return serving;
    }

    /** This process's token, which the server word holds while this server is active. */
    long token() {
        return me;
    }

    /** The file's server epoch this server started, once it is active. */
    long epoch() {
        return epoch;
    }

    /** The token of the process serving the file now, or 0. */
    long currentServer() {
        return f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN);
    }

    private void run() {
        try {
            while (running && !active) {
                java.util.concurrent.locks.LockSupport.parkNanos(STANDBY_CHECK_NS);
                if (!running) {
                    return;
                }
                long previous = tryClaim();
                if (previous != -1) {
                    Thread.currentThread().setName("shm-rpc-server");
                    becomeActive(previous);
                }
            }
            serve();
        } catch (WaitInterruptedException e) {
            // closed
        }
    }

    /** How many times the server slept on its bell, waiting for a client to ring it. */
    long sleeps() {
        return sleeps;
    }

    /**
     * Whether the server has been without a request for about a second: it sleeps on its bell, or,
     * without futexes, parks {@link #QUIET_PARK_NS} at a time.
     */
    boolean isQuiet() {
        return quiet;
    }

    private void serve() {
        awaitGrace();
        IdleStrategy idle = new BackoffIdleStrategy(64, 16, 1_000, SERVER_MAX_PARK_NS);
        long head = f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_HEAD);
        f.write8(ShmLayout.SERVER_AT + ShmLayout.SERVER_ASLEEP, 0); // a dead server's flag would cost its clients syscalls
        long lastSweep = System.nanoTime();
        long idleSince = lastSweep; // when the ring was first found empty after the last request
        int emptyLooks = 0;
        while (running) {
            if (head == f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TAIL)) {
                if (emptyLooks < AWAKE_LOOKS || (!Futex.AVAILABLE && emptyLooks < QUIET_AFTER_LOOKS)) {
                    emptyLooks++;
                    idle.idle();
                } else if (Futex.AVAILABLE) {
                    WaitInterruptedException.throwIfInterrupted("the rpc ring");
                    sleep(head);
                } else {
                    if (!quiet) {
                        quiet = true;
                    }
                    WaitInterruptedException.throwIfInterrupted("the rpc ring");
                    java.util.concurrent.locks.LockSupport.parkNanos(QUIET_PARK_NS);
                }
                long now = System.nanoTime();
                if (emptyLooks == 1) {
                    idleSince = now; // the first empty look after a request: no clock read per request
                } else if (!quiet && Futex.AVAILABLE && emptyLooks >= AWAKE_LOOKS && now - idleSince > QUIET_AFTER_NS) {
                    quiet = true;
                }
                if (now - lastSweep > 1_000_000_000L) {
                    lastSweep = now;
                    fabric.forgetServices();
                }
                continue;
            }
            if (quiet) {
                quiet = false;
            }
            idle.reset();
            emptyLooks = 0;
            long r = ShmLayout.request(head);
            int slot = (int) f.read8(r + ShmLayout.REQ_CALLER_SLOT);
            EndpointId caller = EndpointId.unpack(f.read8(r + ShmLayout.REQ_CALLER_ID));
            int service = (int) f.read8(r + ShmLayout.REQ_SERVICE);
            long call = f.read8(r + ShmLayout.REQ_CALL);
            int length = (int) f.read8(r + ShmLayout.REQ_LENGTH);
            long blob = f.read8(r + ShmLayout.REQ_BLOB);
            boolean mine = f.read8(r + ShmLayout.REQ_SERVER) == me;
            byte[] request = !mine ? null : blob != 0 ? file.readBlob(blob, length) : f.read(r + ShmLayout.REQ_DATA, length);
            head++;
            f.write8(ShmLayout.SERVER_AT + ShmLayout.SERVER_HEAD, head); // frees the ring position
            if (mine) { // else it was sent to a server that died: its caller fails, it must not run late
                dispatch(service, new RemoteCall(caller, request, slot, call));
            }
            if (bells > 0 && (bells == deferred.length || head == f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TAIL))) {
                ringDeferred();
            }
        }
        ringDeferred();
    }

    /**
     * Sleeps on the ring's bell until a client rings it (it appended a request while the server
     * slept), or {@link #SLEEP_NS} passes. Flagged asleep before it looks at the ring a last time, and
     * a client looks at the flag after it stored its request's tail: one of the two sees the other.
     */
    private void sleep(long head) {
        long bell = ShmLayout.SERVER_AT + ShmLayout.SERVER_BELL;
        f.write8(ShmLayout.SERVER_AT + ShmLayout.SERVER_ASLEEP, 1);
        int rung = (int) f.read8(bell);
        if (running && head == f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TAIL)) {
            sleeps++; // this thread only
            file.sleepOn(bell, rung, sleepNs);
        }
        f.write8(ShmLayout.SERVER_AT + ShmLayout.SERVER_ASLEEP, 0);
    }

    /**
     * Keeps the bell at {@code wake} to ring once the ring is empty, or {@link #DEFERRED_BELLS} bells
     * are kept (each kept once): a process whose threads sleep for several replies of one batch of
     * requests is rung once for all of them. The server's thread only.
     */
    private void defer(long wake) {
        for (int i = 0; i < bells; i++) {
            if (deferred[i] == wake) {
                return;
            }
        }
        if (bells == deferred.length) {
            ringDeferred(); // one request answered many callers (a release that grants many readers)
        }
        deferred[bells++] = wake;
    }

    /** Rings the bells kept by {@link #defer}. The server's thread only. */
    private void ringDeferred() {
        for (int i = 0; i < bells; i++) {
            file.ring(deferred[i]);
        }
        bells = 0;
    }

    /** Runs {@code call} on its service's handler, or fails it. Any thread. */
    void dispatch(int service, PendingRpc call) {
        RpcHandler handler;
        try {
            handler = handlerFor(service);
        } catch (RuntimeException e) {
            call.fail(e.getMessage());
            return;
        }
        try {
            handler.handle(call);
        } catch (RuntimeException e) {
            call.fail("rpc service " + service + " failed: " + e);
        }
    }

    /**
     * The handler of {@code service}, built from the directory if this process has none yet.
     *
     * @throws io.lockfabric.fabric.RpcException-like IllegalStateException with the reason if there is none
     */
    RpcHandler handlerFor(int service) {
        if (!file.isLive(service)) {
            handlers.remove(service);
            throw new IllegalStateException("shm " + file.path() + ": the table of rpc service " + service
                    + " was dropped, or there is none");
        }
        RpcHandler h = handlers.get(service);
        if (h != null) {
            return h;
        }
        ShmFile.StoredTable stored = file.storedTable(service);
        if (stored == null || !file.hasService(service)) {
            throw new IllegalStateException("shm " + file.path() + " has no rpc service " + service);
        }
        TableSpec spec = stored.spec();
        Optional<TableSpec.ServiceFactory> factory = resolver.resolve(spec, stored.serviceOptions());
        if (factory.isEmpty()) {
            throw new IllegalStateException("the rpc server of " + file.path() + " cannot build the service of " + spec
                    + " (protocol '" + spec.protocol() + "', options " + stored.serviceOptions() + ")");
        }
        return handlers.computeIfAbsent(service, id -> factory.get().create(fabric.hostOf(stored.table())));
    }

    /** A call from another process (or this one, through the ring): its answer goes to the caller's slot. */
    private final class RemoteCall extends PendingRpc {
        private final int slotIndex;
        private final long slot;
        private final long call;

        RemoteCall(EndpointId caller, byte[] request, int slotIndex, long call) {
            super(caller, request);
            this.slotIndex = slotIndex;
            this.slot = ShmLayout.slot(slotIndex);
            this.call = call;
        }

        @Override
        protected void replied(byte[] response) {
            if (response.length > ShmLayout.RPC_MAX_BYTES) {
                failed("the reply of " + response.length + " bytes is longer than the shm fabric carries ("
                        + ShmLayout.RPC_MAX_BYTES + " bytes)");
            } else {
                answer(false, response);
            }
        }

        @Override
        protected void failed(String reason) {
            byte[] r = reason.getBytes(StandardCharsets.UTF_8);
            answer(true, r.length > ShmLayout.RPC_INLINE_BYTES ? Arrays.copyOf(r, ShmLayout.RPC_INLINE_BYTES) : r);
        }

        private void answer(boolean failed, byte[] data) {
            if (f.read8(slot + ShmLayout.SLOT_ID) != caller().pack()) {
                return; // the caller closed or died: nobody waits
            }
            long reply = slot + ShmLayout.SLOT_REPLY;
            long blob = 0;
            if (data.length > ShmLayout.RPC_INLINE_BYTES) {
                try {
                    blob = file.storeBlob(caller().pack(), slotIndex, call, data);
                } catch (FabricException e) {
                    failed = true;
                    data = ("the reply of " + data.length + " bytes was lost: " + e.getMessage()).getBytes(StandardCharsets.UTF_8);
                    data = data.length > ShmLayout.RPC_INLINE_BYTES ? Arrays.copyOf(data, ShmLayout.RPC_INLINE_BYTES) : data;
                }
            }
            if (blob == 0) {
                f.write(reply + ShmLayout.REPLY_DATA, data, 0, data.length);
            }
            f.write8(reply + ShmLayout.REPLY_BLOB, blob);
            f.write8(reply + ShmLayout.REPLY_LENGTH, data.length);
            f.write8(reply + ShmLayout.REPLY_FAILED, failed ? 1 : 0);
            f.write8(reply + ShmLayout.REPLY_CALL, call); // last: the reply is there
            long wake = file.bellToRing(slot); // after the reply: the caller flags, then looks
            if (wake != 0) {
                if (Thread.currentThread() == thread) {
                    defer(wake);
                } else {
                    file.ring(wake);
                }
            }
        }
    }

    /**
     * Stops serving and frees the server word. Under the ring lock, so no request is appended
     * meanwhile: the requests left unserved are dropped with it (their callers fail, as the word is
     * no longer their server's), so that a server this process starts later does not run them late.
     */
    @Override
    public void close() {
        running = false;
        serving.cancel(false);
        thread.interrupt();
        if (Futex.AVAILABLE) {
            file.ring(ShmLayout.SERVER_AT + ShmLayout.SERVER_BELL); // a sleeping server sees running false
        }
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boolean interrupted = Thread.interrupted(); // the ring lock is waited for whole
        long ringLock = ShmLayout.SERVER_AT + ShmLayout.SERVER_RING_LOCK;
        file.locks().lock(ringLock);
        try {
            if (f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN) == me) {
                f.write8(ShmLayout.SERVER_AT + ShmLayout.SERVER_HEAD, f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TAIL));
                f.write8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN, 0);
            }
        } finally {
            file.locks().unlock(ringLock);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
