package io.lockfabric.compare;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runner's check: it passes a lock that excludes and catches one that does not. */
class WorkloadRunnerTest {
    private static final CompareWorkload W = new CompareWorkload(4, 4, 0.99, 0, TimeUnit.MILLISECONDS.toNanos(50),
            TimeUnit.MILLISECONDS.toNanos(300), 1);

    /** Locks of this JVM (j.u.c), to test the runner with. */
    private static final class JucPeer implements PeerClient {
        private final ReentrantReadWriteLock[] locks;
        private final boolean broken;

        JucPeer(int n, boolean broken) {
            locks = new ReentrantReadWriteLock[n];
            for (int i = 0; i < n; i++) {
                locks[i] = new ReentrantReadWriteLock();
            }
            this.broken = broken;
        }

        @Override
        public Release acquire(int lock, boolean shared) {
            if (broken) {
                return () -> { };
            }
            var l = shared ? locks[lock].readLock() : locks[lock].writeLock();
            l.lock();
            return l::unlock;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aLockThatExcludesPassesTheCheck() throws InterruptedException {
        PeerResult r = WorkloadRunner.run("juc", null, "j.u.c", "ReentrantReadWriteLock", new JucPeer(4, false), W, null);
        assertTrue(r.ok(), r.outcome());
        assertTrue(r.cycles() > 100, "cycles " + r.cycles());
        // no warm-up: exclusive cycles are counted over the whole run, cycles over the measured part,
        // and a CPU-starved measurement after a warm-up made the two incomparable
        CompareWorkload reads = new CompareWorkload(4, 4, 0.99, 0.5, 0, W.durationNs(), 1);
        PeerResult rr = WorkloadRunner.run("juc", null, "j.u.c", "ReentrantReadWriteLock", new JucPeer(4, false), reads, null);
        assertTrue(rr.ok(), rr.outcome());
        assertTrue(rr.cycles() > 100, "cycles " + rr.cycles());
        // half the requests read: the exclusive ones are about half of all (+ 4 cycles that may straddle the end)
        assertTrue(rr.exclusive() > 0 && rr.exclusive() < (rr.cycles() + 4) * 3 / 4,
                "exclusive " + rr.exclusive() + " of " + rr.cycles() + " cycles");
    }

    @Test
    void aLockThatDoesNotExcludeIsCaught() throws InterruptedException {
        CompareWorkload hot = new CompareWorkload(8, 2, 0, 0, 0, TimeUnit.SECONDS.toNanos(1), 1);
        PeerResult r = WorkloadRunner.run("none", null, "nothing", "none", new JucPeer(2, true), hot, null);
        assertTrue(r.violations() > 0, "a lock that does not exclude passed: " + r);
        assertTrue(r.outcome().contains("violation"), r.outcome());
    }

    @Test
    void failuresAreCountedNotThrown() throws InterruptedException {
        ReentrantLock unused = new ReentrantLock();
        PeerClient failing = new PeerClient() {
            @Override
            public Release acquire(int lock, boolean shared) {
                unused.lock();
                unused.unlock();
                throw new IllegalStateException("no server");
            }

            @Override
            public void close() {
            }
        };
        PeerResult r = WorkloadRunner.run("failing", null, "x", "x", failing, W, null);
        assertEquals(0, r.cycles());
        assertTrue(r.errors() > 0 && r.outcome().contains("no server"), r.outcome());
    }

    /**
     * A cycle is timed from the end of the thread's previous cycle: its hold is in its latency, and
     * a failed attempt before it is not (the clock starts again after a failure). Timed with the
     * failure, a cycle would take at least 22 ms; the bound leaves its 2 ms hold 17 ms to oversleep.
     */
    @Test
    void aCycleIsTimedFromThePreviousOneAndAFailureRestartsTheClock() throws InterruptedException {
        PeerClient everyOtherFails = new PeerClient() {
            private final ThreadLocal<int[]> calls = ThreadLocal.withInitial(() -> new int[1]);

            @Override
            public Release acquire(int lock, boolean shared) throws InterruptedException {
                if (calls.get()[0]++ % 2 == 0) {
                    Thread.sleep(20);
                    throw new IllegalStateException("refused after 20 ms");
                }
                return () -> Thread.sleep(2);
            }

            @Override
            public void close() {
            }
        };
        CompareWorkload one = new CompareWorkload(1, 4, 0, 0, 0, TimeUnit.MILLISECONDS.toNanos(400), 1);
        PeerResult r = WorkloadRunner.run("flaky", null, "x", "x", everyOtherFails, one, null);
        assertTrue(r.cycles() >= 5 && r.errors() >= 5, r.cycles() + " cycles, " + r.errors() + " errors");
        assertTrue(r.p50Us() >= 2_000, "the hold is in a cycle's latency: p50 " + r.p50Us() + " us");
        assertTrue(r.p99Us() < 19_000, "a failed attempt's 20 ms is not: p99 " + r.p99Us() + " us");
    }

    @Test
    void theReportHasEveryFormatAndTheRatioToLockFabricsBest() throws Exception {
        PeerResult lf = new PeerResult("lockfabric local dslr", true, "local", "LockFabric on local", "dslr", 10_000, 1, 1, 2, 3,
                10_000, 0, 0, "", 0);
        PeerResult tcp = new PeerResult("lockfabric tcp dslr", true, "tcp", "LockFabric, memory node", "dslr", 4_000, 1, 1, 2, 3,
                4_000, 0, 0, "", 0);
        PeerResult peer = new PeerResult("redisson", false, "", "Redisson, on \"redis\"", "RLock", 1_000, 1, 10, 20, 30, 1_000, 0,
                0, "", 0);
        CompareReport report = new CompareReport(W, List.of(lf, tcp, peer));
        assertEquals(10.0, report.ratio(peer), 1e-9);
        assertEquals(4.0, report.crossProcessRatio(peer), 1e-9);
        assertEquals(1.0, report.ratio(lf), 1e-9);
        assertTrue(report.table().contains("10.00x") && report.table().contains("4.00x"), report.table());
        String[] csv = report.csv().split("\n");
        assertEquals(4, csv.length);
        assertTrue(csv[3].contains("\"Redisson, on \"\"redis\"\"\"") && csv[3].contains(",10.000,4.000,"), csv[3]);
        String[] json = report.json().split("\n");
        assertEquals(3, json.length);
        assertTrue(json[2].contains("\"lockfabric_best_ratio\":10.000") && json[2].contains("\\\"redis\\\"")
                && json[2].contains("\"lockfabric_cross_process_best_ratio\":4.000") && json[2].contains("\"fabric\":null"), json[2]);
        java.nio.file.Path png = java.nio.file.Files.createTempFile("compare", ".png");
        try {
            BarChart.write(report, png);
            var img = javax.imageio.ImageIO.read(png.toFile());
            assertTrue(img.getWidth() > 400 && img.getHeight() > 80, img.getWidth() + "x" + img.getHeight());
        } finally {
            java.nio.file.Files.deleteIfExists(png);
        }
    }

    @Test
    void aMissingRedisServerIsAnErrorThatSaysHowToInstallIt() {
        Comparison.Settings s = new Comparison.Settings(List.of("lockfabric", "redisson", "curator"), List.of("local"),
                List.of("default"), W, 1);
        try (Comparison c = new Comparison(s, null)) {
            PeerUnavailableException e = org.junit.jupiter.api.Assertions.assertThrows(PeerUnavailableException.class,
                    () -> c.checkAvailable(program -> null));
            assertTrue(e.getMessage().contains("apt-get install redis-server") && e.getMessage().contains("--peers lockfabric,curator"),
                    e.getMessage());
            c.checkAvailable(program -> java.nio.file.Path.of("/bin/true"));
        }
        Comparison.Settings without = new Comparison.Settings(List.of("curator"), List.of(), List.of(), W, 1);
        try (Comparison c = new Comparison(without, null)) {
            c.checkAvailable(program -> null); // redisson left out: nothing missing
        }
    }

    @Test
    void aMissingEtcdIsAnErrorThatSaysHowToInstallIt() {
        Comparison.Settings s = new Comparison.Settings(List.of("curator", "etcd"), List.of(), List.of(), W, 1);
        try (Comparison c = new Comparison(s, null)) {
            PeerUnavailableException e = org.junit.jupiter.api.Assertions.assertThrows(PeerUnavailableException.class,
                    () -> c.checkAvailable(program -> program.equals("etcd") ? null : java.nio.file.Path.of("/bin/true")));
            assertTrue(e.getMessage().contains("apt-get install etcd-server") && e.getMessage().contains("--peers curator"),
                    e.getMessage());
        }
        Comparison.Settings without = new Comparison.Settings(List.of("curator"), List.of(), List.of(), W, 1);
        try (Comparison c = new Comparison(without, null)) {
            c.checkAvailable(program -> null); // etcd left out: nothing missing
        }
    }

    @Test
    void badSettingsAreRefusedInOneLine() {
        for (List<String> peers : List.of(List.of("zookeeper"), List.of("nope"), List.<String>of())) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> new Comparison.Settings(peers, List.of("local"), List.of("default"), W, 1));
            assertTrue(e.getMessage().startsWith("--peers"), e.getMessage());
        }
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new Comparison.Settings(List.of("hazelcast"), List.of(), List.of(), W, 2));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new CompareWorkload(1, 1, 0, 1.5, 0, 1, 1));
        IllegalArgumentException lh = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new Comparison.Settings(List.of("lockfabric"), List.of("local"), List.of("default"), W, 1, List.of(-1)));
        assertTrue(lh.getMessage().startsWith("--local-handovers"), lh.getMessage());
        for (List<Integer> processes : List.of(List.of(0), List.of(5), List.<Integer>of())) {
            IllegalArgumentException cp = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> new Comparison.Settings(List.of("redisson"), List.of(), List.of(), W, 1, List.of(0), processes));
            assertTrue(cp.getMessage().startsWith("--client-processes needs values between 1 and --threads (4)"), cp.getMessage());
        }
        IllegalArgumentException local = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new Comparison.Settings(List.of("lockfabric"), List.of("local"), List.of("default"), W, 1, List.of(0), List.of(2)));
        assertTrue(local.getMessage().contains("the local fabric is one process's memory"), local.getMessage());
        // with 1 among the values, the local fabric runs in this process only
        assertEquals(List.of(1, 2), new Comparison.Settings(List.of("lockfabric"), List.of("local"), List.of("default"), W, 1,
                List.of(0), List.of(1, 2)).clientProcesses());
    }

    /** A client process's part survives its one line ({@link WorkloadRunner.Part#encode}), error text and histogram too. */
    @Test
    void aClientProcessesPartReadsBackAsItWasWritten() {
        org.HdrHistogram.Histogram h = new org.HdrHistogram.Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        h.recordValue(1_500);
        h.recordValue(90_000);
        WorkloadRunner.Part p = new WorkloadRunner.Part(12, 7, 1, 2, "IllegalStateException: a b=c", 0, h);
        WorkloadRunner.Part back = WorkloadRunner.Part.decode(p.encode());
        assertEquals(List.of(12L, 7L, 1L, 2L, 0L), List.of(back.cycles(), back.exclusive(), back.violations(), back.errors(),
                (long) back.stuck()));
        assertEquals("IllegalStateException: a b=c", back.firstError());
        assertEquals(2, back.latencyNs().getTotalCount());
        assertEquals(h.getValueAtPercentile(99), back.latencyNs().getValueAtPercentile(99));
        assertThrows(IllegalArgumentException.class, () -> WorkloadRunner.Part.decode("cycles=1 nonsense"));
    }
}
