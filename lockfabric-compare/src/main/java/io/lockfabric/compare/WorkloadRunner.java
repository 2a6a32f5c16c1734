package io.lockfabric.compare;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link CompareWorkload} against one {@link PeerClient}: the client threads, the
 * measurement window, and the mutual-exclusion check through the peer's lock.
 *
 * <p><b>The check.</b> Inside every exclusive hold the thread increments the lock's counter with a
 * plain read and a separate plain write (an unguarded counter: two holders at once lose an
 * increment), and counts writers and readers of the lock: an exclusive holder must find itself the
 * only writer and no reader, a shared holder no writer. After the run the counters must add up to
 * the exclusive cycles exactly. A peer whose lock does not exclude (a wrong configuration, a lock
 * that is not the one taken) fails the check. The counters are an {@link ExclusionCheck}, which the
 * client processes of a run share when there are several ({@link ClientProcessMain}).
 */
final class WorkloadRunner {
    /** A thread stops after this many failed cycles: the peer is broken, spinning on it says nothing more. */
    private static final int MAX_ERRORS_PER_THREAD = 100;

    private final CompareWorkload w;
    private final ExclusionCheck check;
    private volatile boolean stop;

    private WorkloadRunner(CompareWorkload w, ExclusionCheck check) {
        this.w = w;
        this.check = check;
    }

    /** One thread's tallies. */
    private static final class Tally {
        final Histogram latencyNs = newHistogram();
        long cycles;
        long exclusive;
        long violations;
        long errors;
        String firstError;
        volatile boolean done;
    }

    private static Histogram newHistogram() {
        return new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    }

    /**
     * What the threads of one process measured, before the counters are checked: the threads that
     * did not stop ({@code stuck}) left their tallies out.
     */
    record Part(long cycles, long exclusive, long violations, long errors, String firstError, int stuck, Histogram latencyNs) {
        /**
         * The parts added up, with {@code stuck} more threads stuck; the first error is the first
         * part's that has one, else {@code stuckAt} if any thread was stuck.
         */
        static Part sum(List<Part> parts, int stuck, String stuckAt) {
            Histogram all = newHistogram();
            long cycles = 0;
            long exclusive = 0;
            long violations = 0;
            long errors = 0;
            String firstError = "";
            for (Part p : parts) {
                all.add(p.latencyNs());
                cycles += p.cycles();
                exclusive += p.exclusive();
                violations += p.violations();
                errors += p.errors();
                stuck += p.stuck();
                if (firstError.isEmpty()) {
                    firstError = p.firstError();
                }
            }
            if (firstError.isEmpty() && stuck > 0) {
                firstError = stuckAt;
            }
            return new Part(cycles, exclusive, violations, errors, firstError, stuck, all);
        }

        /** One line of {@code key=value}s, for a client process to print ({@link #decode}). */
        String encode() {
            ByteBuffer b = ByteBuffer.allocate(latencyNs.getNeededByteBufferCapacity());
            latencyNs.encodeIntoCompressedByteBuffer(b);
            b.flip();
            byte[] hist = new byte[b.remaining()];
            b.get(hist);
            return "cycles=" + cycles + " exclusive=" + exclusive + " violations=" + violations + " errors=" + errors
                    + " stuck=" + stuck + " hist=" + Base64.getEncoder().encodeToString(hist)
                    + " error=" + Base64.getUrlEncoder().encodeToString(firstError.getBytes(StandardCharsets.UTF_8));
        }

        /** The part a client process printed with {@link #encode}. */
        static Part decode(String line) {
            Map<String, String> kv = new HashMap<>();
            for (String f : line.trim().split(" ")) {
                int eq = f.indexOf('=');
                if (eq > 0) {
                    kv.put(f.substring(0, eq), f.substring(eq + 1));
                }
            }
            try {
                Histogram h = Histogram.decodeFromCompressedByteBuffer(
                        ByteBuffer.wrap(Base64.getDecoder().decode(kv.get("hist"))), 0);
                return new Part(Long.parseLong(kv.get("cycles")), Long.parseLong(kv.get("exclusive")),
                        Long.parseLong(kv.get("violations")), Long.parseLong(kv.get("errors")),
                        new String(Base64.getUrlDecoder().decode(kv.get("error")), StandardCharsets.UTF_8),
                        Integer.parseInt(kv.get("stuck")), h);
            } catch (RuntimeException | java.util.zip.DataFormatException e) {
                throw new IllegalArgumentException("a client process's result does not parse (" + e + "): " + line, e);
            }
        }
    }

    /**
     * Runs {@code w} on {@code client} and returns what it measured, naming the row {@code peer};
     * {@code fabric} is LockFabric's fabric, null for a peer; {@code progress} (or null) hears when
     * the measurement starts.
     */
    static PeerResult run(String peer, String fabric, String system, String lock, PeerClient client,
                          CompareWorkload w, PrintStream progress) throws InterruptedException {
        ExclusionCheck check = ExclusionCheck.inMemory(w.locks());
        Part part = runPart(peer, client, w, check, 0, w.threads(), progress);
        return result(peer, fabric, system, lock, w, List.of(part), check);
    }

    /**
     * Runs threads {@code firstThread} to {@code firstThread + threads - 1} of {@code w} on
     * {@code client}, counting in {@code check}, from now: the warm-up, then the measurement.
     */
    static Part runPart(String peer, PeerClient client, CompareWorkload w, ExclusionCheck check, int firstThread, int threads,
                        PrintStream progress) throws InterruptedException {
        return new WorkloadRunner(w, check).runOn(peer, client, firstThread, threads, progress);
    }

    /**
     * The row of {@code parts}, the measurements of every client process of the run: their tallies
     * added, and the counters in {@code check} matched against the exclusive cycles, if no thread
     * of any part was stuck (a stuck one's increments are not counted).
     */
    static PeerResult result(String peer, String fabric, String system, String lock, CompareWorkload w, List<Part> parts,
                             ExclusionCheck check) {
        Part all = Part.sum(parts, 0, "");
        long violations = all.violations();
        if (all.stuck() == 0) {
            long sum = check.sum();
            if (sum != all.exclusive()) {
                violations += Math.abs(all.exclusive() - sum); // increments lost (or invented) by holders that overlapped
            }
        }
        Histogram h = all.latencyNs();
        return new PeerResult(peer, fabric != null, fabric == null ? "" : fabric, system, lock, all.cycles(), w.durationNs() / 1e9,
                h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3,
                all.exclusive(), violations, all.errors(), all.firstError(), all.stuck());
    }

    private Part runOn(String peer, PeerClient client, int firstThread, int threadCount, PrintStream progress)
            throws InterruptedException {
        long start = System.nanoTime();
        long measureFrom = start + w.warmupNs();
        long measureTo = measureFrom + w.durationNs();
        List<Tally> tallies = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        LockChooser choose = LockChooser.of(w.locks(), w.zipf());
        for (int i = firstThread; i < firstThread + threadCount; i++) {
            Tally t = new Tally();
            tallies.add(t);
            long seed = w.seed() * 1_000_003L + i;
            Thread.Builder kind = w.virtualThreads() ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
            threads.add(kind.name("compare-" + peer + "-" + i).start(() -> loop(client, choose, t, seed, measureFrom, measureTo)));
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
        List<Part> done = new ArrayList<>();
        for (Tally t : tallies) {
            if (t.done) { // a stuck thread's tallies are still being written: left out
                done.add(new Part(t.cycles, t.exclusive, t.violations, t.errors, t.firstError == null ? "" : t.firstError, 0,
                        t.latencyNs));
            }
        }
        return Part.sum(done, stuck, stuckAt);
    }

    /**
     * One client thread's cycles until {@link #stop}. A cycle's latency runs from the end of the
     * thread's previous cycle (its release returned) to the end of this one's release: one clock
     * read a cycle, not two. So it takes in the pick of the lock, a few nanoseconds, besides the
     * acquisition and the release. On the shm fabric a clock read cost about 3% of a workload
     * thread's profile (about 30 ns on this machine).
     */
    private void loop(PeerClient client, LockChooser choose, Tally t, long seed, long measureFrom, long measureTo) {
        SplittableRandom random = new SplittableRandom(seed);
        try {
            long t0 = System.nanoTime();
            while (!stop) {
                int lock = choose.next(random);
                boolean shared = w.reads() && random.nextDouble() < w.readRatio();
                try {
                    PeerClient.Release release = client.acquire(lock, shared);
                    try {
                        if (shared) {
                            if (ExclusionCheck.writersOf(check.readerIn(lock)) != 0) {
                                t.violations++;
                            }
                            check.readerOut(lock);
                        } else {
                            long inside = check.writerIn(lock); // the writers and the readers, read at once
                            if (ExclusionCheck.writersOf(inside) != 1 || ExclusionCheck.readersOf(inside) != 0) {
                                t.violations++;
                            }
                            check.increment(lock);
                            check.writerOut(lock);
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
                    t0 = System.nanoTime(); // a failed cycle is not measured: the next one starts now
                    continue;
                }
                long t1 = System.nanoTime();
                if (t0 >= measureFrom && t1 <= measureTo) {
                    t.cycles++;
                    t.latencyNs.recordValue(Math.min(t1 - t0, t.latencyNs.getHighestTrackableValue()));
                }
                t0 = t1;
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
