package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.rpcrange.RpcRangeFrame.Response;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Client of the server-side range lock manager ({@link RpcRangeServer}; CITRON FAST'23 §4.1
 * baseline "IT"). Acquire is one ACQUIRE rpc whose reply the server defers until it grants; release
 * is one RELEASE rpc naming the grant. Every operation costs the memory node's CPU one request,
 * whatever the contention: no verbs, no retries. Shared ranges are supported (granted together).
 *
 * <p>The other server-CPU range baselines ({@code mt}, {@code llc}) speak the same frames
 * ({@link RpcRangeFrame}) to their own services and use this client under their own name.
 * Not thread-safe: one per thread, like its endpoint.
 */
public final class RpcRangeClient implements RangeLockClient {
    private final String protocol;
    private final QueuePair qp;
    private final Table table;
    private final Set<RpcRangeGrant> held = Collections.newSetFromMap(new IdentityHashMap<>());

    /**
     * A client of the {@link RpcRangeFrame} service of {@code table}, for the protocol named
     * {@code protocol} (named in errors).
     */
    RpcRangeClient(String protocol, Endpoint endpoint, Table table) {
        this.protocol = protocol;
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
    }

    @Override
    public RangeGrant acquire(long start, long end, Mode mode) {
        if (start < 0 || end <= start) {
            throw new IllegalArgumentException(protocol + ": bad range [" + start + ", " + end + ")");
        }
        Response r = RpcRangeFrame.decodeResponse(qp.rpc(table.service(), RpcRangeFrame.acquire(start, end, mode)));
        if (r.status() != RpcRangeFrame.STATUS_GRANTED || r.mode() != mode) {
            throw new IllegalStateException(protocol + " server answered an acquisition of [" + start + ", " + end + ") "
                    + mode + " with " + r);
        }
        var g = new RpcRangeGrant(start, end, mode, r.token(), r.grantId());
        held.add(g);
        return g;
    }

    @Override
    public void release(RangeGrant grant) {
        if (!(grant instanceof RpcRangeGrant g) || !held.remove(g)) {
            throw new IllegalArgumentException(protocol + ": not a grant this client holds: " + grant);
        }
        Response r = RpcRangeFrame.decodeResponse(qp.rpc(table.service(),
                RpcRangeFrame.release(g.start(), g.end(), g.mode(), g.grantId(), g.fencingToken())));
        if (r.status() != RpcRangeFrame.STATUS_RELEASED) {
            throw new IllegalStateException(protocol + " server answered a release of " + g + " with " + r);
        }
    }

    private record RpcRangeGrant(long start, long end, Mode mode, long fencingToken, long grantId)
            implements RangeGrant {
    }
}
