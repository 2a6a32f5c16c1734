package io.lockfabric.bench.range;

import io.lockfabric.lock.citron.CitronProfile;
import io.lockfabric.sim.NicQueueing;

import java.util.Map;

/**
 * What a range run measured about its own mechanism, for the experiments that explain a result:
 * where citron's acquisitions spent their time (summed over clients, measured phase only;
 * {@link CitronProfile#ZERO} for other protocols), and on the simulator where the memory node's
 * RNIC made verbs wait during the measured phase (null on other fabrics), with names for the words
 * that cost the most (citron: the tree node a word holds).
 *
 * @param citron    citron's phase profile, summed over clients
 * @param citronBySize the same by the clients' range size
 * @param nic       the memory node's queueing in the measured phase, or null
 * @param wordNames names of the words in {@code nic.words()} the protocol could name
 */
public record RangeMechanism(CitronProfile citron, Map<Long, CitronProfile> citronBySize, NicQueueing nic,
                             Map<Long, String> wordNames) {
    /** Words a run keeps in its queueing summary. */
    public static final int TOP_WORDS = 12;
    /** Nothing measured. */
    public static final RangeMechanism NONE = new RangeMechanism(CitronProfile.ZERO, Map.of(), null, Map.of());

    public RangeMechanism {
        citronBySize = Map.copyOf(citronBySize);
        wordNames = Map.copyOf(wordNames);
    }

    /** The name of the word at {@code address}, or its hex address. */
    public String nameOf(long address) {
        return wordNames.getOrDefault(address, "0x" + Long.toHexString(address));
    }
}
