package io.lockfabric.lock;

import io.lockfabric.fabric.Durations;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What a protocol promises when a client fails. {@code recoversFromCrash}: a crashed holder's
 * locks become usable again by themselves; then {@code recoveryBoundNs} bounds the time from a
 * crash until the lock is usable again, per crashed client ahead in the lock's queue (each dead
 * client is skipped in turn). The simulator asserts liveness only within these promises.
 *
 * <p>{@code leaseNs} (0: none) is the longest a holder in one of {@code leasedModes} may keep a
 * lock: a holder paused past it breaks the protocol's assumption, the double-holder hazard fencing
 * tokens guard against. A lease does not imply recovery: DrTM's readers hold a time lease that a
 * writer waits out, while a crashed DrTM writer blocks its lock forever ({@link #readLease}).
 *
 * <p>{@code summary} says how the protocol recovers (or that it does not), in words: no lease or
 * bound in it, as those are the fields above, and {@link #describe} renders them once.
 */
public record FailureModel(boolean recoversFromCrash, long leaseNs, long recoveryBoundNs, String summary,
                           Set<Mode> leasedModes) {
    public static final FailureModel NONE = new FailureModel(false, 0, 0,
            "no recovery: a crashed holder blocks its lock forever");

    public FailureModel {
        if (recoversFromCrash && (leaseNs <= 0 || recoveryBoundNs <= 0)) {
            throw new IllegalArgumentException("a recovering protocol needs a positive lease and recovery bound");
        }
        if (leaseNs < 0) {
            throw new IllegalArgumentException("a lease cannot be negative, got " + leaseNs);
        }
        leasedModes = Set.copyOf(Objects.requireNonNull(leasedModes, "leasedModes"));
    }

    /** A model whose lease (if any) binds holders in every mode. */
    public FailureModel(boolean recoversFromCrash, long leaseNs, long recoveryBoundNs, String summary) {
        this(recoversFromCrash, leaseNs, recoveryBoundNs, summary, EnumSet.allOf(Mode.class));
    }

    /** Lease-based recovery: every holder is leased, a crashed client's locks recover within the bound. */
    public static FailureModel lease(long leaseNs, long recoveryBoundNs, String summary) {
        return new FailureModel(true, leaseNs, recoveryBoundNs, summary);
    }

    /**
     * No recovery from a crashed writer, but shared holders keep the lock at most {@code leaseNs}
     * (a time lease that writers wait out, as DrTM's readers do).
     */
    public static FailureModel readLease(long leaseNs, String summary) {
        if (leaseNs <= 0) {
            throw new IllegalArgumentException("a read lease must be positive, got " + leaseNs);
        }
        return new FailureModel(false, leaseNs, 0, summary, EnumSet.of(Mode.SHARED));
    }

    /**
     * The model in one line, as every listing prints it: the summary, then the lease and recovery
     * bound formatted as durations, e.g. {@code ... (lease 10ms, recovery bound 23.5ms per crashed
     * client)}, or {@code ... (readers hold at most 500us)} for a lease without recovery.
     */
    public String describe() {
        String holders = leasedModes.equals(Set.of(Mode.SHARED)) ? "readers"
                : leasedModes.equals(Set.of(Mode.EXCLUSIVE)) ? "writers" : null;
        if (recoversFromCrash) {
            return summary + " (lease " + Durations.format(leaseNs) + (holders == null ? "" : " for " + holders)
                    + ", recovery bound " + Durations.format(recoveryBoundNs) + " per crashed client)";
        }
        if (leaseNs > 0 && !leasedModes.isEmpty()) {
            return summary + " (" + (holders == null ? "holders" : holders) + " hold at most "
                    + Durations.format(leaseNs) + ")";
        }
        return summary;
    }

    /** Whether a holder in {@code mode} is bound by a lease (and pausing it past the lease is the known hazard). */
    public boolean leases(Mode mode) {
        return leaseNs > 0 && leasedModes.contains(mode);
    }
}
