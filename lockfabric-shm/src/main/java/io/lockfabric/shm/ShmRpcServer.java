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
 * The memory node's CPU of a shm file: one process per file ({@code lockfabric serve --shm PATH}, or
 * a fabric opened with {@code serve=true}) claims the file's rpc server word with its process token
 * and serves the request ring ({@link ShmLayout}) on a thread of its own, idling (spin, yield, park
 * up to {@link #SERVER_MAX_PARK_NS}) when no request is there. Clients append requests under the ring's {@link PidLock} and
 * wait for the reply in their endpoint slot; a request is published by its tail store, so a client
 * killed while appending leaves nothing. A server that dies is replaced by the next one that starts
 * (its word is taken over from a dead token); clients waiting on it fail.
 *
 * <p>Services: a table opened in this process with a service factory uses it; any other table's
 * service is built from the directory (protocol, shape, the options the creator's factory declared)
 * by a {@link ServiceResolver}, as the tcp server does. Thread-safe.
 */
final class ShmRpcServer implements AutoCloseable {
    /**
     * The longest the idle server parks between two looks at the ring: the most an rpc to an idle
     * server waits before it is seen (and about 10 000 wake-ups a second at rest, no busy loop).
     */
    static final long SERVER_MAX_PARK_NS = 100_000;

    private final ShmFabric fabric;
    private final ShmFile file;
    private final MemoryRegion f;
    private final ServiceResolver resolver;
    private final ConcurrentHashMap<Integer, RpcHandler> handlers;
    private final Thread thread;
    private volatile boolean running = true;

    ShmRpcServer(ShmFabric fabric, ConcurrentHashMap<Integer, RpcHandler> handlers, ServiceResolver resolver) {
        this.fabric = fabric;
        this.file = fabric.file();
        this.f = file.control();
        this.resolver = resolver;
        this.handlers = handlers;
        claim();
        this.thread = Thread.ofPlatform().daemon().name("shm-rpc-server").start(this::serve);
    }

    private void claim() {
        long me = file.liveness().self();
        long word = ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN;
        while (true) {
            long current = f.read8(word);
            if (current == me) {
                throw new FabricException("this process serves the rpcs of " + file.path() + " already");
            }
            if (current != 0 && file.liveness().isAlive(current)) {
                throw new FabricException(file.path() + " has an rpc server already: process "
                        + ProcessLiveness.pid(current));
            }
            if (f.cas(word, current, me) == current) {
                return;
            }
        }
    }

    private void serve() {
        IdleStrategy idle = new BackoffIdleStrategy(64, 16, 1_000, SERVER_MAX_PARK_NS);
        long head = f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_HEAD);
        try {
            while (running) {
                if (head == f.read8(ShmLayout.SERVER_AT + ShmLayout.SERVER_TAIL)) {
                    idle.idle();
                    continue;
                }
                idle.reset();
                long r = ShmLayout.request(head);
                int slot = (int) f.read8(r + ShmLayout.REQ_CALLER_SLOT);
                EndpointId caller = EndpointId.unpack(f.read8(r + ShmLayout.REQ_CALLER_ID));
                int service = (int) f.read8(r + ShmLayout.REQ_SERVICE);
                long call = f.read8(r + ShmLayout.REQ_CALL);
                byte[] request = f.read(r + ShmLayout.REQ_DATA, (int) f.read8(r + ShmLayout.REQ_LENGTH));
                head++;
                f.write8(ShmLayout.SERVER_AT + ShmLayout.SERVER_HEAD, head); // frees the ring position
                dispatch(service, new RemoteCall(caller, request, ShmLayout.slot(slot), call));
            }
        } catch (WaitInterruptedException e) {
            // closed
        }
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
        private final long slot;
        private final long call;

        RemoteCall(EndpointId caller, byte[] request, long slot, long call) {
            super(caller, request);
            this.slot = slot;
            this.call = call;
        }

        @Override
        protected void replied(byte[] response) {
            if (response.length > ShmLayout.RPC_INLINE_BYTES) {
                answer(true, ("the reply of " + response.length + " bytes is longer than the shm fabric carries ("
                        + ShmLayout.RPC_INLINE_BYTES + ")").getBytes(StandardCharsets.UTF_8));
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
            f.write(reply + ShmLayout.REPLY_DATA, data, 0, data.length);
            f.write8(reply + ShmLayout.REPLY_LENGTH, data.length);
            f.write8(reply + ShmLayout.REPLY_FAILED, failed ? 1 : 0);
            f.write8(reply + ShmLayout.REPLY_CALL, call); // last: the reply is there
        }
    }

    /** Stops serving and frees the server word. */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long me = file.liveness().self();
        f.cas(ShmLayout.SERVER_AT + ShmLayout.SERVER_TOKEN, me, 0);
    }
}
