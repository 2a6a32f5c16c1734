package io.lockfabric.bench;

import io.lockfabric.sim.NicQueueing;

import java.util.Map;
import java.util.Objects;

/**
 * Where a memory node's RNIC made verbs wait during a run's measured phase (the simulator's
 * {@link NicQueueing}: waits for a processing unit vs for a word, the busiest words), with names
 * for the words the run's protocol could name ({@link io.lockfabric.lock.LockClient#describeAddress}).
 *
 * @param queueing  the memory node's queueing in the measured phase
 * @param wordNames names of the words in {@code queueing.words()} the protocol could name
 */
public record NicProbe(NicQueueing queueing, Map<Long, String> wordNames) {
    /** Words a run keeps in its queueing summary. */
    public static final int TOP_WORDS = 12;

    public NicProbe {
        Objects.requireNonNull(queueing, "queueing");
        wordNames = Map.copyOf(wordNames);
    }

    /** The name of the word at {@code address}, or its hex address. */
    public String nameOf(long address) {
        return wordNames.getOrDefault(address, "0x" + Long.toHexString(address));
    }
}
