package io.lockfabric.check;

import io.lockfabric.lock.Mode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Checks a history of holds: no two conflicting holds (exclusive with anything, on overlapping
 * ranges, by different clients) overlap in time; and, for protocols with strict fencing, tokens
 * are ordered as {@link io.lockfabric.lock.Grant} promises.
 */
public final class MutualExclusionChecker {
    /** Stop collecting after this many violations: one is already a bug. */
    public static final int MAX_REPORTED = 100;

    private MutualExclusionChecker() {
    }

    /** Every pair of conflicting holds that overlap in time (up to {@link #MAX_REPORTED}). */
    public static List<Violation> overlaps(List<Hold> holds) {
        List<Hold> byGrant = new ArrayList<>(holds);
        byGrant.sort(Comparator.comparingLong(Hold::grantedAt));
        List<Violation> found = new ArrayList<>();
        List<Hold> active = new ArrayList<>();
        for (Hold h : byGrant) {
            for (Iterator<Hold> it = active.iterator(); it.hasNext(); ) {
                if (it.next().releasedAt() <= h.grantedAt()) {
                    it.remove();
                }
            }
            for (Hold a : active) {
                if (a.conflictsWith(h)) {
                    found.add(new Violation.Overlap(a, h));
                    if (found.size() >= MAX_REPORTED) {
                        return found;
                    }
                }
            }
            active.add(h);
        }
        return found;
    }

    /**
     * Fencing order, per mutex lock: tokens of exclusive grants strictly increase in grant order;
     * every grant's token is at least that of each exclusive grant released before it was granted.
     */
    public static List<Violation> fencing(List<Hold> holds) {
        Map<Long, List<Hold>> byLock = new HashMap<>();
        for (Hold h : holds) {
            byLock.computeIfAbsent(h.start(), k -> new ArrayList<>()).add(h);
        }
        List<Violation> found = new ArrayList<>();
        for (List<Hold> list : byLock.values()) {
            list.sort(Comparator.comparingLong(Hold::grantedAt));
            Hold lastExclusive = null;
            List<Hold> pendingExclusive = new ArrayList<>(); // granted, maybe not yet released
            Hold maxReleasedExclusive = null;
            for (Hold h : list) {
                for (Iterator<Hold> it = pendingExclusive.iterator(); it.hasNext(); ) {
                    Hold e = it.next();
                    if (e.releasedAt() <= h.grantedAt()) {
                        it.remove();
                        if (maxReleasedExclusive == null || e.token() > maxReleasedExclusive.token()) {
                            maxReleasedExclusive = e;
                        }
                    }
                }
                if (maxReleasedExclusive != null && h.token() < maxReleasedExclusive.token()) {
                    found.add(new Violation.Fencing(maxReleasedExclusive, h));
                }
                if (h.mode() == Mode.EXCLUSIVE) {
                    if (lastExclusive != null && h.token() <= lastExclusive.token()) {
                        found.add(new Violation.Fencing(lastExclusive, h));
                    }
                    lastExclusive = h;
                    pendingExclusive.add(h);
                }
                if (found.size() >= MAX_REPORTED) {
                    return found;
                }
            }
        }
        return found;
    }

    /** Exclusive grants per lock, what the guarded counters must add up to. */
    public static Map<Long, Long> exclusiveGrantsPerLock(List<Hold> holds) {
        Map<Long, Long> counts = new HashMap<>();
        for (Hold h : holds) {
            if (h.mode() == Mode.EXCLUSIVE) {
                counts.merge(h.start(), 1L, Long::sum);
            }
        }
        return counts;
    }
}
