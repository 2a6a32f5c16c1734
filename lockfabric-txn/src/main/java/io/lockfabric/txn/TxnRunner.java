package io.lockfabric.txn;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Runs a transaction workload with {@code clients} threads against one {@link Locker} in real
 * time: each client draws transactions from its own seeded generator (seed + client index) and runs
 * them through a {@link TxnEngine} back to back; those that start after the warm-up and end before
 * the deadline are measured. Threads, clock and work are injected.
 */
public final class TxnRunner {
    /**
     * What a run is.
     *
     * @param clients    client threads
     * @param warmupNs   the unmeasured start
     * @param durationNs the measured phase
     * @param seed       the first client's seed
     */
    public record Settings(int clients, long warmupNs, long durationNs, long seed) {
        public Settings {
            if (clients < 1) {
                throw new IllegalArgumentException("a run needs at least one client, got " + clients);
            }
            if (warmupNs < 0 || durationNs <= 0) {
                throw new IllegalArgumentException("a run needs a positive duration and a warm-up of at least 0");
            }
        }
    }

    /** What a client is told of its progress, for a progress display: committed so far, all clients. */
    @FunctionalInterface
    public interface Progress {
        void committed(long total);
    }

    private final ThreadFactory threads;
    private final LongSupplier clock;
    private final Work work;

    public TxnRunner(ThreadFactory threads, LongSupplier clock, Work work) {
        this.threads = threads;
        this.clock = clock;
        this.work = work;
    }

    /** The runner of real time: platform threads, {@code System.nanoTime}, a busy spin. */
    public static TxnRunner realTime() {
        LongSupplier nano = System::nanoTime;
        return new TxnRunner(Thread.ofPlatform().name("txn-client-", 0).factory(), nano, Work.spinOn(nano));
    }

    /**
     * Runs {@code workload} through {@code locker}; the result of the measured phase.
     *
     * @throws RuntimeException what a client threw (the other clients are stopped first)
     */
    public TxnResult run(TxnWorkload workload, Locker locker, Settings s, Progress progress) throws InterruptedException {
        TxnEngine engine = new TxnEngine(locker, work, clock);
        long start = clock.getAsLong();
        long measureFrom = start + s.warmupNs();
        long end = measureFrom + s.durationNs();
        List<TxnMetrics> perClient = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.atomic.LongAdder done = new java.util.concurrent.atomic.LongAdder();
        for (int c = 0; c < s.clients(); c++) {
            TxnMetrics m = new TxnMetrics(workload.types());
            perClient.add(m);
            SplittableRandom random = new SplittableRandom(s.seed() + c);
            running.add(threads.newThread(() -> {
                try {
                    while (failure.get() == null) {
                        long now = clock.getAsLong();
                        if (now >= end) {
                            break;
                        }
                        Transaction tx = workload.next(random);
                        boolean measured = now >= measureFrom;
                        engine.execute(tx, m, measured && clock.getAsLong() <= end);
                        if (measured) {
                            done.increment();
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        running.forEach(Thread::start);
        for (Thread t : running) {
            while (t.isAlive()) {
                t.join(100);
                if (progress != null) {
                    progress.committed(done.sum());
                }
            }
        }
        if (failure.get() != null) {
            Throwable t = failure.get();
            throw t instanceof RuntimeException re ? re : new IllegalStateException("a client failed: " + t, t);
        }
        TxnMetrics total = new TxnMetrics(workload.types());
        perClient.forEach(total::add);
        return total.result(workload.name(), locker.name(), s.clients(), s.durationNs());
    }
}
