package io.lockfabric.bench.range;

import io.lockfabric.lock.LockStats;
import io.lockfabric.sim.NicQueueing;

import java.util.Map;

/**
 * What a range run measured about its own mechanism, for the experiments that explain a result:
 * the protocol's statistics by the clients' range size (measured phase only; a protocol's typed
 * view, such as citron's profile, is read from them), and on the simulator where the memory node's
 * RNIC made verbs wait during the measured phase (null on other fabrics), with names for the words
 * that cost the most (as the protocol's client describes them).
 *
 * @param statsBySize the protocol's statistics summed over the clients of each range size
 * @param nic         the memory node's queueing in the measured phase, or null
 * @param wordNames   names of the words in {@code nic.words()} the protocol could name
 */
public record RangeMechanism(Map<Long, LockStats> statsBySize, NicQueueing nic, Map<Long, String> wordNames) {
    /** Words a run keeps in its queueing summary. */
    public static final int TOP_WORDS = 12;
    /** Nothing measured. */
    public static final RangeMechanism NONE = new RangeMechanism(Map.of(), null, Map.of());

    public RangeMechanism {
        statsBySize = Map.copyOf(statsBySize);
        wordNames = Map.copyOf(wordNames);
    }

    /** The name of the word at {@code address}, or its hex address. */
    public String nameOf(long address) {
        return wordNames.getOrDefault(address, "0x" + Long.toHexString(address));
    }
}
