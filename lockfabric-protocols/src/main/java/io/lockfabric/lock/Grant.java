package io.lockfabric.lock;

/**
 * A lock held by a client: what {@link LockClient#acquire} returns and {@link LockClient#release}
 * takes back. Protocols implement it with a record that also carries their per-acquisition state.
 *
 * <p>The <b>fencing token</b> orders grants of one lock: it strictly increases from one exclusive
 * grant to the next, and a shared grant's token is at least that of every exclusive grant released
 * before it. A resource guarded by the lock can reject writes carrying a token older than one it
 * has seen. Protocols whose tokens restart (DSLR's tickets at an overflow reset) say so in
 * {@link LockProtocol#strictFencing()}.
 */
public interface Grant {
    long lockId();

    /** The mode granted (an exclusive-only protocol grants shared requests as exclusive). */
    Mode mode();

    long fencingToken();

    /** {@link #leaseStartNs()} of a grant whose protocol does not say when its lease began. */
    long UNKNOWN_LEASE_START = Long.MIN_VALUE;

    /**
     * When this grant's lease began, as the protocol's recovery counts it: a time on the acquiring
     * client's clock ({@code Clock.nanoTime()} of its endpoint; a grant handed over between the
     * clients of one compute node may carry a time of a node-mate's clock, which the fabrics keep
     * within drift of it) such that no recovery of the protocol gives the lock to another client
     * before a lease has passed since then (on the recovering client's clock). For a grant the
     * client acquired itself it is no earlier than the start of the acquisition; a grant inherited
     * from another client's acquisition may carry that acquisition's, earlier. Protocol code does not
     * read it; the client API counts a hold's lease from it ({@code io.lockfabric.Held#isValid}).
     * {@link #UNKNOWN_LEASE_START} (the default) if the protocol does not say: a caller then counts
     * from before its acquire call, which is safe for every protocol that resets a lock only a lease
     * after it saw the holder's acquisition.
     */
    default long leaseStartNs() {
        return UNKNOWN_LEASE_START;
    }
}
