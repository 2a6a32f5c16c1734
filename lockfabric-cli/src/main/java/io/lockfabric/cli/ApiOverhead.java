package io.lockfabric.cli;

import io.lockfabric.Held;
import io.lockfabric.LockFabric;
import io.lockfabric.LockSpace;
import io.lockfabric.SpaceOptions;
import io.lockfabric.client.KeyHash;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Fabrics;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.Mode;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.bench.ZipfGenerator;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One run of the client API's overhead benchmark: the same workload through the lock SPI (one
 * {@link LockClient} per fabric client thread, as {@code bench} runs) or through the client API (as
 * many application threads, each calling {@link LockSpace#acquire(String)} and {@link Held#close()},
 * sharing a pool of as many endpoints).
 *
 * <p>The workload: each thread picks a key of {@code keys} (Zipf θ over the keys, key 0 hottest),
 * takes its lock exclusive and releases it at once, until the run ends. Both sides lock the same
 * slots ({@link KeyHash#slot}, what a lock space maps a key to) of a table of {@code slots} locks,
 * opened with the options a lock space gives the protocol (its lease, the fabric's timing), so the
 * only difference is the API's path: the hand-off of each request to a pool thread and back, and
 * its bookkeeping. Each run opens its own fabric (a compute node of its own on tcp) and its own table.
 */
final class ApiOverhead {
    /** Which side of the comparison a run measures. */
    enum Variant {
        /** The lock SPI, one lock client per fabric client thread. */
        SPI,
        /** The client API: application threads, a pool of endpoints. */
        API
    }

    /** A run's shape. */
    record Shape(String address, String protocol, int threads, int keys, long slots, double zipf, long warmupNs,
                 long durationNs) {
    }

    /** What a run measured: operations (acquire and release) per second, and their latency. */
    record Result(Variant variant, long ops, double opsPerSec, double p50Us, double p99Us) {
    }

    private ApiOverhead() {
    }

    /** The keys, {@code "key:0"} ... , and the slot of each in a table of {@code slots}. */
    private static long[] slotsOf(int keys, long slots) {
        long[] s = new long[keys];
        for (int k = 0; k < keys; k++) {
            s[k] = KeyHash.slot(key(k), slots);
        }
        return s;
    }

    private static String key(int k) {
        return "key:" + k;
    }

    /**
     * The options a lock space gives {@code protocol}: its lease ({@link SpaceOptions#DEFAULT_LEASE})
     * if it has one, the defaults of waits scaled to the fabric's timing.
     */
    private static LockOptions spaceOptions(LockProtocol protocol, Fabric fabric) {
        List<String> pairs = new ArrayList<>();
        if (protocol.options().stream().anyMatch(o -> o.name().equals("lease-ns"))) {
            pairs.add("lease-ns=" + SpaceOptions.DEFAULT_LEASE.toNanos() + "ns");
        }
        return LockOptions.parse(pairs).validate(protocol.name(), protocol.options()).onUnlessBound(fabric.timing());
    }

    /** The measuring window shared by a run's threads: warm up, measure, stop. */
    private static final class Window {
        volatile boolean measuring;
        volatile boolean stopped;
        final CountDownLatch ready;
        final AtomicInteger failures = new AtomicInteger();
        volatile Throwable firstFailure;

        Window(int threads) {
            ready = new CountDownLatch(threads);
        }

        void failed(Throwable t) {
            if (failures.getAndIncrement() == 0) {
                firstFailure = t;
            }
        }

        /** Warms up, measures, stops; returns the measured length in ns. */
        long run(long warmupNs, long durationNs) throws InterruptedException {
            if (!ready.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the run's threads did not start within 60 s");
            }
            TimeUnit.NANOSECONDS.sleep(warmupNs);
            long start = System.nanoTime();
            measuring = true;
            TimeUnit.NANOSECONDS.sleep(durationNs);
            measuring = false;
            long measured = System.nanoTime() - start;
            stopped = true;
            return measured;
        }
    }

    /** One thread's counts. */
    private static final class Tally {
        final Histogram latencyNs = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        long ops;

        void record(long ns, boolean measuring) {
            if (measuring) {
                ops++;
                latencyNs.recordValue(Math.min(Math.max(ns, 0), latencyNs.getHighestTrackableValue()));
            }
        }
    }

    /**
     * Runs {@code variant} on {@code shape}; {@code table} names its table (unique per run: a tcp
     * memory node keeps tables for its lifetime).
     *
     * @throws IllegalStateException if a thread failed or did not stop within 30 s of the end
     */
    static Result run(Variant variant, Shape shape, String table) throws InterruptedException {
        LockProtocol protocol = LockProtocols.byName(shape.protocol());
        long[] slots = slotsOf(shape.keys(), shape.slots());
        ZipfGenerator zipf = new ZipfGenerator(shape.keys(), shape.zipf());
        Window window = new Window(shape.threads());
        List<Tally> tallies = new ArrayList<>();
        long measuredNs;
        if (variant == Variant.SPI) {
            try (Fabric fabric = Fabrics.open(shape.address())) {
                LockOptions options = spaceOptions(protocol, fabric);
                List<ClientThread> threads = new ArrayList<>();
                for (int t = 0; t < shape.threads(); t++) {
                    Tally tally = new Tally();
                    tallies.add(tally);
                    long seed = 1000L + t;
                    threads.add(fabric.spawn("spi-" + t, () -> {
                        try (Endpoint ep = fabric.newEndpoint();
                             LockClient client = protocol.open(ep, table, shape.slots(), options)) {
                            SplittableRandom random = new SplittableRandom(seed);
                            window.ready.countDown();
                            while (!window.stopped) {
                                long slot = slots[(int) zipf.next(random)];
                                boolean measuring = window.measuring;
                                long t0 = System.nanoTime();
                                Grant g = client.acquire(slot, Mode.EXCLUSIVE);
                                client.release(g);
                                tally.record(System.nanoTime() - t0, measuring);
                            }
                        } catch (RuntimeException e) {
                            window.failed(e);
                            window.ready.countDown();
                        }
                    }));
                }
                measuredNs = window.run(shape.warmupNs(), shape.durationNs());
                for (ClientThread t : threads) {
                    if (!t.join(TimeUnit.SECONDS.toNanos(30))) {
                        throw new IllegalStateException(t.name() + " did not stop within 30 s of the run's end");
                    }
                }
            }
        } else {
            try (LockFabric lf = LockFabric.builder(shape.address()).poolSize(shape.threads()).open()) {
                LockSpace space = lf.lockSpace(table, SpaceOptions.builder().protocol(shape.protocol())
                        .slots(shape.slots()).build());
                String[] keys = new String[shape.keys()];
                for (int k = 0; k < keys.length; k++) {
                    keys[k] = key(k);
                }
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < shape.threads(); t++) {
                    Tally tally = new Tally();
                    tallies.add(tally);
                    long seed = 1000L + t;
                    threads.add(Thread.ofPlatform().name("app-" + t).daemon(true).start(() -> {
                        try {
                            SplittableRandom random = new SplittableRandom(seed);
                            window.ready.countDown();
                            while (!window.stopped) {
                                String key = keys[(int) zipf.next(random)];
                                boolean measuring = window.measuring;
                                long t0 = System.nanoTime();
                                try (Held _ = space.acquire(key)) {
                                    // the critical section is empty: the benchmark measures the path to the lock
                                }
                                tally.record(System.nanoTime() - t0, measuring);
                            }
                        } catch (RuntimeException e) {
                            window.failed(e);
                            window.ready.countDown();
                        }
                    }));
                }
                measuredNs = window.run(shape.warmupNs(), shape.durationNs());
                for (Thread t : threads) {
                    if (!t.join(java.time.Duration.ofSeconds(30))) {
                        throw new IllegalStateException(t.getName() + " did not stop within 30 s of the run's end");
                    }
                }
            }
        }
        if (window.failures.get() > 0) {
            throw new IllegalStateException(window.failures.get() + " thread(s) of the " + variant + " run failed: "
                    + window.firstFailure, window.firstFailure);
        }
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        long ops = 0;
        for (Tally t : tallies) {
            all.add(t.latencyNs);
            ops += t.ops;
        }
        return new Result(variant, ops, ops * 1e9 / measuredNs, all.getValueAtPercentile(50) / 1e3,
                all.getValueAtPercentile(99) / 1e3);
    }
}
