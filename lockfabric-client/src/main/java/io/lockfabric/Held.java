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
     * one, restart when its counters are reset).
     */
    long fencingToken();

    /**
     * Whether the lock is still held: false once closed, and, on a protocol with leases, once the
     * hold is older than the lease (measured on the endpoint's clock from the grant), after which
     * other clients may take the lock and a write with this hold's {@link #fencingToken()} should be
     * refused; and once its endpoint has lost the memory node (the server died or was stopped: the
     * lock went with it). Such a loss is also told to the space's {@link LockSpace#onLoss loss
     * listeners}, once.
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
