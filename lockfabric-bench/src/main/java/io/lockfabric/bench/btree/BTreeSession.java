package io.lockfabric.bench.btree;

import io.lockfabric.apps.btree.BTreeClient;
import io.lockfabric.apps.btree.BTreeOptions;
import io.lockfabric.bench.Operation;
import io.lockfabric.bench.Session;
import io.lockfabric.bench.ZipfGenerator;
import io.lockfabric.check.History;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One client of a {@link BTreeWorkload} run: its {@link BTreeClient}, opened at its first operation
 * (opening reads the memory node, which on the simulator only a simulated process may do); client 0
 * then bulk-loads the tree and the others wait for the load. An operation draws a key and is an
 * increment under the leaf lock or a lock-free search. With the check on it counts its increments
 * per key, and records the node locks' grants through a wrapper of the lock client.
 */
final class BTreeSession implements Session {
    /** No update in flight. */
    static final long NONE = Long.MIN_VALUE;
    private static final long LOAD_POLL_NS = 200_000;

    private final int client;
    private final Endpoint endpoint;
    private final String table;
    private final BTreeOptions options;
    private final BTreeWorkload workload;
    private final History.Recorder recorder;
    private final RandomGenerator random;
    private final LongSupplier observerNanos;
    private final boolean counting;
    private final ZipfGenerator zipf;
    private final long multiplier;
    private final Map<Long, Long> counts = new HashMap<>();
    private volatile long inFlight = NONE;
    private BTreeClient tree;
    private Recording recording;

    BTreeSession(int client, Endpoint endpoint, String table, BTreeOptions options, BTreeWorkload workload,
                 History.Recorder recorder, RandomGenerator random, LongSupplier observerNanos, boolean counting) {
        this.client = client;
        this.endpoint = endpoint;
        this.table = table;
        this.options = options;
        this.workload = workload;
        this.recorder = recorder;
        this.random = random;
        this.observerNanos = observerNanos;
        this.counting = counting;
        this.zipf = new ZipfGenerator(workload.keys(), workload.zipf());
        this.multiplier = coprimeMultiplier(workload.keys());
    }

    /** A multiplier coprime to {@code n}, near n times the golden ratio's fraction: a bijection of [0, n). */
    static long coprimeMultiplier(long n) {
        if (n <= 2) {
            return 1;
        }
        long m = Math.max(1, (long) (n * 0.6180339887498949));
        while (gcd(m, n) != 1) {
            m++;
        }
        return m;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /** The key of Zipf rank {@code rank}. */
    long key(long rank) {
        return rank * multiplier % workload.keys();
    }

    /** The node lock client, recording grants and the operation's first grant and last release. */
    private final class Recording implements LockClient {
        private final LockClient inner;
        long firstGrantNs;
        long lastReleaseNs;

        Recording(LockClient inner) {
            this.inner = inner;
        }

        @Override
        public Grant acquire(long lockId, Mode mode) {
            if (recorder != null) {
                recorder.requesting();
            }
            Grant g = inner.acquire(lockId, mode);
            if (recorder != null) {
                recorder.granted(g);
            }
            if (firstGrantNs == 0) {
                firstGrantNs = observerNanos.getAsLong();
            }
            return g;
        }

        @Override
        public void release(Grant grant) {
            lastReleaseNs = observerNanos.getAsLong();
            if (recorder != null) {
                recorder.releasing(grant);
            }
            inner.release(grant);
        }

        @Override
        public long locks() {
            return inner.locks();
        }

        @Override
        public LockStats stats() {
            return inner.stats();
        }

        @Override
        public Optional<String> describeAddress(long address) {
            return inner.describeAddress(address);
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    private void start() {
        tree = BTreeClient.open(endpoint, table, options, lock -> recording = new Recording(lock));
        if (client == 0) {
            int every = workload.loadEvery();
            int n = every == 0 ? 0 : (int) ((workload.keys() + every - 1) / every);
            long[] keys = new long[n];
            for (int i = 0; i < n; i++) {
                keys[i] = (long) i * every;
            }
            if (!tree.loaded()) {
                tree.load(keys, new long[n]);
            }
        } else {
            Clock clock = endpoint.clock();
            while (!tree.loaded()) {
                clock.sleepNanos(LOAD_POLL_NS);
            }
        }
    }

    @Override
    public void operate(Operation op) {
        if (tree == null) {
            start();
        }
        long k = key(zipf.next(random));
        long begin = observerNanos.getAsLong();
        if (random.nextDouble() < workload.mix().updateRatio()) {
            recording.firstGrantNs = 0;
            if (counting) {
                inFlight = k;
            }
            tree.merge(k, 1, v -> v + 1);
            if (counting) {
                counts.merge(k, 1L, Long::sum);
                inFlight = NONE;
            }
            op.granted(recording.firstGrantNs == 0 ? begin : recording.firstGrantNs);
            op.releasing(recording.lastReleaseNs);
            op.kind(BTreeWorkload.UPDATE, 1);
        } else {
            tree.search(k);
            op.granted(begin);
            op.releasing(observerNanos.getAsLong());
            op.kind(BTreeWorkload.SEARCH, 0);
        }
        if (k == key(0)) {
            op.hottest();
        }
    }

    /** Increments this client completed, per key. */
    Map<Long, Long> counts() {
        return counts;
    }

    /** The key of an update this client began and did not complete, or {@link #NONE}. */
    long inFlight() {
        return inFlight;
    }

    @Override
    public LockStats stats() {
        return tree == null ? LockStats.ZERO : tree.lockStats();
    }

    @Override
    public Optional<String> describeAddress(long address) {
        return tree == null ? Optional.empty() : tree.describeAddress(address);
    }

    @Override
    public void close() {
        if (tree != null) {
            tree.close();
        }
    }
}
