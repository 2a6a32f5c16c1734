package io.lockfabric.sim;

import java.util.List;

/**
 * Where the verbs a simulated memory-node RNIC served waited, since tracking began
 * ({@link SimFabric#trackMemoryNodeQueueing}). A verb that is ready (arrived, and its batch
 * predecessor started) first waits for a free processing unit ({@code unitWaitNs}: the NIC is
 * busy), then, holding that unit, for the words it touches ({@code wordWaitNs}: atomics and writes
 * on one word are serialized for {@code sameWordSerialNs} each; a READ waits for the atomics queued
 * on its words). A unit held by a verb waiting for its word serves nobody, so word waits also show
 * up as other verbs' unit waits. With the memory node's link modelled
 * ({@link SimConfig#mnLinkGbps()}), {@code link} says how busy each direction was meanwhile;
 * {@link #unitBusyFraction()} and {@link Link#inboundBusyFraction} give "MN NIC utilisation" as
 * the verb units' and the link's busy fractions over the window.
 *
 * @param verbs          verbs served
 * @param exclusiveVerbs atomics and writes among them
 * @param unitWaitNs     summed waits for a processing unit
 * @param wordWaitNs     summed waits for a word, after a unit was free
 * @param serviceNs      summed service times
 * @param words          the words with the most summed word wait, most first (at most the number
 *                       asked for)
 * @param units          the RNIC's processing units ({@link SimConfig#nicUnits()}); 0 if unknown
 * @param windowNs       virtual time tracked (0 if unknown)
 * @param link           the memory node's link over the window ({@link Link#NONE} when not modelled)
 */
public record NicQueueing(long verbs, long exclusiveVerbs, long unitWaitNs, long wordWaitNs, long serviceNs,
                          List<Word> words, int units, long windowNs, Link link) {
    public NicQueueing {
        words = List.copyOf(words);
        java.util.Objects.requireNonNull(link, "link");
    }

    /** Queueing without the window, the units or the link (an empty probe, say). */
    public NicQueueing(long verbs, long exclusiveVerbs, long unitWaitNs, long wordWaitNs, long serviceNs,
                       List<Word> words) {
        this(verbs, exclusiveVerbs, unitWaitNs, wordWaitNs, serviceNs, words, 0, 0, Link.NONE);
    }

    /** Share of the processing units' time over the tracked window spent serving verbs (0 if unknown). */
    public double unitBusyFraction() {
        return utilization(units, windowNs);
    }

    /** Share of the window the inbound (compute nodes to memory node) link was busy; 0 without a link. */
    public double linkInboundBusyFraction() {
        return link.inboundBusyFraction(windowNs);
    }

    /** Share of the window the outbound (memory node to compute nodes) link was busy; 0 without a link. */
    public double linkOutboundBusyFraction() {
        return link.outboundBusyFraction(windowNs);
    }

    /** Mean wait for a processing unit per verb, ns (0 without verbs). */
    public double unitWaitPerVerbNs() {
        return verbs == 0 ? 0 : (double) unitWaitNs / verbs;
    }

    /** Mean wait for the verb's words per verb, ns (0 without verbs). */
    public double wordWaitPerVerbNs() {
        return verbs == 0 ? 0 : (double) wordWaitNs / verbs;
    }

    /** Share of {@code units} processing units' time over {@code elapsedNs} spent serving verbs. */
    public double utilization(int units, long elapsedNs) {
        return units <= 0 || elapsedNs <= 0 ? 0 : (double) serviceNs / ((double) units * elapsedNs);
    }

    /**
     * The memory node's link over a window: how long each direction serialized bytes, and how many
     * (headers included).
     *
     * @param gbps           its rate, Gb/s per direction (0: not modelled)
     * @param inboundBusyNs  time the inbound direction (requests: WRITE data, atomic operands) was busy
     * @param outboundBusyNs time the outbound direction (replies: READ data) was busy
     * @param inboundBytes   bytes it carried in
     * @param outboundBytes  bytes it carried out
     */
    public record Link(double gbps, long inboundBusyNs, long outboundBusyNs, long inboundBytes, long outboundBytes) {
        /** No link modelled. */
        public static final Link NONE = new Link(0, 0, 0, 0, 0);

        /** Whether the link was modelled. */
        public boolean modelled() {
            return gbps > 0;
        }

        /** Share of {@code windowNs} the inbound direction was busy (0 without a window). */
        public double inboundBusyFraction(long windowNs) {
            return windowNs <= 0 ? 0 : (double) inboundBusyNs / windowNs;
        }

        /** Share of {@code windowNs} the outbound direction was busy (0 without a window). */
        public double outboundBusyFraction(long windowNs) {
            return windowNs <= 0 ? 0 : (double) outboundBusyNs / windowNs;
        }
    }

    /**
     * One word's share.
     *
     * @param address        its address on the memory node
     * @param exclusiveVerbs atomics and writes on it
     * @param reads          READs that touched it
     * @param wordWaitNs     summed waits of verbs whose start this word decided
     * @param delayedVerbs   verbs that waited for this word
     */
    public record Word(long address, long exclusiveVerbs, long reads, long wordWaitNs, long delayedVerbs) {
    }
}
