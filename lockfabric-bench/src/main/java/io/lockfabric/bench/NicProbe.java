package io.lockfabric.bench;

import io.lockfabric.sim.NicQueueing;

import java.util.Map;
import java.util.Objects;

/**
 * Where a memory node's RNIC made verbs wait during a run's measured phase (the simulator's
 * {@link NicQueueing}: waits for a processing unit vs for a word, the busiest words), with names
 * for the words the run's protocol could name ({@link io.lockfabric.lock.LockClient#describeAddress}),
 * and how busy its processing units and, when modelled, its link were ("MN NIC utilisation").
 * No report prints these unless an experiment asks for them.
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

    /**
     * "MN NIC utilisation" by verb rate: the share of the memory node's processing units' time
     * spent serving verbs over the measured phase.
     */
    public double unitBusyFraction() {
        return queueing.unitBusyFraction();
    }

    /**
     * "MN NIC utilisation" by bandwidth, compute nodes to memory node: the share of the measured
     * phase the memory node's inbound link was busy (0 unless the simulator models it:
     * {@link io.lockfabric.sim.SimConfig#mnLinkGbps()}).
     */
    public double linkInboundBusyFraction() {
        return queueing.linkInboundBusyFraction();
    }

    /** As {@link #linkInboundBusyFraction()}, memory node to compute nodes (READ data goes this way). */
    public double linkOutboundBusyFraction() {
        return queueing.linkOutboundBusyFraction();
    }

    /** The name of the word at {@code address}, or its hex address. */
    public String nameOf(long address) {
        return wordNames.getOrDefault(address, "0x" + Long.toHexString(address));
    }
}
