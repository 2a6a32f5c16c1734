package io.lockfabric.sim;

import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The event queue against a plain priority queue, over delays near, at and far past the wheel's horizon. */
class EventQueueTest {
    private static final long HORIZON = (long) EventQueue.BUCKETS << EventQueue.BUCKET_SHIFT;

    private record Ev(long time, long seq, Runnable action) {
    }

    /** A distinct action per event (a lambda capturing nothing would be one shared instance). */
    private record Tag(long id) implements Runnable {
        @Override
        public void run() {
        }
    }

    private static long delay(SplittableRandom rnd) {
        return switch (rnd.nextInt(10)) {
            case 0 -> 0;
            case 1 -> rnd.nextLong(4);
            case 2, 3 -> rnd.nextLong(1 << EventQueue.BUCKET_SHIFT);
            case 4, 5 -> 1_000 + rnd.nextLong(200);
            case 6 -> rnd.nextLong(HORIZON);
            case 7 -> HORIZON - 64 + rnd.nextLong(128);
            case 8 -> rnd.nextLong(10 * HORIZON);
            default -> rnd.nextInt(100) == 0 ? Long.MAX_VALUE / 4 : rnd.nextLong(1L << 40);
        };
    }

    @Test
    void takesEventsInTimeThenSeqOrder() {
        for (long seed = 1; seed <= 12; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            EventQueue q = new EventQueue();
            PriorityQueue<Ev> ref = new PriorityQueue<>(Comparator.comparingLong(Ev::time).thenComparingLong(Ev::seq));
            long now = 0;
            long seq = 0;
            int target = 1 + rnd.nextInt(3_000);
            for (int step = 0; step < 40_000; step++) {
                boolean add = ref.isEmpty() || (ref.size() < target ? rnd.nextInt(3) != 0 : rnd.nextInt(3) == 0);
                if (add) {
                    int burst = rnd.nextInt(20) == 0 ? 1 + rnd.nextInt(300) : 1;
                    long time = now + delay(rnd);
                    for (int i = 0; i < burst; i++) {
                        Ev e = new Ev(time, seq, new Tag(seq));
                        seq++;
                        q.add(now, e.time(), e.seq(), e.action());
                        ref.add(e);
                    }
                } else {
                    Ev e = ref.poll();
                    long t = q.peekTime(now);
                    long s = seed;
                    int at = step;
                    assertEquals(e.time(), t, () -> "seed " + s + " step " + at);
                    assertSame(e.action(), q.poll(), () -> "seed " + s + " step " + at);
                    assertTrue(t >= now);
                    now = t;
                }
                assertEquals(ref.size(), q.size());
            }
            while (!ref.isEmpty()) {
                Ev e = ref.poll();
                long t = q.peekTime(now);
                assertEquals(e.time(), t);
                assertSame(e.action(), q.poll());
                now = t;
            }
            assertTrue(q.isEmpty());
        }
    }
}
