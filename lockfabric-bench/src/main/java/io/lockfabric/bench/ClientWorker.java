package io.lockfabric.bench;

import io.lockfabric.check.GuardedCounters;
import io.lockfabric.check.History;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import org.HdrHistogram.Histogram;

import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One client of a {@link Runner} run, the body of its {@link io.lockfabric.fabric.ClientThread}:
 * the workload loop of {@link MicroBenchConfig} on its own endpoint and lock client. Everything it
 * measures (histograms, counts, counter snapshots at its own crossing of the phase boundaries)
 * lives in its own fields, read by the runner after {@code join}; only the progress count is
 * published while it runs. A client that never returns (crashed or stuck on the simulator) is
 * closed from outside with {@link #endFromOutside}.
 */
final class ClientWorker implements Runnable {
    /** Publish the progress count every this many operations (a power of two). */
    private static final int PROGRESS_EVERY_OPS = 64;
    private static final int HISTOGRAM_DIGITS = 3;
    /** {@link ZipfGenerator} makes lock 0 the most likely. */
    static final long HOTTEST_LOCK = 0;

    /** When phases start and end, in observer nanoseconds; fixed before the clients start. */
    record Schedule(long measureAtNs, long endAtNs) {
    }

    private final int index;
    private final Endpoint endpoint;
    private final LockClient client;
    private final QueuePair dataQp;
    private final Table data;
    private final Table guard;
    private final History.Recorder recorder;
    private final ZipfGenerator zipf;
    private final RandomGenerator random;
    private final MicroBenchConfig config;
    private final LongSupplier observerNanos;
    private final OpCounterSlots progress;
    private final Runner.RunControl control;

    final Histogram acquireNanos = new Histogram(HISTOGRAM_DIGITS);
    final Histogram operationNanos = new Histogram(HISTOGRAM_DIGITS);
    /** Time {@link LockClient#release} took. */
    final Histogram releaseNanos = new Histogram(HISTOGRAM_DIGITS);
    /** Acquire latency of the hottest lock (lock 0, the Zipf law's first) alone: fairness shows there. */
    final Histogram hottestAcquireNanos = new Histogram(HISTOGRAM_DIGITS);
    long measuredOps;
    long csReads;
    long csWrites;
    long measureStartNs;
    long measureEndNs;
    /** Observer time the client last completed an operation (or started). */
    long lastProgressNs;
    private boolean measuring;
    private boolean ended;
    CounterSnapshot countersAtStart = CounterSnapshot.ZERO;
    CounterSnapshot countersAtEnd = CounterSnapshot.ZERO;
    LockStats statsAtStart = LockStats.ZERO;
    LockStats statsAtEnd = LockStats.ZERO;
    Throwable failure;

    ClientWorker(int index, Endpoint endpoint, LockClient client, Table data, Table guard, History.Recorder recorder,
                 ZipfGenerator zipf, RandomGenerator random, MicroBenchConfig config, LongSupplier observerNanos,
                 OpCounterSlots progress, Runner.RunControl control) {
        this.index = index;
        this.endpoint = endpoint;
        this.client = client;
        this.dataQp = endpoint.queuePair(data.memoryNode());
        this.data = data;
        this.guard = guard;
        this.recorder = recorder;
        this.zipf = zipf;
        this.random = random;
        this.config = config;
        this.observerNanos = observerNanos;
        this.progress = progress;
        this.control = control;
    }

    @Override
    public void run() {
        try {
            loop(control.schedule());
        } catch (Throwable t) {
            failure = t;
            control.abort();
        }
    }

    private void loop(Schedule schedule) {
        final double readRatio = config.readRatio();
        final int cs = config.cs();
        final boolean byOps = config.byOperations();
        long remaining = config.operationsOf(index);
        long done = 0;
        long now = observerNanos.getAsLong();
        lastProgressNs = now;
        while (!control.aborted()) {
            if (!measuring && now >= schedule.measureAtNs()) {
                measuring = true;
                measureStartNs = now;
                countersAtStart = endpoint.counters();
                statsAtStart = client.stats();
            }
            if (measuring && (byOps ? remaining == 0 : now >= schedule.endAtNs())) {
                break;
            }
            long lock = zipf.next(random);
            Mode requested = random.nextDouble() < readRatio ? Mode.SHARED : Mode.EXCLUSIVE;
            long start = now;
            if (recorder != null) {
                recorder.requesting();
            }
            Grant grant = client.acquire(lock, requested);
            long granted = observerNanos.getAsLong();
            if (recorder != null) {
                recorder.granted(grant);
            }
            long releasing;
            try {
                criticalSection(lock, requested, grant, cs);
            } finally {
                if (recorder != null) {
                    recorder.releasing(grant);
                }
                releasing = observerNanos.getAsLong();
                client.release(grant);
            }
            now = observerNanos.getAsLong();
            lastProgressNs = now;
            if (measuring) {
                acquireNanos.recordValue(granted - start);
                operationNanos.recordValue(now - start);
                releaseNanos.recordValue(now - releasing);
                if (lock == HOTTEST_LOCK) {
                    hottestAcquireNanos.recordValue(granted - start);
                }
                measuredOps++;
                remaining--;
                countCs(requested, grant, cs);
            }
            if ((++done & (PROGRESS_EVERY_OPS - 1)) == 0) {
                progress.publish(index, done);
            }
        }
        progress.publish(index, done);
        end(now);
    }

    private void end(long now) {
        ended = true;
        measureEndNs = now;
        countersAtEnd = endpoint.counters();
        statsAtEnd = client.stats();
        if (!measuring) {
            measureStartNs = now; // ended before the measured phase
            countersAtStart = countersAtEnd;
            statsAtStart = statsAtEnd;
        }
    }

    /**
     * Ends the measurement of a client whose loop never returned (it crashed at, or was still
     * blocked at, observer time {@code atNs}); called by the runner once no client runs any more.
     */
    void endFromOutside(long atNs) {
        if (!ended) {
            end(measuring ? Math.max(measureStartNs, Math.min(atNs, control.schedule().endAtNs())) : atNs);
        }
    }

    /** {@code cs} READs (shared request) or WRITEs (exclusive) on the lock's data object, then the guard. */
    private void criticalSection(long lock, Mode requested, Grant grant, int cs) {
        long address = data.at(lock * Runner.DATA_OBJECT_BYTES);
        if (requested == Mode.SHARED) {
            for (int i = 0; i < cs; i++) {
                dataQp.read8(address);
            }
        } else {
            for (int i = 0; i < cs; i++) {
                dataQp.write8(address, grant.fencingToken());
            }
        }
        if (guard != null && grant.mode() == Mode.EXCLUSIVE) {
            GuardedCounters.increment(endpoint.queuePair(guard.memoryNode()), guard, lock);
        }
    }

    private void countCs(Mode requested, Grant grant, int cs) {
        if (requested == Mode.SHARED) {
            csReads += cs;
        } else {
            csWrites += cs;
        }
        if (guard != null && grant.mode() == Mode.EXCLUSIVE) {
            csReads++;
            csWrites++;
        }
    }
}
