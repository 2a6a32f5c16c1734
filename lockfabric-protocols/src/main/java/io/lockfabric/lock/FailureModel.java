package io.lockfabric.lock;

/**
 * What a protocol promises when a client fails. {@code recoversFromCrash}: a crashed holder's
 * locks become usable again by themselves; then {@code leaseNs} is the longest a holder may keep a
 * lock (a holder paused past it breaks the protocol's assumption, the double-holder hazard fencing
 * tokens guard against) and {@code recoveryBoundNs} bounds the time from a crash until the lock is
 * usable again, per crashed client ahead in the lock's queue (each dead client is skipped in turn). The simulator asserts liveness only within these promises.
 */
public record FailureModel(boolean recoversFromCrash, long leaseNs, long recoveryBoundNs, String summary) {
    public static final FailureModel NONE = new FailureModel(false, 0, 0,
            "no recovery: a crashed holder blocks its lock forever");

    public FailureModel {
        if (recoversFromCrash && (leaseNs <= 0 || recoveryBoundNs <= 0)) {
            throw new IllegalArgumentException("a recovering protocol needs a positive lease and recovery bound");
        }
    }

    public static FailureModel lease(long leaseNs, long recoveryBoundNs, String summary) {
        return new FailureModel(true, leaseNs, recoveryBoundNs, summary);
    }
}
