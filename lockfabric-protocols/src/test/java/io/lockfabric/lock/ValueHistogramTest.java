package io.lockfabric.lock;

import org.junit.jupiter.api.Test;

import java.util.NoSuchElementException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exact histogram of {@link LockStats}: its summaries are the recorded values' own. */
class ValueHistogramTest {
    @Test
    void summariesAreExact() {
        ValueHistogram.Recorder r = new ValueHistogram.Recorder();
        for (long v : new long[] {300, 100, 200, 100, 400}) {
            r.record(v);
        }
        ValueHistogram h = r.snapshot();
        assertEquals(5, h.count());
        assertEquals(1_100, h.sum());
        assertEquals(220.0, h.mean());
        assertEquals(100, h.min());
        assertEquals(400, h.max());
        assertArrayEquals(new long[] {100, 100, 200, 300, 400}, h.values());
        // the value at index floor(q n) of the sorted values
        assertEquals(100, h.quantile(0));
        assertEquals(200, h.quantile(0.5));
        assertEquals(400, h.quantile(0.9));
        assertEquals(400, h.quantile(1));
        assertEquals("n=5 min=100 mean=220.00 max=400", h.toString());
    }

    @Test
    void snapshotsAddAndSubtract() {
        ValueHistogram.Recorder r = new ValueHistogram.Recorder();
        r.record(5);
        ValueHistogram before = r.snapshot();
        r.record(5);
        r.record(9);
        ValueHistogram after = r.snapshot();
        ValueHistogram phase = after.minus(before);
        assertEquals(ValueHistogram.of(5, 9), phase);
        assertEquals(after, before.plus(phase));
        assertEquals(ValueHistogram.EMPTY, after.minus(after));
        assertTrue(after.minus(after).isEmpty());
        assertThrows(IllegalArgumentException.class, () -> before.minus(after), "more 5s taken out than recorded");
    }

    @Test
    void anEmptyHistogramHasACountButNoExtremes() {
        assertEquals(0, ValueHistogram.EMPTY.count());
        assertEquals(0, ValueHistogram.EMPTY.mean());
        assertEquals(0, ValueHistogram.EMPTY.values().length);
        assertThrows(NoSuchElementException.class, ValueHistogram.EMPTY::max);
        assertThrows(NoSuchElementException.class, () -> ValueHistogram.EMPTY.quantile(0.5));
        assertThrows(IllegalArgumentException.class, () -> ValueHistogram.of(1).quantile(1.5));
    }
}
