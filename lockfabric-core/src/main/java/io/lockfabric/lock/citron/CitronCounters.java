package io.lockfabric.lock.citron;

/**
 * What one citron client counted beyond {@link io.lockfabric.lock.LockStats}: node acquisitions
 * aborted because a notification may have come later than T_wait allows (inequation 1, the
 * paper's abort rate of §4.7), acquisitions that released their earlier nodes to break a deadlock
 * and restarted, and leaves given up for their parent's bakery lock (starvation avoidance).
 * Cumulative since the client was opened.
 */
public record CitronCounters(long timingAborts, long yields, long escalations) {
}
