package io.lockfabric.lock;

import io.lockfabric.fabric.Clock;

import java.util.random.RandomGenerator;

/**
 * SMART's truncated exponential backoff (ASPLOS'24), as used by the ShiftLock artifact's CAS
 * baseline: retry {@code i} waits {@code min(maxB, init << min(i, 10)) + uniform[0, init)}.
 * {@code maxB} starts at {@code init} and adapts at most once per {@link #ADAPT_PERIOD_NS} from the
 * retry rate r = retries / (retries + completions) of that period: r < 0.1 halves it (not below
 * {@code init}), r > 0.5 doubles it (not above {@code init << 10}).
 *
 * <p>One per client (not thread-safe). {@code init = 0} disables waiting (retry at once).
 */
public final class TruncatedExponentialBackoff {
    /** The ShiftLock artifact's initial backoff. */
    public static final long DEFAULT_INIT_NS = 1862;
    public static final long ADAPT_PERIOD_NS = 1_000_000;
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

    /** Records a completed acquisition and adapts {@code maxB} once a period has passed. */
    public void completed() {
        periodCompletions++;
        if (initNs == 0) {
            return;
        }
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
