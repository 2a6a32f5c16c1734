package io.lockfabric.bench.range;

import io.lockfabric.bench.OpCounterSlots;
import io.lockfabric.bench.ZipfGenerator;
import io.lockfabric.check.History;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import org.HdrHistogram.Histogram;

import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One client of a {@link RangeRunner} run: the {@link RangeBenchConfig} loop on its own endpoint
 * and range lock client, recording every grant for the range exclusion checker. What it measures
 * lives in its own fields, read by the runner once it has stopped; only the progress count is
 * published while it runs.
 */
final class RangeWorker implements Runnable {
    private static final int PROGRESS_EVERY_OPS = 64;
    private static final int HISTOGRAM_DIGITS = 3;

    /** When phases start and end (observer ns) and the shared abort flag. */
    static final class Control {
        final long measureAtNs;
        final long endAtNs;
        private volatile boolean aborted;

        Control(long measureAtNs, long endAtNs) {
            this.measureAtNs = measureAtNs;
            this.endAtNs = endAtNs;
        }

        void abort() {
            aborted = true;
        }

        boolean aborted() {
            return aborted;
        }
    }

    private final int index;
    private final Endpoint endpoint;
    private final RangeLockClient client;
    private final History.Recorder recorder;
    private final ZipfGenerator borders;
    private final long size;
    private final RandomGenerator random;
    private final RangeBenchConfig config;
    private final LongSupplier observerNanos;
    private final OpCounterSlots progress;
    private final Control control;

    final Histogram acquireNanos = new Histogram(HISTOGRAM_DIGITS);
    final Histogram operationNanos = new Histogram(HISTOGRAM_DIGITS);
    long measuredOps;
    long measureStartNs;
    long measureEndNs;
    long lastProgressNs;
    private boolean measuring;
    private boolean ended;
    CounterSnapshot countersAtStart = CounterSnapshot.ZERO;
    CounterSnapshot countersAtEnd = CounterSnapshot.ZERO;
    LockStats statsAtStart = LockStats.ZERO;
    LockStats statsAtEnd = LockStats.ZERO;
    Throwable failure;

    RangeWorker(int index, Endpoint endpoint, RangeLockClient client, History.Recorder recorder,
                ZipfGenerator borders, long size, RandomGenerator random, RangeBenchConfig config,
                LongSupplier observerNanos, OpCounterSlots progress, Control control) {
        this.index = index;
        this.endpoint = endpoint;
        this.client = client;
        this.recorder = recorder;
        this.borders = borders;
        this.size = size;
        this.random = random;
        this.config = config;
        this.observerNanos = observerNanos;
        this.progress = progress;
        this.control = control;
    }

    long size() {
        return size;
    }

    @Override
    public void run() {
        try {
            loop();
        } catch (Throwable t) {
            failure = t;
            control.abort();
        }
    }

    private void loop() {
        final boolean byOps = config.byOperations();
        final long csNs = config.csNs();
        long remaining = config.operationsOf(index);
        long done = 0;
        long now = observerNanos.getAsLong();
        lastProgressNs = now;
        while (!control.aborted()) {
            if (!measuring && now >= control.measureAtNs) {
                measuring = true;
                measureStartNs = now;
                snapshot(true);
            }
            if (measuring && (byOps ? remaining == 0 : now >= control.endAtNs)) {
                break;
            }
            long left = borders.next(random);
            long start = now;
            recorder.requesting();
            RangeGrant grant = client.acquire(left, left + size, Mode.EXCLUSIVE);
            long granted = observerNanos.getAsLong();
            recorder.granted(grant);
            try {
                if (grant.start() != left || grant.end() != left + size || grant.mode() != Mode.EXCLUSIVE) {
                    throw new IllegalStateException("asked for [" + left + ", " + (left + size) + ") exclusive, granted "
                            + "[" + grant.start() + ", " + grant.end() + ") " + grant.mode());
                }
                if (csNs > 0) {
                    endpoint.clock().sleepNanos(csNs);
                }
            } finally {
                recorder.releasing(grant);
                client.release(grant);
            }
            now = observerNanos.getAsLong();
            lastProgressNs = now;
            if (measuring) {
                acquireNanos.recordValue(granted - start);
                operationNanos.recordValue(now - start);
                measuredOps++;
                remaining--;
            }
            if ((++done & (PROGRESS_EVERY_OPS - 1)) == 0) {
                progress.publish(index, done);
            }
        }
        progress.publish(index, done);
        end(now);
    }

    private void snapshot(boolean atStart) {
        CounterSnapshot counters = endpoint.counters();
        LockStats stats = client.stats();
        if (atStart) {
            countersAtStart = counters;
            statsAtStart = stats;
        } else {
            countersAtEnd = counters;
            statsAtEnd = stats;
        }
    }

    private void end(long now) {
        ended = true;
        measureEndNs = now;
        snapshot(false);
        if (!measuring) {
            measureStartNs = now; // ended before the measured phase
            countersAtStart = countersAtEnd;
            statsAtStart = statsAtEnd;
        }
    }

    /** Ends the measurement of a client still blocked at {@code atNs} once no client runs any more. */
    void endFromOutside(long atNs) {
        if (!ended) {
            // the simulation has stopped: nothing else touches this client's endpoint any more
            end(measuring ? Math.max(measureStartNs, Math.min(atNs, control.endAtNs)) : atNs);
        }
    }
}
