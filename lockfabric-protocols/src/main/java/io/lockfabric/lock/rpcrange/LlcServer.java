package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.rpcrange.RpcRangeFrame.Request;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server of {@code llc} (CITRON FAST'23 Table 1, baseline "LLC": "a range lock manager that
 * chains lock entries in a lock-free linked list", after Kogan et al. EuroSys'20, on the lock
 * server's CPU behind an RPC): the rpc service of one range lock table. Every call runs on the
 * memory node's thread that received it, with no lock: the list is {@link LlcList}, the grants a
 * concurrent map, the ids an atomic counter.
 *
 * <p>An ACQUIRE inserts a node and validates it: granted at once (reply now), or parked on the
 * node that blocks it with its reply deferred; a RELEASE marks its node and replies to every parked
 * request that the release let through (see {@link LlcList} for the overlap checks and why waiting
 * is queue/wake rather than client retry). Readers overlap readers, never writers.
 *
 * <p><b>Fencing</b> and <b>errors</b> as in {@code rpc-range}: word 0 of the table region counts
 * exclusive grants (FAA; an exclusive grant's token is the new count, a shared one's the current
 * count); a release must name a grant its caller holds (id, range, mode, token) and is accepted
 * once; a malformed frame or an empty range is failed with a reason and changes nothing.
 * <b>Failures</b>: a crashed holder blocks its range forever.
 *
 * <p>Thread-safe.
 */
public final class LlcServer implements RpcHandler {
    public static final int FENCE_OFFSET = 0;
    public static final int TABLE_BYTES = ServerCpuRangeProtocol.TABLE_BYTES;

    private final RegionAccess region;
    private final LlcList list = new LlcList();
    private final ConcurrentHashMap<Long, Holder> grants = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);

    /** The service of the table whose region is {@code region} (at least {@link #TABLE_BYTES}). */
    public LlcServer(RegionAccess region) {
        if (region.size() < TABLE_BYTES) {
            throw new IllegalArgumentException("region of " + region.size() + " bytes cannot hold the fencing count");
        }
        this.region = region;
    }

    @Override
    public void handle(RpcCall call) {
        Request r = RpcRangeFrame.validRequest(call, "llc server");
        if (r == null) {
            return;
        }
        if (r.op() == RpcRangeFrame.OP_ACQUIRE) {
            var node = new LlcList.Node(r.start(), r.end(), r.mode() == Mode.EXCLUSIVE, nextId.getAndIncrement(), call);
            if (list.acquire(node)) {
                granted(node);
            }
        } else {
            release(call, r);
        }
    }

    private void release(RpcCall call, Request r) {
        Holder h = grants.get(r.grantId());
        if (h == null || !h.caller.equals(call.caller()) || h.node.start() != r.start() || h.node.end() != r.end()
                || h.mode() != r.mode() || h.token != r.token() || !grants.remove(r.grantId(), h)) {
            call.fail("llc server: " + call.caller() + " released [" + r.start() + ", " + r.end() + ") "
                    + r.mode() + " (grant " + r.grantId() + ", token " + r.token() + ") that it does not hold"
                    + (h == null ? "" : ": grant " + r.grantId() + " is " + h));
            return;
        }
        List<LlcList.Node> woken = list.release(h.node);
        for (LlcList.Node n : woken) {
            granted(n);
        }
        call.reply(RpcRangeFrame.response(RpcRangeFrame.STATUS_RELEASED, r.mode(), r.token(), r.grantId()));
    }

    /** Takes the token of a node the list granted, records the grant and replies to its rpc. */
    private void granted(LlcList.Node n) {
        RpcCall call = (RpcCall) n.attachment();
        Mode mode = n.exclusive() ? Mode.EXCLUSIVE : Mode.SHARED;
        long token = n.exclusive() ? region.faa(FENCE_OFFSET, 1) + 1 : region.read8(FENCE_OFFSET);
        grants.put(n.id(), new Holder(call.caller(), n, token));
        call.reply(RpcRangeFrame.response(RpcRangeFrame.STATUS_GRANTED, mode, token, n.id()));
    }

    /** Grants now and live list nodes (held and waiting): for tests and diagnostics (not atomic). */
    int[] counts() {
        return new int[] {grants.size(), list.snapshot().size()};
    }

    private record Holder(EndpointId caller, LlcList.Node node, long token) {
        Mode mode() {
            return node.exclusive() ? Mode.EXCLUSIVE : Mode.SHARED;
        }

        @Override
        public String toString() {
            return "held by " + caller + ": " + node + ", token " + token;
        }
    }
}
