package io.lockfabric.lock.citron;

/**
 * What one citron client counted beyond {@link io.lockfabric.lock.LockStats}: node acquisitions
 * aborted because a notification may have come later than T_wait allows (inequation 1, the
 * paper's abort rate of §4.7), acquisitions that released their earlier nodes to break a deadlock
 * and restarted, leaves given up for their parent's bakery lock (starvation avoidance), and the
 * lease recoveries of §3.10: stuck tickets taken over, escalations to a stuck occupied ancestor,
 * stuck DCnt counters reset to DMax, and stale leaf bitmaps zeroed. Cumulative since the client
 * was opened.
 */
public record CitronCounters(long timingAborts, long yields, long escalations, long ticketResets,
                             long ancestorEscalations, long descendantResets, long leafClears) {
    /** Nothing counted yet. */
    public static final CitronCounters ZERO = new CitronCounters(0, 0, 0, 0, 0, 0, 0);

    /** All lease recoveries of the four kinds. */
    public long recoveries() {
        return ticketResets + ancestorEscalations + descendantResets + leafClears;
    }
}
