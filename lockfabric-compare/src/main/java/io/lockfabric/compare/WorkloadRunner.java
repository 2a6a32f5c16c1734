package io.lockfabric.compare;

import io.lockfabric.bench.ZipfGenerator;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Runs a {@link CompareWorkload} against one {@link PeerClient}: the client threads, the
 * measurement window, and the mutual-exclusion check through the peer's lock.
 *
 * <p><b>The check.</b> Inside every exclusive hold the thread increments the lock's counter with a
 * plain read and a separate plain write (an unguarded counter: two holders at once lose an
 * increment), and counts writers and readers of the lock: an exclusive holder must find itself the
 * only writer and no reader, a shared holder no writer. After the run the counters must add up to
 * the exclusive cycles exactly. A peer whose lock does not exclude (a wrong configuration, a lock
 * that is not the one taken) fails the check.
 */
final class WorkloadRunner {
    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
    /** A thread stops after this many failed cycles: the peer is broken, spinning on it says nothing more. */
    private static final int MAX_ERRORS_PER_THREAD = 100;

    private final CompareWorkload w;
    private final long[] counts;
    private final AtomicIntegerArray writers;
    private final AtomicIntegerArray readers;
    private volatile boolean stop;

    private WorkloadRunner(CompareWorkload w) {
        this.w = w;
        this.counts = new long[w.locks()];
        this.writers = new AtomicIntegerArray(w.locks());
        this.readers = new AtomicIntegerArray(w.locks());
    }

    /** One thread's tallies. */
    private static final class Tally {
        final Histogram latencyNs = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        long cycles;
        long exclusive;
        long violations;
        long errors;
        String firstError;
        volatile boolean done;
    }

    /**
     * Runs {@code w} on {@code client} and returns what it measured, naming the row {@code peer};
     * {@code fabric} is LockFabric's fabric, null for a peer; {@code progress} (or null) hears when
     * the measurement starts.
     */
    static PeerResult run(String peer, String fabric, String system, String lock, PeerClient client,
                          CompareWorkload w, PrintStream progress) throws InterruptedException {
        return new WorkloadRunner(w).runOn(peer, fabric, system, lock, client, progress);
    }

    private PeerResult runOn(String peer, String fabric, String system, String lock, PeerClient client,
                             PrintStream progress) throws InterruptedException {
        long start = System.nanoTime();
        long measureFrom = start + w.warmupNs();
        long measureTo = measureFrom + w.durationNs();
        List<Tally> tallies = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < w.threads(); i++) {
            Tally t = new Tally();
            tallies.add(t);
            long seed = w.seed() * 1_000_003L + i;
            Thread.Builder kind = w.virtualThreads() ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
            threads.add(kind.name("compare-" + peer + "-" + i).start(() -> loop(client, t, seed, measureFrom, measureTo)));
        }
        if (progress != null && w.warmupNs() > 0) {
            sleepUntil(measureFrom);
            progress.printf(Locale.ROOT, "compare: %s: warmed up, measuring %.1f s%n", peer, w.durationNs() / 1e9);
        }
        sleepUntil(measureTo);
        stop = true;
        long joinBy = measureTo + client.stopGraceNs();
        int stuck = 0;
        String stuckAt = "";
        for (Thread t : threads) {
            long left = joinBy - System.nanoTime();
            if (left <= 0 || !t.join(java.time.Duration.ofNanos(left))) {
                stuck++;
                if (stuckAt.isEmpty()) {
                    stuckAt = where(t);
                }
                t.interrupt();
            }
        }
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        long cycles = 0;
        long exclusive = 0;
        long violations = 0;
        long errors = 0;
        String firstError = "";
        for (Tally t : tallies) {
            if (!t.done) {
                continue; // stuck: its tallies are still being written
            }
            all.add(t.latencyNs);
            cycles += t.cycles;
            exclusive += t.exclusive;
            violations += t.violations;
            errors += t.errors;
            if (firstError.isEmpty() && t.firstError != null) {
                firstError = t.firstError;
            }
        }
        if (firstError.isEmpty() && stuck > 0) {
            firstError = stuckAt;
        }
        if (stuck == 0) {
            long sum = 0;
            for (int i = 0; i < counts.length; i++) {
                sum += (long) COUNTS.getVolatile(counts, i);
            }
            if (sum != exclusive) {
                violations += Math.abs(exclusive - sum); // increments lost (or invented) by holders that overlapped
            }
        }
        return new PeerResult(peer, fabric != null, fabric == null ? "" : fabric, system, lock, cycles, w.durationNs() / 1e9,
                all.getValueAtPercentile(50) / 1e3, all.getValueAtPercentile(99) / 1e3,
                all.getValueAtPercentile(99.9) / 1e3, exclusive, violations, errors, firstError, stuck);
    }

    private void loop(PeerClient client, Tally t, long seed, long measureFrom, long measureTo) {
        SplittableRandom random = new SplittableRandom(seed);
        ZipfGenerator zipf = new ZipfGenerator(w.locks(), w.zipf());
        try {
            while (!stop) {
                int lock = (int) zipf.next(random);
                boolean shared = w.reads() && random.nextDouble() < w.readRatio();
                long t0 = System.nanoTime();
                try {
                    PeerClient.Release release = client.acquire(lock, shared);
                    try {
                        if (shared) {
                            readers.incrementAndGet(lock);
                            if (writers.get(lock) != 0) {
                                t.violations++;
                            }
                            readers.decrementAndGet(lock);
                        } else {
                            int wr = writers.incrementAndGet(lock);
                            if (wr != 1 || readers.get(lock) != 0) {
                                t.violations++;
                            }
                            long v = (long) COUNTS.getOpaque(counts, lock);
                            Thread.onSpinWait();
                            COUNTS.setOpaque(counts, lock, v + 1);
                            writers.decrementAndGet(lock);
                            t.exclusive++;
                        }
                    } finally {
                        release.release();
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    t.errors++;
                    if (t.firstError == null) {
                        t.firstError = e.getClass().getSimpleName() + ": " + e.getMessage();
                    }
                    if (t.errors >= MAX_ERRORS_PER_THREAD) {
                        return;
                    }
                    continue;
                }
                long t1 = System.nanoTime();
                if (t0 >= measureFrom && t1 <= measureTo) {
                    t.cycles++;
                    t.latencyNs.recordValue(Math.min(t1 - t0, t.latencyNs.getHighestTrackableValue()));
                }
            }
        } finally {
            t.done = true;
        }
    }

    /** The top frames of a thread that did not stop: where the peer holds it, for the report. */
    private static String where(Thread t) {
        StackTraceElement[] frames = t.getStackTrace();
        StringBuilder sb = new StringBuilder("stuck in ");
        for (int i = 0; i < Math.min(6, frames.length); i++) {
            sb.append(i == 0 ? "" : " < ").append(frames[i].getClassName()).append('.').append(frames[i].getMethodName());
        }
        return sb.toString();
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        for (long left; (left = nanoTime - System.nanoTime()) > 0; ) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
