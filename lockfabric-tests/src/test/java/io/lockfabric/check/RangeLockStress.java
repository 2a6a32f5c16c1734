package io.lockfabric.check;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Test harness for range locks: {@code clients} threads acquire and release random unaligned
 * ranges of [0, space) with sizes log-uniform in [1, maxSize], hold each {@code holdNs}, record the history for
 * {@link RangeExclusionChecker}, and every exclusive holder increments guarded counters at the first
 * and last unit of its range (READ, +1, WRITE: increments are lost unless holds exclude each other).
 */
public final class RangeLockStress {
    /** What a run is made of. */
    public record Config(int clients, long space, long maxSize, double readRatio, int opsPerClient, long holdNs,
                         long seed, LockOptions options) {
        public Config withOptions(LockOptions o) {
            return new Config(clients, space, maxSize, readRatio, opsPerClient, holdNs, seed, o);
        }
    }

    /** Outcome of a run. */
    public record Result(List<Violation> violations, List<Hold> holds, LockStats stats) {
        public String summary() {
            StringBuilder sb = new StringBuilder(violations.size() + " violation(s)");
            violations.stream().limit(5).forEach(v -> sb.append("\n  ").append(v.description()));
            return sb.toString();
        }

        public long holdsCrossing(long n) {
            return holds.stream().filter(h -> h.start() < n && h.end() > n).count();
        }
    }

    private RangeLockStress() {
    }

    /** A range of size log-uniform in [1, maxSize] lying in [0, space). */
    static long[] randomRange(SplittableRandom rnd, long space, long maxSize) {
        long size = Math.max(1, Math.min(maxSize, (long) Math.exp(rnd.nextDouble() * Math.log(maxSize + 1))));
        size = Math.min(size, space);
        long start = rnd.nextLong(space - size + 1);
        return new long[] {start, start + size};
    }

    public static Result run(Fabric fabric, RangeLockProtocol protocol, Config cfg) {
        String tableName = "range-" + protocol.name() + "-" + Long.toHexString(new SplittableRandom().nextLong());
        String counterName = tableName + "-counters";
        History history = new History(fabric::observerNanoTime);
        List<ClientThread> threads = new ArrayList<>();
        List<LockStats> stats = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int c = 0; c < cfg.clients(); c++) {
            int client = c;
            Endpoint endpoint = fabric.newEndpoint();
            RangeLockClient locks = protocol.open(endpoint, tableName, cfg.options());
            Table counters = endpoint.openTable(GuardedCounters.tableSpec(counterName, cfg.space()));
            History.Recorder recorder = history.recorder(client);
            threads.add(fabric.spawn("range-" + protocol.name() + "-" + client, () -> {
                try {
                    SplittableRandom rnd = new SplittableRandom(cfg.seed() * 31 + client);
                    QueuePair qp = endpoint.queuePair(counters.memoryNode());
                    for (int i = 0; i < cfg.opsPerClient(); i++) {
                        long[] range = randomRange(rnd, cfg.space(), cfg.maxSize());
                        Mode mode = rnd.nextDouble() < cfg.readRatio() ? Mode.SHARED : Mode.EXCLUSIVE;
                        recorder.requesting();
                        RangeGrant g = locks.acquire(range[0], range[1], mode);
                        recorder.granted(g);
                        if (g.start() != range[0] || g.end() != range[1]) {
                            throw new AssertionError("granted [" + g.start() + ", " + g.end() + ") for [" + range[0]
                                    + ", " + range[1] + ")");
                        }
                        if (mode == Mode.EXCLUSIVE && g.mode() != Mode.EXCLUSIVE) {
                            throw new AssertionError("exclusive request granted " + g.mode());
                        }
                        // Hold the range a while: time for an overlapping grant to show.
                        endpoint.clock().sleepNanos(cfg.holdNs());
                        if (g.mode() == Mode.EXCLUSIVE) {
                            GuardedCounters.increment(qp, counters, g.start());
                            if (g.end() - 1 != g.start()) {
                                GuardedCounters.increment(qp, counters, g.end() - 1);
                            }
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
        if (failure.get() != null) {
            throw new AssertionError("a client failed", failure.get());
        }
        List<Hold> holds = history.holds();
        List<Violation> violations = new ArrayList<>(RangeExclusionChecker.violations(holds));
        if (protocol.strictFencing(cfg.options())) {
            violations.addAll(RangeExclusionChecker.fencing(holds));
        }
        Map<Long, Long> expected = new HashMap<>();
        for (Hold h : holds) {
            if (h.mode() == Mode.EXCLUSIVE) {
                expected.merge(h.start(), 1L, Long::sum);
                if (h.end() - 1 != h.start()) {
                    expected.merge(h.end() - 1, 1L, Long::sum);
                }
            }
        }
        try (Endpoint verifier = fabric.newEndpoint()) {
            Table counters = verifier.openTable(GuardedCounters.tableSpec(counterName, cfg.space()));
            violations.addAll(GuardedCounters.verify(verifier.queuePair(counters.memoryNode()), counters, expected));
        }
        LockStats total = stats.stream().reduce(LockStats.ZERO, LockStats::plus);
        return new Result(violations, holds, total);
    }
}
