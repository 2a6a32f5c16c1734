package io.lockfabric.lock;

import io.lockfabric.fabric.Clock;

import java.util.random.RandomGenerator;

/**
 * SMART's truncated exponential backoff (ASPLOS'24), as used by the ShiftLock artifact's CAS
 * baseline: retry {@code i} waits {@code min(maxB, init << min(i, 10)) + uniform[0, init)}.
 * {@code maxB} starts at {@code init} and adapts from the retry rate r = retries / (retries +
 * completions) counted since its last adaptation: r < 0.1 halves it (not below {@code init}),
 * r > 0.5 doubles it (not above {@code init << 10}).
 *
 * <p>When it adapts follows the ShiftLock artifact's benchmark loop: a client checks after every
 * {@link #ADAPT_BATCH} completed acquisitions whether {@link #ADAPT_PERIOD_NS} has passed since the
 * last adaptation. A client that completes acquisitions slowly (one hot lock among hundreds of
 * clients) therefore adapts slowly too: on ShiftLock §2.3's single lock, 240 clients take seconds to
 * climb from {@code init} to a backoff that stops the retry storm.
 *
 * <p>One per client (not thread-safe). {@code init = 0} disables waiting (retry at once).
 */
public final class TruncatedExponentialBackoff {
    /** The ShiftLock artifact's initial backoff. */
    public static final long DEFAULT_INIT_NS = 1862;
    public static final long ADAPT_PERIOD_NS = 1_000_000;
    /** Completed acquisitions between two checks of the adaptation period (the artifact's BATCH). */
    public static final int ADAPT_BATCH = 64;
    static final int MAX_SHIFT = 10;
    static final double LOW_RETRY_RATE = 0.1;
    static final double HIGH_RETRY_RATE = 0.5;

    private final Clock clock;
    private final RandomGenerator random;
    private final long initNs;
    private long maxBackoffNs;
    private long periodStartNs;
    private long periodRetries;
    private long periodCompletions;
    private int batchCompletions;

    public TruncatedExponentialBackoff(Clock clock, RandomGenerator random, long initNs) {
        if (initNs < 0) {
            throw new IllegalArgumentException("initial backoff must be >= 0, got " + initNs);
        }
        this.clock = clock;
        this.random = random;
        this.initNs = initNs;
        this.maxBackoffNs = initNs;
        this.periodStartNs = clock.nanoTime();
    }

    /** Waits before retry number {@code retry} (0 for the first retry). */
    public void backoff(int retry) {
        periodRetries++;
        if (initNs == 0) {
            return;
        }
        long exp = initNs << Math.min(retry, MAX_SHIFT);
        clock.sleepNanos(Math.min(maxBackoffNs, exp) + random.nextLong(initNs));
    }

    /** Records a completed acquisition; every {@link #ADAPT_BATCH}-th adapts {@code maxB} if a period has passed. */
    public void completed() {
        periodCompletions++;
        if (initNs == 0 || ++batchCompletions < ADAPT_BATCH) {
            return;
        }
        batchCompletions = 0;
        long now = clock.nanoTime();
        if (now - periodStartNs >= ADAPT_PERIOD_NS) {
            double rate = (double) periodRetries / (periodRetries + periodCompletions);
            if (rate < LOW_RETRY_RATE) {
                maxBackoffNs = Math.max(initNs, maxBackoffNs / 2);
            } else if (rate > HIGH_RETRY_RATE) {
                maxBackoffNs = Math.min(initNs << MAX_SHIFT, maxBackoffNs * 2);
            }
            periodStartNs = now;
            periodRetries = 0;
            periodCompletions = 0;
        }
    }

    /** The current cap on the exponential part. */
    public long maxBackoffNs() {
        return maxBackoffNs;
    }
}
