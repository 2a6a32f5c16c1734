package io.lockfabric.lock;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.IdleStrategy;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TruncatedExponentialBackoffTest {
    private static final long INIT = 1000;

    /** A clock that only moves when told to, and records every wait. */
    private static final class FakeClock implements Clock {
        long now;
        final List<Long> sleeps = new ArrayList<>();

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void sleepNanos(long nanos) {
            sleeps.add(nanos);
            now += nanos;
        }

        @Override
        public IdleStrategy idleStrategy() {
            throw new UnsupportedOperationException();
        }
    }

    private final FakeClock clock = new FakeClock();
    private final TruncatedExponentialBackoff backoff = new TruncatedExponentialBackoff(clock, new SplittableRandom(7), INIT);

    @Test
    void waitIsTheCapPlusJitterBelowInit() {
        for (int retry = 0; retry < 5; retry++) {
            backoff.backoff(retry);
        }
        // maxB starts at init, so every wait is init + [0, init) whatever the retry number
        for (long s : clock.sleeps) {
            assertTrue(s >= INIT && s < 2 * INIT, "wait " + s);
        }
    }

    @Test
    void capAdaptsOnlyAfterABatchOfCompletionsAndAPeriod() {
        retriesThenCompletions(10, TruncatedExponentialBackoff.ADAPT_BATCH - 1);
        clock.now += 10 * TruncatedExponentialBackoff.ADAPT_PERIOD_NS;
        backoff.completed(); // 63 completions: no check yet
        assertEquals(INIT, backoff.maxBackoffNs(), "a batch is not complete before 64 completions");

        // the 64th completion after a long period: retry rate 10 / 74 < 0.5, > 0.1, so unchanged
        retriesThenCompletions(0, 1);
        assertEquals(INIT, backoff.maxBackoffNs());

        // a batch with retry rate > 0.5 but inside one period: no adaptation
        retriesThenCompletions(200, TruncatedExponentialBackoff.ADAPT_BATCH);
        assertEquals(INIT, backoff.maxBackoffNs(), "the period has not passed since the last check");

        clock.now += TruncatedExponentialBackoff.ADAPT_PERIOD_NS;
        retriesThenCompletions(200, TruncatedExponentialBackoff.ADAPT_BATCH);
        assertEquals(2 * INIT, backoff.maxBackoffNs(), "both batches' retries count: rate > 0.5 doubles the cap");
    }

    @Test
    void capStaysBetweenInitAndInitShiftedByTen() {
        for (int i = 0; i < 20; i++) {
            clock.now += TruncatedExponentialBackoff.ADAPT_PERIOD_NS;
            retriesThenCompletions(1000, TruncatedExponentialBackoff.ADAPT_BATCH);
        }
        assertEquals(INIT << 10, backoff.maxBackoffNs());
        for (int i = 0; i < 20; i++) {
            clock.now += TruncatedExponentialBackoff.ADAPT_PERIOD_NS;
            retriesThenCompletions(0, TruncatedExponentialBackoff.ADAPT_BATCH);
        }
        assertEquals(INIT, backoff.maxBackoffNs());
    }

    @Test
    void exponentialPartIsTruncatedByTheCap() {
        for (int i = 0; i < 3; i++) {
            clock.now += TruncatedExponentialBackoff.ADAPT_PERIOD_NS;
            retriesThenCompletions(1000, TruncatedExponentialBackoff.ADAPT_BATCH);
        }
        assertEquals(8 * INIT, backoff.maxBackoffNs());
        clock.sleeps.clear();
        for (int retry = 0; retry < 6; retry++) {
            backoff.backoff(retry);
        }
        long[] base = {INIT, 2 * INIT, 4 * INIT, 8 * INIT, 8 * INIT, 8 * INIT};
        for (int i = 0; i < base.length; i++) {
            long s = clock.sleeps.get(i);
            assertTrue(s >= base[i] && s < base[i] + INIT, "retry " + i + " waited " + s);
        }
    }

    @Test
    void zeroInitRetriesAtOnceAndNegativeIsRejected() {
        FakeClock c = new FakeClock();
        TruncatedExponentialBackoff none = new TruncatedExponentialBackoff(c, new SplittableRandom(1), 0);
        none.backoff(3);
        none.completed();
        assertTrue(c.sleeps.isEmpty());
        assertThrows(IllegalArgumentException.class, () -> new TruncatedExponentialBackoff(c, new SplittableRandom(1), -1));
    }

    private void retriesThenCompletions(int retries, int completions) {
        for (int i = 0; i < retries; i++) {
            backoff.backoff(0);
        }
        for (int i = 0; i < completions; i++) {
            backoff.completed();
        }
    }
}
