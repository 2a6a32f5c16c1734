package io.lockfabric;

import io.lockfabric.lock.Mode;

/**
 * A lock held on the memory node: what {@link LockSpace#acquire} and {@link RangeSpace#acquire}
 * return, released by {@link #close()}.
 *
 * <p>A {@code Held} belongs to the handle, not to a thread: any thread may close it (a request
 * handed from one thread to another, a completion callback), once; later closes do nothing. Until
 * it is closed it keeps one endpoint of its {@link LockFabric}'s pool; the release runs on the
 * closing thread.
 *
 * <p>Thread-safe.
 */
public interface Held extends AutoCloseable {
    /** The key held ({@code "order:42"}), or for a range {@code "[4096, 8192)"}. */
    String key();

    /** The mode granted: a shared request on a protocol without shared mode is granted exclusive. */
    Mode mode();

    /**
     * The grant's fencing token: it increases from one exclusive grant of the lock's slot to the
     * next, so a store guarded by the lock can refuse writes with a token older than one it has
     * seen. Strictly so only where {@link LockSpace#strictFencing()} says so (DSLR's tickets, for
     * one, restart when its counters are reset). Holders of one process that passed a grant on
     * ({@link LockFabric.Builder#localHandovers}) share its token.
     */
    long fencingToken();

    /**
     * Whether the lock is still held: false once closed; on a protocol with leases, once the lease
     * ran out, after which the protocol's recovery may give the lock to other clients and a write
     * with this hold's {@link #fencingToken()} should be refused; and once its endpoint has lost the
     * memory node (the server died or was stopped: the lock went with it). Such a loss is also told
     * to the space's {@link LockSpace#onLoss loss listeners}, once per hold. The same for a hold of a
     * {@link LockSession}.
     *
     * <p>It may turn false early, never late: the lease is counted on the endpoint's clock from the
     * start of the acquisition (before the protocol's first verb, so the time the request waited
     * for the lock counts too), not from the grant, and shortened by 2% for clock rates (a 1 s lease
     * is valid for 980 ms after the request). Every recovery of the protocols waits out a lease
     * that starts after that moment, so no other client is granted the lock while this says true.
     * A hold whose request waited longer than that is lost as soon as it is granted. It is a hint
     * all the same: it can turn false right after it returned true, and a stall of the holder after
     * it looked is not seen; the fencing token is the defence.
     */
    boolean isValid();

    /**
     * Releases the lock on the calling thread and returns the endpoint to the pool. The first call
     * releases; later calls, from any thread, do nothing. Returns once the release is done; an
     * interrupt of the thread does not cut the release short (its status is set again afterwards).
     *
     * After a loss to the memory node it returns at once: there is nothing left to release.
     *
     * @throws LockFabricException if the protocol failed to release (the lock is then left as a
     *                             crashed client would leave it)
     */
    @Override
    void close();
}
