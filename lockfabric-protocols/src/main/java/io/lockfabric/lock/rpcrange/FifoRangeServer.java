package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.rpcrange.RpcRangeFrame.Request;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the server-CPU range lock managers that queue their waiters share ({@link RpcRangeServer},
 * {@link MtServer}): the grants by id, the FIFO of deferred requests, the fencing count in word 0
 * of the table region, and the queue/wake rule. A request is granted at once if it conflicts with
 * no held range and no waiting request, else it joins the FIFO; a release walks the FIFO in order
 * and grants every waiter that conflicts neither with the held ranges nor with a waiter still
 * blocked ahead of it, replying to each after the monitor is left. The servers differ only in the
 * structure that answers "does this range conflict" ({@link Ranges}).
 *
 * <p>Thread-safe: one monitor (the server's) guards the state; no reply is sent under it.
 */
abstract class FifoRangeServer implements RpcHandler {
    static final int FENCE_OFFSET = 0;

    /** A set of ranges with modes: held ones, waiting ones, or those blocked ahead in one FIFO walk. */
    interface Ranges {
        /** Whether [start, end) in {@code mode} conflicts with a range of the set (overlap, one exclusive). */
        boolean conflicts(long start, long end, Mode mode);

        void add(long start, long end, Mode mode, long id);

        void remove(long start, long end, Mode mode, long id);
    }

    private final RegionAccess region;
    private final String name;
    private final Ranges held;
    private final Ranges waiting;
    private final Supplier<Ranges> emptySet;
    private final ArrayDeque<Waiter> fifo = new ArrayDeque<>();
    private final Map<Long, Holder> grants = new HashMap<>();
    private long nextId = 1;

    /**
     * @param name     what failures call the server ("mt server")
     * @param emptySet a new empty set of the server's kind (the waiters blocked ahead in a release's walk)
     */
    FifoRangeServer(RegionAccess region, String name, Ranges held, Ranges waiting, Supplier<Ranges> emptySet) {
        if (region.size() < ServerCpuRangeProtocol.TABLE_BYTES) {
            throw new IllegalArgumentException("region of " + region.size() + " bytes cannot hold the fencing count");
        }
        this.region = region;
        this.name = name;
        this.held = held;
        this.waiting = waiting;
        this.emptySet = emptySet;
    }

    @Override
    public final void handle(RpcCall call) {
        Request r = RpcRangeFrame.validRequest(call, name);
        if (r == null) {
            return;
        }
        if (r.op() == RpcRangeFrame.OP_ACQUIRE) {
            acquire(call, r);
        } else {
            release(call, r);
        }
    }

    private void acquire(RpcCall call, Request r) {
        byte[] response;
        synchronized (this) {
            long id = nextId++;
            if (held.conflicts(r.start(), r.end(), r.mode()) || waiting.conflicts(r.start(), r.end(), r.mode())) {
                fifo.add(new Waiter(call, id, r.start(), r.end(), r.mode()));
                waiting.add(r.start(), r.end(), r.mode(), id);
                return; // the release that grants it replies
            }
            response = grant(call.caller(), id, r.start(), r.end(), r.mode());
        }
        call.reply(response);
    }

    private void release(RpcCall call, Request r) {
        List<RpcCall> woken = new ArrayList<>();
        List<byte[]> responses = new ArrayList<>();
        synchronized (this) {
            Holder h = grants.get(r.grantId());
            if (h == null || !h.caller.equals(call.caller()) || h.start != r.start() || h.end != r.end()
                    || h.mode != r.mode() || h.token != r.token()) {
                call.fail(name + ": " + call.caller() + " released [" + r.start() + ", " + r.end() + ") "
                        + r.mode() + " (grant " + r.grantId() + ", token " + r.token() + ") that it does not hold"
                        + (h == null ? "" : ": grant " + r.grantId() + " is " + h));
                return;
            }
            grants.remove(r.grantId());
            held.remove(h.start, h.end, h.mode, r.grantId());
            Ranges blocked = emptySet.get();
            for (Iterator<Waiter> it = fifo.iterator(); it.hasNext(); ) {
                Waiter w = it.next();
                if (held.conflicts(w.start, w.end, w.mode) || blocked.conflicts(w.start, w.end, w.mode)) {
                    blocked.add(w.start, w.end, w.mode, w.id);
                    continue;
                }
                it.remove();
                waiting.remove(w.start, w.end, w.mode, w.id);
                woken.add(w.call);
                responses.add(grant(w.call.caller(), w.id, w.start, w.end, w.mode));
            }
        }
        for (int i = 0; i < woken.size(); i++) {
            woken.get(i).reply(responses.get(i));
        }
        call.reply(RpcRangeFrame.response(RpcRangeFrame.STATUS_RELEASED, r.mode(), r.token(), r.grantId()));
    }

    /** Records a grant (the monitor held) and returns its response frame. */
    private byte[] grant(EndpointId to, long id, long start, long end, Mode mode) {
        long token = mode == Mode.EXCLUSIVE ? region.faa(FENCE_OFFSET, 1) + 1 : region.read8(FENCE_OFFSET);
        held.add(start, end, mode, id);
        grants.put(id, new Holder(to, start, end, mode, token));
        return RpcRangeFrame.response(RpcRangeFrame.STATUS_GRANTED, mode, token, id);
    }

    /** Grants outstanding now (the caller holds the monitor). */
    final int grantCount() {
        return grants.size();
    }

    /** Requests waiting now (the caller holds the monitor). */
    final int waitingCount() {
        return fifo.size();
    }

    private record Waiter(RpcCall call, long id, long start, long end, Mode mode) {
    }

    private record Holder(EndpointId caller, long start, long end, Mode mode, long token) {
    }
}
