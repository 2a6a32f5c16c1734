package io.lockfabric.lock.rpcrange;

/**
 * {@code rpc-range}: the server-side range lock baseline (CITRON's "IT", Lustre-style): an interval
 * tree of granted ranges and a FIFO of waiting requests on the memory node's CPU
 * ({@link RpcRangeServer}), one rpc to acquire and one to release ({@link RpcRangeClient}).
 * Reader-writer, over [0, ∞), no options.
 */
public final class RpcRangeProtocol extends ServerCpuRangeProtocol {
    public static final String NAME = "rpc-range";

    public RpcRangeProtocol() {
        super(NAME, "server-side range lock manager on the memory node's CPU: interval tree of grants, FIFO of waiters",
                RpcRangeServer::new);
    }
}
