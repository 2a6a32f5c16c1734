package io.lockfabric.fabric;

/**
 * The plumbing every fabric's queue pair shares: the memory node it reaches and the count of
 * every verb, byte and rpc its owner sent ({@link Counters}, written by the owner's thread only).
 * A fabric extends it with how verbs travel. Not thread-safe beyond what {@link QueuePair} is.
 */
public abstract class CountingQueuePair implements QueuePair {
    /** What this queue pair sent: the subclass records every verb and rpc that it executes. */
    protected final Counters counters = new Counters();
    private final int memoryNode;

    protected CountingQueuePair(int memoryNode) {
        this.memoryNode = memoryNode;
    }

    @Override
    public final int memoryNode() {
        return memoryNode;
    }

    /** What this queue pair has sent so far (exact once its owner stopped). */
    public final CounterSnapshot counters() {
        return counters.snapshot();
    }
}
