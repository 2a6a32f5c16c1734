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

/**
 * The server of {@code mt} (CITRON FAST'23 Table 1, baseline "MT": a Maple tree of disjoint ranges
 * on the lock server's CPU, behind an RPC): the rpc service of one range lock table, run by its
 * memory node's CPU.
 *
 * <p><b>State</b>: the held ranges as disjoint segments in a {@link RangeBTree}, each with its
 * count of readers and writers (a writer's segment has one writer and no reader; a shared range
 * held by several readers is split at every holder's borders, each piece counting the readers on
 * it: readers overlap readers, never writers). The waiting requests are in a FIFO and, counted the
 * same way, in a second tree. A request is granted at once if it conflicts neither with a held
 * segment nor with a waiting request (an earlier overlapping waiter goes first: no starvation);
 * otherwise its reply is deferred and it joins the FIFO.
 *
 * <p><b>Waiting is queue/wake, not client retry</b>: a release removes its range and walks the FIFO
 * in order, granting every waiter that conflicts neither with the held segments nor with a waiter
 * still blocked ahead of it, and replies to each. A client thus costs the server exactly two rpcs
 * per hold under any contention, as the paper's type-I baselines do ("server-side CPUs are fully
 * responsible for acquiring and releasing locks"); client retries would spend the server's CPU,
 * the resource these baselines are bound by, on requests that cannot succeed.
 *
 * <p><b>Concurrency</b>: one monitor guards the tree and the FIFO, as the Maple tree's writers
 * take the tree's lock (its lock-free side is for readers of the tree, and every range lock
 * operation here writes). No reply is sent under the monitor.
 *
 * <p><b>Fencing</b> and <b>errors</b> as in {@code rpc-range}: word 0 of the table region counts
 * exclusive grants (an exclusive grant's token is the new count, a shared one's the current count);
 * a release must name a grant its caller holds (id, range, mode, token), and a malformed frame or
 * an empty range is failed with a reason and changes nothing. <b>Failures</b>: a crashed holder
 * blocks its range forever (the server cannot tell that a client crashed).
 *
 * <p>Thread-safe.
 */
public final class MtServer implements RpcHandler {
    public static final int FENCE_OFFSET = 0;
    public static final int TABLE_BYTES = ServerCpuRangeProtocol.TABLE_BYTES;

    private final RegionAccess region;
    private final RangeBTree held = new RangeBTree();
    private final RangeBTree waiting = new RangeBTree();
    private final ArrayDeque<Waiter> fifo = new ArrayDeque<>();
    private final Map<Long, Holder> grants = new HashMap<>();
    private long nextId = 1;

    /** The service of the table whose region is {@code region} (at least {@link #TABLE_BYTES}). */
    public MtServer(RegionAccess region) {
        if (region.size() < TABLE_BYTES) {
            throw new IllegalArgumentException("region of " + region.size() + " bytes cannot hold the fencing count");
        }
        this.region = region;
    }

    @Override
    public void handle(RpcCall call) {
        Request r = RpcRangeFrame.validRequest(call, "mt server");
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
            boolean x = r.mode() == Mode.EXCLUSIVE;
            if (held.conflicts(r.start(), r.end(), x) || waiting.conflicts(r.start(), r.end(), x)) {
                fifo.add(new Waiter(call, id, r.start(), r.end(), r.mode()));
                count(waiting, r.start(), r.end(), r.mode(), 1);
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
                call.fail("mt server: " + call.caller() + " released [" + r.start() + ", " + r.end() + ") "
                        + r.mode() + " (grant " + r.grantId() + ", token " + r.token() + ") that it does not hold"
                        + (h == null ? "" : ": grant " + r.grantId() + " is " + h));
                return;
            }
            grants.remove(r.grantId());
            count(held, h.start, h.end, h.mode, -1);
            RangeBTree blocked = new RangeBTree();
            for (Iterator<Waiter> it = fifo.iterator(); it.hasNext(); ) {
                Waiter w = it.next();
                boolean x = w.mode == Mode.EXCLUSIVE;
                if (held.conflicts(w.start, w.end, x) || blocked.conflicts(w.start, w.end, x)) {
                    count(blocked, w.start, w.end, w.mode, 1);
                    continue;
                }
                it.remove();
                count(waiting, w.start, w.end, w.mode, -1);
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
        count(held, start, end, mode, 1);
        grants.put(id, new Holder(to, start, end, mode, token));
        return RpcRangeFrame.response(RpcRangeFrame.STATUS_GRANTED, mode, token, id);
    }

    private static void count(RangeBTree tree, long start, long end, Mode mode, int delta) {
        if (mode == Mode.EXCLUSIVE) {
            tree.adjust(start, end, 0, delta);
        } else {
            tree.adjust(start, end, delta, 0);
        }
    }

    /** Grants, waiters and held segments now: for tests and diagnostics. */
    synchronized int[] counts() {
        return new int[] {grants.size(), fifo.size(), held.size()};
    }

    private record Waiter(RpcCall call, long id, long start, long end, Mode mode) {
    }

    private record Holder(EndpointId caller, long start, long end, Mode mode, long token) {
    }
}
