package io.lockfabric.lock.rpcrange;

import io.lockfabric.lock.rpcrange.LlcList.Node;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lock-free range list: its grant rules step by step, then many threads on overlapping ranges. */
class LlcListTest {
    private long ids = 1;

    private Node node(long s, long e, boolean x) {
        return new Node(s, e, x, ids++, null);
    }

    @Test
    void readersShareWritersWaitAndReleasesWakeInOrder() {
        var list = new LlcList();
        Node r1 = node(0, 100, false);
        Node r2 = node(50, 60, false);
        Node w = node(55, 70, true);
        Node r3 = node(65, 80, false);
        Node far = node(200, 210, true);
        assertTrue(list.acquire(r1));
        assertTrue(list.acquire(r2), "readers overlap readers");
        assertFalse(list.acquire(w), "a writer waits for overlapping readers");
        assertFalse(list.acquire(r3), "a reader after a waiting writer waits for it");
        assertTrue(list.acquire(far), "disjoint ranges do not wait");
        assertEquals(List.of(), list.release(r2), "r1 still blocks the writer");
        assertEquals(List.of(w), list.release(r1));
        assertTrue(w.granted());
        assertEquals(List.of(r3), list.release(w));
        assertThrows(IllegalStateException.class, () -> list.release(w));
        list.release(r3);
        list.release(far);
        assertEquals(List.of(), list.snapshot(), "released nodes are unlinked");
    }

    @Test
    void aReaderInsertedBeforeAWaitingWriterOvertakesIt() {
        var list = new LlcList();
        Node r1 = node(10, 20, false);
        Node w = node(15, 30, true);
        assertTrue(list.acquire(r1));
        assertFalse(list.acquire(w));
        Node r0 = node(0, 16, false);
        assertTrue(list.acquire(r0), "no fairness, as in Kogan et al.: r0 sits before w");
        assertEquals(List.of(), list.release(r1), "r0 now blocks w");
        assertEquals(List.of(w), list.release(r0));
    }

    /**
     * Threads acquire random overlapping ranges (a quarter exclusive) on one list; a per-unit
     * occupancy array catches any overlap of a writer with anyone. Waiters park until a releasing
     * thread hands them the grant, as the server replies.
     */
    @Test
    void threadsNeverOverlapConflictingRanges() throws Exception {
        var list = new LlcList();
        int threads = 8;
        int span = 64;
        AtomicInteger[] readers = new AtomicInteger[span];
        AtomicInteger[] writers = new AtomicInteger[span];
        for (int i = 0; i < span; i++) {
            readers[i] = new AtomicInteger();
            writers[i] = new AtomicInteger();
        }
        AtomicLong nextId = new AtomicLong(1);
        AtomicReference<String> violation = new AtomicReference<>();
        AtomicLong grants = new AtomicLong();
        CountDownLatch done = new CountDownLatch(threads);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = t;
            ts.add(Thread.ofPlatform().start(() -> {
                var rnd = new Random(seed);
                try {
                    while (System.nanoTime() < deadline && violation.get() == null) {
                        int s = rnd.nextInt(span - 1);
                        int e = Math.min(span, s + 1 + rnd.nextInt(12));
                        boolean x = rnd.nextInt(4) == 0;
                        Holder me = new Holder(Thread.currentThread());
                        Node n = new Node(s, e, x, nextId.getAndIncrement(), me);
                        if (!list.acquire(n)) {
                            while (!me.granted) {
                                LockSupport.parkNanos(100_000);
                            }
                        }
                        for (int p = s; p < e; p++) {
                            int w = x ? writers[p].incrementAndGet() : writers[p].get();
                            int r = x ? readers[p].get() : readers[p].incrementAndGet();
                            if ((x && (w > 1 || r > 0)) || (!x && w > 0)) {
                                violation.compareAndSet(null, n + " overlaps at " + p + ": " + w + " writers, " + r + " readers");
                            }
                        }
                        Thread.onSpinWait();
                        for (int p = s; p < e; p++) {
                            (x ? writers : readers)[p].decrementAndGet();
                        }
                        grants.incrementAndGet();
                        for (Node woken : list.release(n)) {
                            Holder h = (Holder) woken.attachment();
                            h.granted = true;
                            LockSupport.unpark(h.thread);
                        }
                    }
                } finally {
                    done.countDown();
                }
            }));
        }
        assertTrue(done.await(20, TimeUnit.SECONDS), "every thread finished (no lost wake-up, no deadlock)");
        assertNull(violation.get());
        assertTrue(grants.get() > 1_000, "grants: " + grants.get());
        assertEquals(List.of(), list.snapshot());
    }

    private static final class Holder {
        final Thread thread;
        volatile boolean granted;

        Holder(Thread thread) {
            this.thread = thread;
        }
    }
}
