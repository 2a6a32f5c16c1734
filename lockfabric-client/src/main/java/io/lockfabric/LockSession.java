package io.lockfabric;

import io.lockfabric.lock.Mode;

import java.time.Duration;
import java.util.Optional;

/**
 * Several locks of one {@link LockSpace} held together on ONE endpoint of the pool: what a
 * transaction that takes a whole lock set needs ({@link LockSpace#session()}).
 *
 * <p>A {@link Held} from {@link LockSpace#acquire} keeps an endpoint of the pool until it is
 * released; a thread that takes twenty locks that way keeps twenty endpoints, and a few such threads
 * empty the pool and wait for each other forever. A session instead checks out one endpoint when it
 * takes its first lock, takes every further lock on that endpoint (the protocols let one client hold
 * several locks), and checks the endpoint in when its last lock is released. So a pool of {@code n}
 * endpoints runs {@code n} transactions at once, whatever their sizes.
 *
 * <p><b>Slots.</b> The session locks slots, not keys: a key whose slot the session already holds
 * in a mode that covers the one asked for (exclusive covers both) is granted at once as a nested
 * hold of the same grant, released with the last of its holds. Asking for the exclusive mode of a
 * slot the session holds shared is an {@link IllegalStateException} (the upgrade would wait for the
 * session itself). A caller that takes several locks orders them by {@link LockSpace#slotOf} (and
 * merges keys of one slot in the stronger mode) to stay deadlock-free against other sessions.
 *
 * <p><b>Giving up.</b> {@link #acquire} waits on the session's endpoint. {@link #tryAcquire} cannot
 * wait there: an abandoned queue lock's acquisition goes on until it is granted (see
 * {@link LockSpace}), and would keep the session's endpoint from releasing the session's other
 * locks. So a try waits on an endpoint of its own from the pool, as {@link LockSpace#tryAcquire}
 * does, and a lock it gets keeps that endpoint until released: a session that tries uses an
 * endpoint per lock, and gives up (empty) when it cannot have one within the wait.
 *
 * <p><b>A lost memory node.</b> When the session's endpoint loses its memory node, every open hold
 * of the session turns invalid and is reported to the space's {@linkplain LockSpace#onLoss loss
 * listeners} once; closing such a hold does nothing; the next acquisition of the session, once its
 * holds are closed, asks the pool for an endpoint again (a new connection, or a
 * {@link FabricUnreachableException}).
 *
 * <p><b>Leases.</b> A session's holds expire as plain holds do ({@link Held#isValid()}): on a
 * protocol with leases, a grant is valid for the lease counted from the start of its acquisition;
 * when it runs out, every open hold of that grant (the nested ones too) turns invalid and is told
 * to the loss listeners once, by the {@link LockFabric}'s lease timer, or at its close at the latest.
 * A lock taken by {@link #tryAcquire} is watched as its own request is, and told as the session's
 * holds of its slot.
 *
 * <p><b>Threads.</b> A session belongs to one thread at a time, as the endpoint it runs on: its
 * locks are taken and released (its holds closed) on that thread. Not thread-safe.
 */
public interface LockSession extends AutoCloseable {
    /** The space whose locks this session takes. */
    LockSpace space();

    /** {@link #acquire(String, Mode)} exclusive. */
    default Held acquire(String key) {
        return acquire(key, Mode.EXCLUSIVE);
    }

    /**
     * Waits until {@code key}'s slot is held in {@code mode} (at once if the session holds it in a
     * covering mode), on the session's endpoint, uninterruptibly (an interrupt is kept for after).
     *
     * @throws IllegalStateException       if the session holds the slot shared and asks for it exclusive
     * @throws FabricUnreachableException if the memory node is gone
     * @throws LockFabricException         if the protocol gives up on the lock or the fabric fails
     */
    Held acquire(String key, Mode mode);

    /**
     * Waits at most {@code wait} for {@code key} in {@code mode} on an endpoint of its own (see the
     * class comment); empty if it was not granted by then, and then nothing more is held.
     *
     * @throws IllegalStateException if the session holds the slot shared and asks for it exclusive
     * @throws LockFabricException   if the protocol gives up on the lock or the fabric fails
     */
    Optional<Held> tryAcquire(String key, Mode mode, Duration wait);

    /** The number of distinct slots the session holds now. */
    int heldSlots();

    /**
     * Releases every lock the session still holds (its holds turn invalid) and gives back its
     * endpoint. Idempotent; the session may be used again afterwards.
     *
     * @throws LockFabricException if the protocol failed to release a lock (the others are released)
     */
    @Override
    void close();
}
