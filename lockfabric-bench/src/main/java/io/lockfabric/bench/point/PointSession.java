package io.lockfabric.bench.point;

import io.lockfabric.bench.Operation;
import io.lockfabric.bench.Session;
import io.lockfabric.bench.ZipfGenerator;
import io.lockfabric.check.GuardedCounters;
import io.lockfabric.check.History;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;

import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One client of a {@link PointWorkload} run: an operation picks a lock (Zipf) and a mode, acquires,
 * does {@code cs} READs (shared request) or WRITEs (exclusive) on the lock's data object, increments
 * the guarded counter when checked and exclusive, and releases.
 */
final class PointSession implements Session {
    /** {@link ZipfGenerator} makes lock 0 the most likely. */
    static final long HOTTEST_LOCK = 0;

    private final Endpoint endpoint;
    private final LockClient client;
    private final QueuePair dataQp;
    private final Table data;
    private final Table guard;
    private final History.Recorder recorder;
    private final ZipfGenerator zipf;
    private final ZipfGenerator localZipf;
    private final double locality;
    private final int localityNodes;
    private final int node;
    private final RandomGenerator random;
    private final double readRatio;
    private final int cs;
    private final LongSupplier observerNanos;
    private final double skipRelease;
    /** Draws the skipped releases, apart from {@code random}; null when none are skipped. */
    private final SplittableRandom skipRandom;
    private long skippedReleases;

    PointSession(Endpoint endpoint, LockClient client, Table data, Table guard, History.Recorder recorder,
                 ZipfGenerator zipf, ZipfGenerator localZipf, RandomGenerator random, PointWorkload workload,
                 LongSupplier observerNanos, int clientIndex) {
        this.endpoint = endpoint;
        this.client = client;
        this.dataQp = endpoint.queuePair(data.memoryNode());
        this.data = data;
        this.guard = guard;
        this.recorder = recorder;
        this.zipf = zipf;
        this.localZipf = localZipf;
        this.locality = workload.locality();
        this.localityNodes = workload.localityNodes();
        this.node = endpoint.id().node() % workload.localityNodes();
        this.random = random;
        this.readRatio = workload.readRatio();
        this.cs = workload.cs();
        this.observerNanos = observerNanos;
        this.skipRelease = workload.skipRelease();
        this.skipRandom = skipRelease > 0 ? new SplittableRandom(workload.seed() * SKIP_SEED_MIX + clientIndex) : null;
    }

    private static final long SKIP_SEED_MIX = 0x9E3779B97F4A7C15L;

    /**
     * A lock of the whole table (Zipf), or with probability {@code locality} one of this client's
     * node (Zipf over the node's locks); with no locality, exactly one draw, as before it existed.
     */
    private long pickLock() {
        if (locality > 0 && random.nextDouble() < locality) {
            return localZipf.next(random) * localityNodes + node;
        }
        return zipf.next(random);
    }

    @Override
    public void operate(Operation op) {
        long lock = pickLock();
        Mode requested = random.nextDouble() < readRatio ? Mode.SHARED : Mode.EXCLUSIVE;
        if (recorder != null) {
            recorder.requesting();
        }
        Grant grant = client.acquire(lock, requested);
        op.granted(observerNanos.getAsLong());
        if (recorder != null) {
            recorder.granted(grant);
        }
        try {
            criticalSection(lock, requested, grant);
        } finally {
            if (recorder != null) {
                recorder.releasing(grant);
            }
            op.releasing(observerNanos.getAsLong());
            if (skipRandom != null && skipRandom.nextDouble() < skipRelease) {
                skippedReleases++; // the fault: the lock stays held until the protocol recovers it
            } else {
                client.release(grant);
            }
        }
        if (lock == HOTTEST_LOCK) {
            op.hottest();
        }
        if (requested == Mode.SHARED) {
            op.issued(cs, 0);
        } else {
            op.issued(0, cs);
        }
        if (guard != null && grant.mode() == Mode.EXCLUSIVE) {
            op.issued(1, 1);
        }
    }

    /** {@code cs} READs (shared request) or WRITEs (exclusive) on the lock's data object, then the guard. */
    private void criticalSection(long lock, Mode requested, Grant grant) {
        long address = data.at(lock * PointWorkload.DATA_OBJECT_BYTES);
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

    @Override
    public LockStats stats() {
        if (skipRandom == null) {
            return client.stats();
        }
        return LockStats.builder().addAll(client.stats()).counter(PointWorkload.SKIPPED_RELEASES, skippedReleases).build();
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
