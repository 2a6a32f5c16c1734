package io.lockfabric.lock;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.lock.LatencyBreakdown.Item;
import io.lockfabric.lock.LatencyBreakdown.Part;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LatencyBreakdownTest {
    @Test
    void averagesAreTotalsOverThePartsOperations() {
        LatencyBreakdown.Recorder rec = new LatencyBreakdown.Recorder();
        assertTrue(rec.snapshot().isEmpty());
        rec.add(Part.WRITER_ACQUIRE, Item.IA, 2_000);
        rec.add(Part.WRITER_ACQUIRE, Item.WP, 10_000);
        rec.completed(Part.WRITER_ACQUIRE);
        rec.add(Part.WRITER_ACQUIRE, Item.IA, 3_000);
        rec.completed(Part.WRITER_ACQUIRE);
        LatencyBreakdown b = rec.snapshot();
        assertFalse(b.isEmpty());
        assertEquals(2, b.operations(Part.WRITER_ACQUIRE));
        assertEquals(2_500, b.averageNs(Part.WRITER_ACQUIRE, Item.IA), 1e-9);
        assertEquals(5_000, b.averageNs(Part.WRITER_ACQUIRE, Item.WP), 1e-9, "an item absent from one operation counts as 0 there");
        assertEquals(0, b.averageNs(Part.RELEASE, Item.IA), "no operations, no average");
    }

    @Test
    void snapshotsSubtractAndAddLikeTheOtherStats() {
        LatencyBreakdown.Recorder rec = new LatencyBreakdown.Recorder();
        rec.add(Part.RELEASE, Item.NS, 700);
        rec.completed(Part.RELEASE);
        LatencyBreakdown before = rec.snapshot();
        rec.add(Part.RELEASE, Item.NS, 300);
        rec.completed(Part.RELEASE);
        LatencyBreakdown after = rec.snapshot();
        LatencyBreakdown delta = after.minus(before);
        assertEquals(1, delta.operations(Part.RELEASE));
        assertEquals(300, delta.totalNs(Part.RELEASE, Item.NS));
        assertEquals(after, before.plus(delta));
        LockStats s = after.addTo(LockStats.builder().counter(LockStats.RETRIES, 1)).build()
                .minus(before.addTo(LockStats.builder().counter(LockStats.RETRIES, 0)).build());
        assertEquals(delta, LatencyBreakdown.of(s), "the breakdown travels in the named statistics");
        assertEquals(1, s.retries());
        assertEquals(LatencyBreakdown.EMPTY, LatencyBreakdown.of(new LockStats(1, 2, 3)));
        assertTrue(LatencyBreakdown.of(LockStats.ZERO).isEmpty());
    }

    @Test
    void anUntimedRecorderCountsOperationsAndNeverReadsTheClock() {
        Clock unreadable = new Clock() {
            @Override
            public long nanoTime() {
                throw new AssertionError("an untimed recorder read the clock");
            }

            @Override
            public void sleepNanos(long nanos) {
                throw new AssertionError();
            }

            @Override
            public IdleStrategy idleStrategy() {
                throw new AssertionError();
            }
        };
        LatencyBreakdown.Recorder rec = new LatencyBreakdown.Recorder(false);
        assertFalse(rec.timed());
        long since = rec.start(unreadable);
        assertEquals(0, since);
        assertEquals(since, rec.lap(unreadable, Part.WRITER_ACQUIRE, Item.IA, since));
        rec.completed(Part.WRITER_ACQUIRE);
        LatencyBreakdown b = rec.snapshot();
        assertEquals(1, b.operations(Part.WRITER_ACQUIRE));
        assertEquals(0, b.totalNs(Part.WRITER_ACQUIRE, Item.IA));
        assertTrue(new LatencyBreakdown.Recorder().timed(), "timed unless told otherwise");
    }
}
