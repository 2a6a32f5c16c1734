package io.lockfabric.check;

import io.lockfabric.lock.Mode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Checks a history of range grants: two holds of different clients whose ranges [start, end)
 * overlap must not overlap in time unless both are shared (readers overlap readers only). A hold
 * with {@code end <= start} is malformed and reported as such. The range counterpart of
 * {@link MutualExclusionChecker#overlaps}, with a sweep that keeps the active holds ordered by
 * start so each new hold is compared only with holds that can overlap it in space.
 */
public final class RangeExclusionChecker {
    private RangeExclusionChecker() {
    }

    /** Every pair of conflicting holds that overlap in time and space (up to {@link MutualExclusionChecker#MAX_REPORTED}). */
    public static List<Violation> violations(List<Hold> holds) {
        List<Violation> found = new ArrayList<>();
        List<Hold> byGrant = new ArrayList<>(holds.size());
        for (Hold h : holds) {
            if (h.end() <= h.start()) {
                throw new IllegalArgumentException("malformed range hold: " + h);
            }
            byGrant.add(h);
        }
        byGrant.sort(Comparator.comparingLong(Hold::grantedAt));
        // Active holds sorted by start; at most one hold per client is active in a sane history,
        // so this stays small, but a broken lock (many overlapping holds) is still reported.
        List<Hold> active = new ArrayList<>();
        for (Hold h : byGrant) {
            active.removeIf(a -> a.releasedAt() <= h.grantedAt());
            for (Hold a : active) {
                if (a.start() >= h.end()) {
                    break;
                }
                if (conflict(a, h)) {
                    found.add(new Violation.Overlap(a, h));
                    if (found.size() >= MutualExclusionChecker.MAX_REPORTED) {
                        return found;
                    }
                }
            }
            int at = 0;
            while (at < active.size() && active.get(at).start() <= h.start()) {
                at++;
            }
            active.add(at, h);
        }
        return found;
    }

    /**
     * Fencing order for range locks ({@link io.lockfabric.lock.Grant}'s contract per overlapping
     * range): of two holds whose ranges overlap, the one granted after the other was released has a
     * larger token if both are exclusive, and a token at least as large if the later is shared.
     * Pairs that overlap in time are left to {@link #violations}. Quadratic in the worst case.
     */
    public static List<Violation> fencing(List<Hold> holds) {
        List<Violation> found = new ArrayList<>();
        List<Hold> byGrant = new ArrayList<>(holds);
        byGrant.sort(Comparator.comparingLong(Hold::grantedAt));
        for (int i = 0; i < byGrant.size(); i++) {
            Hold later = byGrant.get(i);
            for (int j = 0; j < i; j++) {
                Hold earlier = byGrant.get(j);
                if (earlier.mode() != Mode.EXCLUSIVE || !earlier.overlapsInSpace(later)
                        || earlier.releasedAt() > later.grantedAt()) {
                    continue;
                }
                boolean ok = later.mode() == Mode.EXCLUSIVE ? later.token() > earlier.token()
                        : later.token() >= earlier.token();
                if (!ok) {
                    found.add(new Violation.Fencing(earlier, later));
                    if (found.size() >= MutualExclusionChecker.MAX_REPORTED) {
                        return found;
                    }
                }
            }
        }
        return found;
    }

    /** Different clients, overlapping ranges and times, and not both readers. */
    public static boolean conflict(Hold a, Hold b) {
        return a.client() != b.client() && (a.mode() == Mode.EXCLUSIVE || b.mode() == Mode.EXCLUSIVE)
                && a.overlapsInSpace(b) && a.overlapsInTime(b);
    }
}
