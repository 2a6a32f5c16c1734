package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.lock.Mode;

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
public final class RpcRangeServer extends FifoRangeServer {
    public static final int FENCE_OFFSET = FifoRangeServer.FENCE_OFFSET;
    public static final int TABLE_BYTES = ServerCpuRangeProtocol.TABLE_BYTES;

    public RpcRangeServer(RegionAccess region) {
        super(region, "rpc-range server", byMode(), byMode(), RpcRangeServer::byMode);
    }

    /** Two interval trees, the exclusive ranges and the shared ones, as a set of ranges. */
    private static Ranges byMode() {
        IntervalTree x = new IntervalTree();
        IntervalTree s = new IntervalTree();
        return new Ranges() {
            @Override
            public boolean conflicts(long start, long end, Mode mode) {
                return x.anyOverlap(start, end) != null
                        || (mode == Mode.EXCLUSIVE && s.anyOverlap(start, end) != null);
            }

            @Override
            public void add(long start, long end, Mode mode, long id) {
                (mode == Mode.EXCLUSIVE ? x : s).insert(start, end, id);
            }

            @Override
            public void remove(long start, long end, Mode mode, long id) {
                (mode == Mode.EXCLUSIVE ? x : s).remove(start, id);
            }
        };
    }

    /** Granted ranges and waiting requests now: for tests and diagnostics. */
    synchronized int[] counts() {
        return new int[] {grantCount(), waitingCount()};
    }
}
