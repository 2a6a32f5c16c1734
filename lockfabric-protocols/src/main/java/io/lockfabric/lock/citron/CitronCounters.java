package io.lockfabric.lock.citron;

import io.lockfabric.lock.LockStats;

/**
 * What one citron client counted beyond retries and aborts, read from its {@link LockStats}
 * ({@link #of}): node acquisitions
 * aborted because a notification may have come later than T_wait allows (inequation 1, the
 * paper's abort rate of §4.7), acquisitions that released their earlier nodes to break a deadlock
 * and restarted, leaves given up for their parent's bakery lock (starvation avoidance), and the
 * lease recoveries of §3.10: stuck tickets taken over, escalations to a stuck occupied ancestor,
 * stuck DCnt counters reset to DMax, and stale leaf bitmaps zeroed. Cumulative since the client
 * was opened (or over a phase, read from the difference of two snapshots).
 */
public record CitronCounters(long timingAborts, long yields, long escalations, long ticketResets,
                             long ancestorEscalations, long descendantResets, long leafClears) {
    /** Nothing counted yet. */
    public static final CitronCounters ZERO = new CitronCounters(0, 0, 0, 0, 0, 0, 0);
    /** Statistic: stuck tickets taken over (tree and spillover mutex). */
    public static final String TICKET_RESETS = "ticket-resets";
    /** Statistic: escalations to a stuck occupied ancestor. */
    public static final String ANCESTOR_ESCALATIONS = "ancestor-escalations";
    /** Statistic: stuck DCnt counters reset to DMax. */
    public static final String DESCENDANT_RESETS = "descendant-resets";
    /** Statistic: stale leaf bitmaps zeroed. */
    public static final String LEAF_CLEARS = "leaf-clears";

    /**
     * The counts a citron client reported in {@code stats} ({@link LockStats#TIMING_ABORTS},
     * {@link LockStats#YIELDS}, {@link LockStats#ESCALATIONS} and the four recoveries); all 0 for
     * statistics of another protocol.
     */
    public static CitronCounters of(LockStats stats) {
        return new CitronCounters(stats.counter(LockStats.TIMING_ABORTS), stats.counter(LockStats.YIELDS),
                stats.counter(LockStats.ESCALATIONS), stats.counter(TICKET_RESETS),
                stats.counter(ANCESTOR_ESCALATIONS), stats.counter(DESCENDANT_RESETS), stats.counter(LEAF_CLEARS));
    }

    /** Adds these counts to {@code stats}: what {@link #of} reads back. */
    LockStats.Builder addTo(LockStats.Builder stats) {
        return stats.counter(LockStats.TIMING_ABORTS, timingAborts).counter(LockStats.YIELDS, yields)
                .counter(LockStats.ESCALATIONS, escalations).counter(TICKET_RESETS, ticketResets)
                .counter(ANCESTOR_ESCALATIONS, ancestorEscalations).counter(DESCENDANT_RESETS, descendantResets)
                .counter(LEAF_CLEARS, leafClears);
    }

    /** All lease recoveries of the four kinds. */
    public long recoveries() {
        return ticketResets + ancestorEscalations + descendantResets + leafClears;
    }
}
