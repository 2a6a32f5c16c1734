package io.lockfabric.bench;

import io.lockfabric.lock.LockStats;

import java.util.Optional;

/**
 * One client's side of a {@link Workload}: its lock client and what one of its operations is (the
 * point workload: take one lock, touch its data, release it; the range workload: take one range,
 * hold it, release it). The {@link ClientWorker} runs the phases around it and measures; the
 * session draws its operation, acquires, does its critical section and releases, recording its
 * grants in the run's history and the moments the runner measures in an {@link Operation}. Belongs
 * to its client's thread.
 */
public interface Session extends AutoCloseable {
    /** The group of a session whose workload does not group its clients. */
    long NO_GROUP = -1;

    /**
     * Does one operation. Reports when it was granted and when it began releasing, and what it
     * issued itself beyond the protocol's verbs, in {@code op}.
     */
    void operate(Operation op);

    /** The lock client's statistics so far ({@link io.lockfabric.lock.LockClient#stats()}). */
    LockStats stats();

    /**
     * The group the client's operations are reported under (the range workload: its range size),
     * or {@link #NO_GROUP}.
     */
    default long group() {
        return NO_GROUP;
    }

    /** What the lock client's protocol calls the memory word at {@code address}, if anything. */
    default Optional<String> describeAddress(long address) {
        return Optional.empty();
    }

    /** Closes the lock client. */
    @Override
    void close();
}
