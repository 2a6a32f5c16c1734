package io.lockfabric;

import io.lockfabric.client.KeyHash;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The requests of a {@link LockFabric} not ended yet: what its close ends and its lease sweep
 * visits. Stripes of intrusive lists: a hold links itself through its own fields, so that tracking
 * and untracking, on every acquisition and release, allocate and box nothing. Each stripe's monitor
 * guards its list and the link fields of the holds on it.
 *
 * <p>A hold goes on the stripe of the thread that adds it (its id picks it), and remembers which:
 * a thread that acquires and releases finds its stripe's line in its own processor's cache. (By
 * sequence number, consecutive requests took different stripes, and on two processors nearly
 * every add and remove fetched the line from the other one.) The order of a {@link #snapshot} is
 * that of the sequence numbers, whatever the stripes.
 */
final class LiveHolds {
    /** A power of two: threads seldom share one. */
    private static final int STRIPES = 16;
    private final Stripe[] stripes = new Stripe[STRIPES];

    /**
     * One list of holds, guarded by its monitor. Padded to more than a cache line, so that two
     * stripes never share one.
     */
    @SuppressWarnings("unused")
    private static final class Stripe {
        PooledHold head;
        private long p1, p2, p3, p4, p5, p6, p7;
    }

    LiveHolds() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
    }

    /** Adds {@code h}, whose {@link PooledHold#sequence} is set and which is not on the list yet. */
    void add(PooledHold h) {
        int i = (int) KeyHash.fmix64(Thread.currentThread().threadId()) & (STRIPES - 1);
        h.liveStripe = i;
        Stripe s = stripes[i];
        synchronized (s) {
            PooledHold first = s.head;
            h.liveNext = first;
            h.livePrev = null;
            if (first != null) {
                first.livePrev = h;
            }
            s.head = h;
            h.live = true;
        }
    }

    /** Removes {@code h} if it is on the list (a request may end more than once, or never be added). */
    void remove(PooledHold h) {
        Stripe s = stripes[h.liveStripe]; // set before h was published to other threads, or 0 (never added)
        synchronized (s) {
            if (!h.live) {
                return;
            }
            PooledHold prev = h.livePrev;
            PooledHold next = h.liveNext;
            if (prev == null) {
                s.head = next;
            } else {
                prev.liveNext = next;
            }
            if (next != null) {
                next.livePrev = prev;
            }
            h.liveNext = null;
            h.livePrev = null;
            h.live = false;
        }
    }

    /** The holds on the list now, in the order of their requests (their sequence numbers). */
    List<PooledHold> snapshot() {
        List<PooledHold> all = new ArrayList<>();
        for (Stripe s : stripes) {
            synchronized (s) {
                for (PooledHold h = s.head; h != null; h = h.liveNext) {
                    all.add(h);
                }
            }
        }
        all.sort(Comparator.comparingLong(h -> h.sequence));
        return all;
    }
}
