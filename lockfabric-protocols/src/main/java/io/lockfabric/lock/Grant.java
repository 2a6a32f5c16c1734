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
}
