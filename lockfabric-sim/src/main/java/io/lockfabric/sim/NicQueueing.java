package io.lockfabric.sim;

import java.util.List;

/**
 * Where the verbs a simulated memory-node RNIC served waited, since tracking began
 * ({@link SimFabric#trackMemoryNodeQueueing}). A verb that is ready (arrived, and its batch
 * predecessor started) first waits for a free processing unit ({@code unitWaitNs}: the NIC is
 * busy), then, holding that unit, for the words it touches ({@code wordWaitNs}: atomics and writes
 * on one word are serialized for {@code sameWordSerialNs} each; a READ waits for the atomics queued
 * on its words). A unit held by a verb waiting for its word serves nobody, so word waits also show
 * up as other verbs' unit waits.
 *
 * @param verbs          verbs served
 * @param exclusiveVerbs atomics and writes among them
 * @param unitWaitNs     summed waits for a processing unit
 * @param wordWaitNs     summed waits for a word, after a unit was free
 * @param serviceNs      summed service times
 * @param words          the words with the most summed word wait, most first (at most the number
 *                       asked for)
 */
public record NicQueueing(long verbs, long exclusiveVerbs, long unitWaitNs, long wordWaitNs, long serviceNs,
                          List<Word> words) {
    public NicQueueing {
        words = List.copyOf(words);
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
