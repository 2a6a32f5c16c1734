package io.lockfabric.bench;

import io.lockfabric.check.Violation;

import java.util.List;

/**
 * What the checkers found in a run recorded with {@code check} on: holds recorded, whether fencing
 * was checked (only for protocols with strict fencing), and the violations (empty when clean).
 */
public record CheckResult(boolean enabled, long holds, long exclusiveGrants, boolean fencingChecked,
                          List<Violation> violations) {
    public static final CheckResult DISABLED = new CheckResult(false, 0, 0, false, List.of());

    public CheckResult {
        violations = List.copyOf(violations);
    }

    /** The same result with other violations (those left once hazards are set apart). */
    public CheckResult withViolations(List<Violation> kept) {
        return new CheckResult(enabled, holds, exclusiveGrants, fencingChecked, kept);
    }

    /** True if checking was on and found nothing wrong. */
    public boolean clean() {
        return enabled && violations.isEmpty();
    }

    /** {@code "off"}, {@code "ok"} or {@code "N violations"}. */
    public String summary() {
        if (!enabled) {
            return "off";
        }
        return violations.isEmpty() ? "ok" : violations.size() + (violations.size() == 1 ? " violation" : " violations");
    }
}
