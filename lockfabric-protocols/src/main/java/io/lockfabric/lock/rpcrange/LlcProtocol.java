package io.lockfabric.lock.rpcrange;

/**
 * {@code llc}: CITRON's type-I baseline "LLC" (FAST'23 Table 1: a lock-free linked list of range
 * locks, Kogan et al. EuroSys'20, run by the lock server's CPU): the list is {@link LlcList}, served
 * by {@link LlcServer} on the memory node's CPU threads with CAS only; one rpc to acquire and one
 * to release (the {@code rpc-range} client and frames). Reader-writer (readers overlap readers,
 * never writers; waiters are parked on the node that blocks them and woken by its release, no
 * fairness), over [0, ∞), no options. {@code lld} is the same list with every step a one-sided verb.
 */
public final class LlcProtocol extends ServerCpuRangeProtocol {
    public static final String NAME = "llc";

    public LlcProtocol() {
        super(NAME, "server-side range lock manager on the memory node's CPU: lock-free linked list of ranges (CAS), "
                + "waiters woken by releases", LlcServer::new);
    }
}
