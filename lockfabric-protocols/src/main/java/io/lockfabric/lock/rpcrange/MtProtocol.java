package io.lockfabric.lock.rpcrange;

/**
 * {@code mt}: CITRON's type-I baseline "MT" (FAST'23 Table 1: "Maple tree", ported from Oracle
 * Linux UEK): a B-tree of disjoint held ranges on the memory node's CPU ({@link MtServer},
 * {@link RangeBTree}), one rpc to acquire and one to release (the {@code rpc-range} client and
 * frames). Reader-writer (readers overlap readers, never writers; waiters are queued and woken by
 * releases, FIFO among overlapping requests), over [0, ∞), no options.
 */
public final class MtProtocol extends ServerCpuRangeProtocol {
    public static final String NAME = "mt";

    public MtProtocol() {
        super(NAME, "server-side range lock manager on the memory node's CPU: B-tree of disjoint held ranges "
                + "(Maple-tree style), FIFO of waiters", MtServer::new);
    }
}
