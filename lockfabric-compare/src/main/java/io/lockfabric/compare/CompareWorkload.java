package io.lockfabric.compare;

/**
 * The workload every peer runs: {@code threads} client threads, each repeatedly choosing one of
 * {@code locks} locks (Zipf {@code zipf}, lock 0 hottest; 0 is uniform), taking it shared with
 * probability {@code readRatio} and otherwise exclusive, and releasing it at once; measured for
 * {@code durationNs} after {@code warmupNs} unmeasured.
 *
 * @param threads    client threads
 * @param locks      locks to choose from
 * @param zipf       the skew θ of the choice, 0 uniform
 * @param readRatio  the share of shared (read) acquisitions, 0 to 1
 * @param warmupNs   unmeasured time before the measurement
 * @param durationNs measured time
 * @param seed       the seed of the threads' random choices
 * @param virtualThreads whether the client threads are virtual threads (for every peer alike; LockFabric's
 *                   tcp fabrics are then built for virtual threads, {@code threads=virtual})
 */
public record CompareWorkload(int threads, int locks, double zipf, double readRatio, long warmupNs, long durationNs, long seed,
                              boolean virtualThreads) {
    /** A workload on platform threads. */
    public CompareWorkload(int threads, int locks, double zipf, double readRatio, long warmupNs, long durationNs, long seed) {
        this(threads, locks, zipf, readRatio, warmupNs, durationNs, seed, false);
    }

    /** Checks the values. */
    public CompareWorkload {
        if (threads < 1 || locks < 1) {
            throw new IllegalArgumentException("--threads and --locks must be at least 1");
        }
        if (!(zipf >= 0) || Double.isInfinite(zipf)) {
            throw new IllegalArgumentException("--zipf must be finite and >= 0, got " + zipf);
        }
        if (!(readRatio >= 0 && readRatio <= 1)) {
            throw new IllegalArgumentException("--read-ratio must be between 0 and 1, got " + readRatio);
        }
        if (durationNs <= 0 || warmupNs < 0) {
            throw new IllegalArgumentException("--duration must be positive and --warmup not negative");
        }
    }

    /** "virtual" or "platform": what the client threads are. */
    public String threadKind() {
        return virtualThreads ? "virtual" : "platform";
    }

    /** Whether any acquisition is shared. */
    public boolean reads() {
        return readRatio > 0;
    }
}
