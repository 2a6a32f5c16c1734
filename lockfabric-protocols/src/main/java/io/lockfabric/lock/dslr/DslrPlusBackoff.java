package io.lockfabric.lock.dslr;

import io.lockfabric.fabric.Clock;

import java.util.random.RandomGenerator;

/**
 * DSLR+'s waiting (DecLock §2.3 and §6: DSLR with truncated exponential backoff), with the
 * parameters of the DecLock artifact's DSLR baseline ({@code lock/dslr/lc.cc}): between two polls
 * of a lock word, a waiter sleeps {@code min(t, tMax) + uniform[0, 2000) ns}, where {@code t}
 * starts at {@value #BASE_NS} ns for each acquisition and doubles after every poll. {@code tMax}
 * starts at {@value #MAX_NS} ns ({@code 32 × base}) and adapts at most every
 * {@value #ADAPT_INTERVAL_NS} ns, when a poll fails, from the retry ratio r = failed polls /
 * (failed polls + acquisitions) counted since the start: r &gt; 0.7 doubles it (not above
 * {@value #MAX_NS}), r &lt; 0.5 halves it (not below {@value #BASE_NS}).
 *
 * <p>The artifact keeps those counts and the adaptation time per process (a compute node's
 * coroutines share them) and {@code tMax} per core; here each client keeps its own.
 *
 * <p>One per client, not thread-safe.
 */
final class DslrPlusBackoff {
    /** Artifact: {@code BASE_BACKOFF}, ns. */
    static final long BASE_NS = 100;
    /** Artifact: {@code MAX_BACKOFF = 32 * BASE_BACKOFF}, ns. */
    static final long MAX_NS = 32 * BASE_NS;
    /** Artifact: {@code random(2000)} added to every wait, ns. */
    static final long JITTER_NS = 2000;
    /** Artifact: {@code TMAX_CHANGE_INTERVAL}, 100 us. */
    static final long ADAPT_INTERVAL_NS = 100_000;
    static final double GROW_ABOVE = 0.7;
    static final double SHRINK_BELOW = 0.5;

    private final Clock clock;
    private final RandomGenerator random;
    private long tMaxNs = MAX_NS;
    private long lastAdaptNs;
    private boolean adapted;
    private long failedPolls;
    private long acquisitions;
    private long nextNs = BASE_NS;
    private long waits;

    DslrPlusBackoff(Clock clock, RandomGenerator random) {
        this.clock = clock;
        this.random = random;
    }

    /** A new acquisition begins (its ticket taken): the exponential part restarts from the base. */
    void acquisition() {
        acquisitions++;
        nextNs = BASE_NS;
    }

    /** A poll (or the ticket) did not show the grant: how long to sleep before the next poll, ns. */
    long nextWaitNs() {
        failedPolls++;
        waits++;
        long now = clock.nanoTime();
        if (!adapted || now - lastAdaptNs > ADAPT_INTERVAL_NS) {
            double ratio = (double) failedPolls / (failedPolls + acquisitions);
            if (ratio > GROW_ABOVE && tMaxNs < MAX_NS) {
                tMaxNs *= 2;
            }
            if (ratio < SHRINK_BELOW && tMaxNs > BASE_NS) {
                tMaxNs /= 2;
            }
            adapted = true;
            lastAdaptNs = now;
        }
        long wait = Math.min(nextNs, tMaxNs) + random.nextLong(JITTER_NS);
        if (nextNs < MAX_NS) {
            nextNs *= 2;
        }
        return wait;
    }

    /** The current cap on the exponential part, ns. */
    long maxBackoffNs() {
        return tMaxNs;
    }

    /** Waits handed out so far. */
    long waits() {
        return waits;
    }
}
