package io.lockfabric.sim;

/**
 * Queueing at a simulated memory node's NIC, cumulative since the fabric started: verbs admitted,
 * the virtual time they spent waiting for a free processing unit and then for their word (the
 * per-address serialization of atomics and writes, and of those against READs), and the time
 * the units spent serving them.
 */
public record NicQueueing(long verbs, long unitWaitNs, long wordWaitNs, long serviceNs) {
    /** The queueing of the verbs admitted since {@code before}. */
    public NicQueueing minus(NicQueueing before) {
        return new NicQueueing(verbs - before.verbs, unitWaitNs - before.unitWaitNs, wordWaitNs - before.wordWaitNs,
                serviceNs - before.serviceNs);
    }

    /** Mean wait for a processing unit per verb, ns (0 without verbs). */
    public double unitWaitPerVerbNs() {
        return verbs == 0 ? 0 : (double) unitWaitNs / verbs;
    }

    /** Mean wait for the verb's word per verb, ns (0 without verbs). */
    public double wordWaitPerVerbNs() {
        return verbs == 0 ? 0 : (double) wordWaitNs / verbs;
    }

    /** Share of {@code units} processing units' time over {@code elapsedNs} spent serving verbs. */
    public double utilization(int units, long elapsedNs) {
        return units <= 0 || elapsedNs <= 0 ? 0 : (double) serviceNs / ((double) units * elapsedNs);
    }
}
