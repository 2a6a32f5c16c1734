package io.lockfabric.lock.declock;

import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.ValueHistogram;

/**
 * What a DecLock client (the flat {@code cql} lock or a hierarchical {@code declock-*} one) counted
 * beyond retries, aborts and resets, read from its {@link LockStats} ({@link #of}): the hierarchical
 * client's grants handed over within its node, its CQL acquisitions, and the local holders it found
 * dead; the CQL engine's resets forced for experiments and how long each completed reset took (from
 * RST set to the fresh header in place, DecLock §6.4 Fig. 16), and its refetch and member-list READs
 * (§4.3, Fig. 15). Counts a client does not have (a {@code cql} client's handovers) are 0.
 *
 * @param resetLatenciesNs the completed resets' durations, on the client's clock
 */
public record DecLockCounters(long localHandovers, long cqlAcquisitions, long deadLocals, long forcedResets,
                              long refetchReads, long memberReads, ValueHistogram resetLatenciesNs) {
    /** Statistic: grants handed over within the node without a memory-node operation. */
    public static final String LOCAL_HANDOVERS = "local-handovers";
    /** Statistic: CQL acquisitions a hierarchical client made for its node. */
    public static final String CQL_ACQUISITIONS = "cql-acquisitions";
    /** Statistic: local holders and CQL acquirers of the node found dead (or hung) and released for. */
    public static final String DEAD_LOCALS = "dead-locals";
    /** Statistic: resets asked for with {@code forceReset} or option {@code force-reset-ns}. */
    public static final String FORCED_RESETS = "forced-resets";
    /** Statistic: READs of queue entries that were not written yet when first read. */
    public static final String REFETCH_READS = "refetch-reads";
    /** Statistic: READs of the member list, for a queue entry naming a slot not seen yet. */
    public static final String MEMBER_READS = "member-reads";
    /** Statistic: memory-node restarts the client recovered from (present only if there was one). */
    public static final String MN_RECOVERIES = "mn-recoveries";
    /** Histogram statistic: the duration of each reset the client completed, ns. */
    public static final String RESET_LATENCY_NS = "reset-latency-ns";

    /** The counts a DecLock client reported in {@code stats}; all 0 (and no latency) for another protocol's. */
    public static DecLockCounters of(LockStats stats) {
        return new DecLockCounters(stats.counter(LOCAL_HANDOVERS), stats.counter(CQL_ACQUISITIONS),
                stats.counter(DEAD_LOCALS), stats.counter(FORCED_RESETS), stats.counter(REFETCH_READS),
                stats.counter(MEMBER_READS), stats.histogram(RESET_LATENCY_NS));
    }
}
