package io.lockfabric.check;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Test harness: drives {@code clients} threads, each with its own endpoint, through {@code ops}
 * acquire–release cycles of one protocol on skewed locks, records the history, and has every
 * exclusive holder increment the lock's guarded counter. {@link Result#violations()} is what the
 * checker found: overlaps, fencing-order breaks (strict protocols) and counter mismatches.
 */
public final class LockStress {
    /** What a stress run is made of. */
    public record Config(int clients, int locks, double zipf, double readRatio, int opsPerClient, long seed,
                         LockOptions options) {
        public static Config of(int clients, int locks, double zipf, double readRatio, int opsPerClient) {
            return new Config(clients, locks, zipf, readRatio, opsPerClient, 42, LockOptions.DEFAULTS);
        }

        public Config withOptions(LockOptions o) {
            return new Config(clients, locks, zipf, readRatio, opsPerClient, seed, o);
        }
    }

    /** Outcome of a run. */
    public record Result(List<Violation> violations, List<Hold> holds, LockStats stats, long elapsedNanos) {
        public long exclusiveGrants() {
            return holds.stream().filter(h -> h.mode() == Mode.EXCLUSIVE).count();
        }

        public long sharedGrants() {
            return holds.size() - exclusiveGrants();
        }

        public String summary() {
            StringBuilder sb = new StringBuilder(violations.size() + " violation(s)");
            violations.stream().limit(5).forEach(v -> sb.append("\n  ").append(v.description()));
            return sb.toString();
        }
    }

    private LockStress() {
    }

    public static Result run(Fabric fabric, LockProtocol protocol, Config cfg) {
        String tableName = "stress-" + protocol.name() + "-" + Long.toHexString(new SplittableRandom().nextLong());
        String counterName = tableName + "-counters";
        History history = new History(fabric::observerNanoTime);
        double[] cdf = zipfCdf(cfg.locks(), cfg.zipf());
        List<ClientThread> threads = new ArrayList<>();
        List<LockStats> stats = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = fabric.observerNanoTime();
        for (int c = 0; c < cfg.clients(); c++) {
            int client = c;
            Endpoint endpoint = fabric.newEndpoint();
            LockClient locks = protocol.open(endpoint, tableName, cfg.locks(), cfg.options());
            Table counters = endpoint.openTable(GuardedCounters.tableSpec(counterName, cfg.locks()));
            History.Recorder recorder = history.recorder(client);
            threads.add(fabric.spawn("stress-" + protocol.name() + "-" + client, () -> {
                try {
                    SplittableRandom rnd = new SplittableRandom(cfg.seed() * 31 + client);
                    QueuePair qp = endpoint.queuePair(counters.memoryNode());
                    for (int i = 0; i < cfg.opsPerClient(); i++) {
                        long lock = pick(cdf, rnd.nextDouble());
                        Mode mode = rnd.nextDouble() < cfg.readRatio() ? Mode.SHARED : Mode.EXCLUSIVE;
                        Grant g = locks.acquire(lock, mode);
                        recorder.granted(g);
                        if (g.lockId() != lock) {
                            throw new AssertionError("granted lock " + g.lockId() + " for a request of " + lock);
                        }
                        if (mode == Mode.EXCLUSIVE && g.mode() != Mode.EXCLUSIVE) {
                            throw new AssertionError("exclusive request granted " + g.mode());
                        }
                        if (g.mode() == Mode.EXCLUSIVE) {
                            GuardedCounters.increment(qp, counters, lock);
                        }
                        recorder.releasing(g);
                        locks.release(g);
                    }
                    synchronized (stats) {
                        stats.add(locks.stats());
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    endpoint.close();
                }
            }));
        }
        threads.forEach(ClientThread::join);
        long elapsed = fabric.observerNanoTime() - start;
        if (failure.get() != null) {
            throw new AssertionError("a client failed", failure.get());
        }
        List<Hold> holds = history.holds();
        List<Violation> violations = new ArrayList<>(MutualExclusionChecker.overlaps(holds));
        if (protocol.strictFencing()) {
            violations.addAll(MutualExclusionChecker.fencing(holds));
        }
        try (Endpoint verifier = fabric.newEndpoint()) {
            Table counters = verifier.openTable(GuardedCounters.tableSpec(counterName, cfg.locks()));
            violations.addAll(GuardedCounters.verify(verifier.queuePair(counters.memoryNode()), counters,
                    MutualExclusionChecker.exclusiveGrantsPerLock(holds)));
        }
        LockStats total = stats.stream().reduce(LockStats.ZERO, LockStats::plus);
        return new Result(violations, holds, total, elapsed);
    }

    /** Cumulative Zipf(θ) probabilities over n locks, lock 0 the hottest (θ = 0: uniform). */
    static double[] zipfCdf(int n, double theta) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += 1.0 / Math.pow(i + 1, theta);
            cdf[i] = sum;
        }
        for (int i = 0; i < n; i++) {
            cdf[i] /= sum;
        }
        return cdf;
    }

    static long pick(double[] cdf, double u) {
        int lo = 0;
        int hi = cdf.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cdf[mid] < u) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
