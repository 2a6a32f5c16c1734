package io.lockfabric.bench.range;

import io.lockfabric.bench.Operation;
import io.lockfabric.bench.Session;
import io.lockfabric.bench.ZipfGenerator;
import io.lockfabric.check.History;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;

import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One client of a {@link RangeWorkload} run: an operation draws a left border (Zipf), takes the
 * range [x, x + L) of the client's size L (shared with the workload's read ratio, else exclusive), checks it was granted as asked, holds it
 * {@code csNs} and releases it. Reported under its range size.
 */
final class RangeSession implements Session {
    private final Endpoint endpoint;
    private final RangeLockClient client;
    private final History.Recorder recorder;
    private final ZipfGenerator borders;
    private final long size;
    private final RandomGenerator random;
    private final long csNs;
    private final LongSupplier observerNanos;
    private final double readRatio;

    RangeSession(Endpoint endpoint, RangeLockClient client, History.Recorder recorder, ZipfGenerator borders,
                 long size, RandomGenerator random, long csNs, LongSupplier observerNanos, double readRatio) {
        this.readRatio = readRatio;
        this.endpoint = endpoint;
        this.client = client;
        this.recorder = recorder;
        this.borders = borders;
        this.size = size;
        this.random = random;
        this.csNs = csNs;
        this.observerNanos = observerNanos;
    }

    @Override
    public void operate(Operation op) {
        long left = borders.next(random);
        // no draw at read ratio 0: the paper's runs keep their random sequence
        Mode mode = readRatio > 0 && random.nextDouble() < readRatio ? Mode.SHARED : Mode.EXCLUSIVE;
        if (recorder != null) {
            recorder.requesting();
        }
        RangeGrant grant = client.acquire(left, left + size, mode);
        op.granted(observerNanos.getAsLong());
        if (recorder != null) {
            recorder.granted(grant);
        }
        try {
            if (grant.start() != left || grant.end() != left + size
                    || (mode == Mode.EXCLUSIVE && grant.mode() != Mode.EXCLUSIVE)) {
                throw new IllegalStateException("asked for [" + left + ", " + (left + size) + ") " + mode + ", granted "
                        + "[" + grant.start() + ", " + grant.end() + ") " + grant.mode());
            }
            if (csNs > 0) {
                endpoint.clock().sleepNanos(csNs);
            }
        } finally {
            if (recorder != null) {
                recorder.releasing(grant);
            }
            op.releasing(observerNanos.getAsLong());
            client.release(grant);
        }
    }

    @Override
    public LockStats stats() {
        return client.stats();
    }

    @Override
    public long group() {
        return size;
    }

    @Override
    public Optional<String> describeAddress(long address) {
        return client.describeAddress(address);
    }

    @Override
    public void close() {
        client.close();
    }
}
