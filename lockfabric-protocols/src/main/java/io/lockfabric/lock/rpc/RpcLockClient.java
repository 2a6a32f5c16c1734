package io.lockfabric.lock.rpc;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LatencyBreakdown;
import io.lockfabric.lock.LatencyBreakdown.Item;
import io.lockfabric.lock.LatencyBreakdown.Part;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.TruncatedExponentialBackoff;
import io.lockfabric.lock.rpc.RpcLockFrame.Response;

/**
 * Client of the server-side lock manager ({@link RpcLockServer}): the report's server-centric
 * design (rdma-dlm-designs-report §3: per-item FIFO queues, one mutex per queue, shared requests
 * granted together) and ShiftLock's RPC baseline (FAST'25 §4.1, Table 1). The lock logic runs on
 * the memory node's CPU; a client only sends requests ({@link RpcLockFrame}) over
 * {@link QueuePair#rpc}.
 *
 * <p><b>Queued</b> (default): acquire is one ACQUIRE rpc whose reply the server defers until it
 * grants (FIFO per lock, shared requests granted together); release is one RELEASE rpc carrying
 * the grant's fencing token. No retries: the waiting happens in the server's queue. Uncontended
 * cycle: 2 rpcs, and so is every contended one.
 *
 * <p><b>Retry-on-fail</b> (the ShiftLock artifact's RPC baseline: "serve lock acquisition and
 * release RPCs in a retry-on-fail manner"): acquire is a TRY_ACQUIRE that the server answers at
 * once, granted or BUSY; on BUSY the client waits a {@link TruncatedExponentialBackoff} (the same
 * SMART backoff the paper gives its CAS baseline; {@code backoff-init-ns = 0} retries at once) and
 * asks again. Each retry is another request for the memory node's CPU, the bottleneck the paper
 * measures.
 *
 * <p>The memory node's CPU is the bottleneck by design: every lock operation is an rpc served by it
 * ({@code mnCpuCores / rpcServiceNs} operations per second at most on the simulator), where the
 * one-sided protocols use only its NIC.
 *
 * <p>No fault tolerance (see {@link RpcLockServer}): the server cannot tell a crashed client from a
 * slow one. Not thread-safe: one per thread, like its endpoint.
 *
 * <p><b>Time breakdown</b> ({@link LatencyBreakdown}): acquire IA (the first rpc; queued, the wait in
 * the server's queue is in it) and RT (retry-on-fail's further rpcs and backoff); release IA.
 */
final class RpcLockClient implements LockClient {
    private final QueuePair qp;
    private final Table table;
    private final boolean retryOnFail;
    private final TruncatedExponentialBackoff backoff;
    private final Clock clock;
    private final LatencyBreakdown.Recorder times;
    private long retries;

    RpcLockClient(Endpoint endpoint, Table table, boolean retryOnFail, long backoffInitNs) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.retryOnFail = retryOnFail;
        this.clock = endpoint.clock();
        this.times = new LatencyBreakdown.Recorder(clock.timesBreakdowns());
        this.backoff = new TruncatedExponentialBackoff(clock, endpoint.random(), backoffInitNs);
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        checkLockId(lockId);
        byte[] request = RpcLockFrame.acquire(lockId, mode, retryOnFail);
        Part part = mode == Mode.SHARED ? Part.READER_ACQUIRE : Part.WRITER_ACQUIRE;
        long since = times.start(clock);
        for (int attempt = 0; ; attempt++) {
            Response r = RpcLockFrame.decodeResponse(qp.rpc(table.service(), request));
            if (attempt == 0) {
                since = times.lap(clock, part, Item.IA, since);
            }
            if (r.status() == RpcLockFrame.STATUS_GRANTED) {
                if (retryOnFail) {
                    backoff.completed();
                }
                times.lap(clock, part, Item.RT, since);
                times.completed(part);
                return new RpcGrant(lockId, r.mode(), r.token());
            }
            if (r.status() != RpcLockFrame.STATUS_BUSY || !retryOnFail) {
                throw new IllegalStateException("rpc lock server answered an acquisition of lock " + lockId
                        + " with status " + r.status());
            }
            retries++;
            backoff.backoff(attempt);
        }
    }

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof RpcGrant g)) {
            throw new IllegalArgumentException("not a grant of this rpc client: " + grant);
        }
        long issued = times.start(clock);
        // posted: nothing waits for the answer (on tcp the next request leaves at once); a release the
        // server refuses fails a later call of this queue pair
        qp.postRpc(table.service(), RpcLockFrame.release(g.lockId(), g.mode(), g.fencingToken()),
                reply -> checkReleased(g, reply));
        times.lap(clock, Part.RELEASE, Item.IA, issued);
        times.completed(Part.RELEASE);
    }

    private static void checkReleased(RpcGrant g, byte[] reply) {
        Response r = RpcLockFrame.decodeResponse(reply);
        if (r.status() != RpcLockFrame.STATUS_RELEASED) {
            throw new IllegalStateException("rpc lock server answered a release of lock " + g.lockId()
                    + " with status " + r.status());
        }
    }

    @Override
    public long locks() {
        return table.spec().locks();
    }

    @Override
    public LockStats stats() {
        return times.snapshot().addTo(LockStats.builder().counter(LockStats.RETRIES, retries)
                .counter(LockStats.ABORTS, 0).counter(LockStats.RESETS, 0)).build();
    }

    private void checkLockId(long lockId) {
        long n = table.spec().locks();
        if (lockId < 0 || lockId >= n) {
            throw new IllegalArgumentException("lock " + lockId + " outside [0, " + n + ")");
        }
    }

    private record RpcGrant(long lockId, Mode mode, long fencingToken) implements Grant {
    }
}
