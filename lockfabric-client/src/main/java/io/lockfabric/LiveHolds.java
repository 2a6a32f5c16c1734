package io.lockfabric;

import io.lockfabric.client.KeyHash;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The requests of a {@link LockFabric} not ended yet: what its close ends and its lease sweep
 * visits. Stripes of intrusive lists, by a hash of the request's sequence number: a hold links
 * itself through its own fields, so that tracking and untracking, on every acquisition and release,
 * allocate and box nothing. Each stripe's monitor guards its list and the link fields of the holds
 * on it.
 */
final class LiveHolds {
    /** A power of two. */
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

    /**
     * The stripe of {@code h}, by a hash of its sequence number: in real time that is its submission
     * time ({@link LockFabric#track}), whose low bits a coarse clock may hold fixed.
     */
    private Stripe stripe(PooledHold h) {
        return stripes[(int) KeyHash.fmix64(h.sequence) & (STRIPES - 1)];
    }

    /** Adds {@code h}, whose {@link PooledHold#sequence} is set and which is not on the list yet. */
    void add(PooledHold h) {
        Stripe s = stripe(h);
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
        Stripe s = stripe(h);
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
