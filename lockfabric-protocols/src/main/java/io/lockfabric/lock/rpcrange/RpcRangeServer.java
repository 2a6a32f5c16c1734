package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.rpcrange.RpcRangeFrame.Request;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The server-side range lock manager of {@code rpc-range}: the rpc service of one range lock table,
 * run by its memory node's CPU (CITRON FAST'23 §4.1, baseline "IT": Lustre's interval tree of extent
 * locks behind an RPC; the spec's server-centric design for ranges).
 *
 * <p>State: the granted ranges in two {@link IntervalTree}s (exclusive, shared), the waiting
 * requests in a FIFO with two more trees for fast conflict checks, and the grants by id. Two ranges
 * conflict if they overlap and one is exclusive. A request is granted at once if it conflicts with
 * no granted range and with no waiting request (an earlier overlapping waiter goes first, so no
 * request starves); otherwise its reply is deferred and it joins the FIFO. A release removes its
 * range and walks the FIFO in order, granting every waiter that conflicts neither with the granted
 * ranges nor with a waiter still blocked ahead of it, and replies to each (shared waiters are thus
 * granted together; non-overlapping waiters do not wait for each other).
 *
 * <p><b>Fencing</b>: word 0 of the table region counts exclusive grants; an exclusive grant's token
 * is the new count, a shared grant's the current count, which is the {@link io.lockfabric.lock.Grant}
 * contract for every unit of the space. A release names its grant id and token, range and mode, and
 * must come from the client it was granted to.
 * <pre>
 *  byte 0                                   8
 * +------------------------------------------+
 * |     exclusive grants so far (64)          |
 * +------------------------------------------+
 * </pre>
 *
 * <p><b>Errors</b>: a malformed frame, an empty or negative range, or a release of a grant the
 * caller does not hold as described is failed with a reason and changes nothing. <b>Failures</b>:
 * as in {@code rpc}, a crashed holder (or a crashed waiter once granted) blocks its range forever.
 *
 * <p>Thread-safe: one monitor guards the state (no replies under it).
 */
public final class RpcRangeServer implements RpcHandler {
    public static final int FENCE_OFFSET = 0;
    public static final int TABLE_BYTES = ServerCpuRangeProtocol.TABLE_BYTES;

    private final RegionAccess region;
    private final IntervalTree grantedX = new IntervalTree();
    private final IntervalTree grantedS = new IntervalTree();
    private final IntervalTree waitingX = new IntervalTree();
    private final IntervalTree waitingS = new IntervalTree();
    private final ArrayDeque<Waiter> fifo = new ArrayDeque<>();
    private final Map<Long, Holder> grants = new HashMap<>();
    private long nextId = 1;

    public RpcRangeServer(RegionAccess region) {
        if (region.size() < TABLE_BYTES) {
            throw new IllegalArgumentException("region of " + region.size() + " bytes cannot hold the fencing count");
        }
        this.region = region;
    }

    @Override
    public void handle(RpcCall call) {
        Request r = RpcRangeFrame.validRequest(call, "rpc-range server");
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
            if (conflicts(grantedX, grantedS, r.start(), r.end(), r.mode())
                    || conflicts(waitingX, waitingS, r.start(), r.end(), r.mode())) {
                fifo.add(new Waiter(call, id, r.start(), r.end(), r.mode()));
                tree(waitingX, waitingS, r.mode()).insert(r.start(), r.end(), id);
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
                call.fail("rpc-range server: " + call.caller() + " released [" + r.start() + ", " + r.end() + ") "
                        + r.mode() + " (grant " + r.grantId() + ", token " + r.token() + ") that it does not hold"
                        + (h == null ? "" : ": grant " + r.grantId() + " is " + h));
                return;
            }
            grants.remove(r.grantId());
            tree(grantedX, grantedS, h.mode).remove(h.start, r.grantId());
            var blockedX = new IntervalTree();
            var blockedS = new IntervalTree();
            for (Iterator<Waiter> it = fifo.iterator(); it.hasNext(); ) {
                Waiter w = it.next();
                if (conflicts(grantedX, grantedS, w.start, w.end, w.mode)
                        || conflicts(blockedX, blockedS, w.start, w.end, w.mode)) {
                    tree(blockedX, blockedS, w.mode).insert(w.start, w.end, w.id);
                    continue;
                }
                it.remove();
                tree(waitingX, waitingS, w.mode).remove(w.start, w.id);
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
        tree(grantedX, grantedS, mode).insert(start, end, id);
        grants.put(id, new Holder(to, start, end, mode, token));
        return RpcRangeFrame.response(RpcRangeFrame.STATUS_GRANTED, mode, token, id);
    }

    private static boolean conflicts(IntervalTree x, IntervalTree s, long start, long end, Mode mode) {
        return x.anyOverlap(start, end) != null || (mode == Mode.EXCLUSIVE && s.anyOverlap(start, end) != null);
    }

    private static IntervalTree tree(IntervalTree x, IntervalTree s, Mode mode) {
        return mode == Mode.EXCLUSIVE ? x : s;
    }

    /** Granted ranges and waiting requests now: for tests and diagnostics. */
    synchronized int[] counts() {
        return new int[] {grants.size(), fifo.size()};
    }

    private record Waiter(RpcCall call, long id, long start, long end, Mode mode) {
    }

    private record Holder(EndpointId caller, long start, long end, Mode mode, long token) {
    }
}
