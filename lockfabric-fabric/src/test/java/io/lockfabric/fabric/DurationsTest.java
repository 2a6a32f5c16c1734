package io.lockfabric.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Durations as options and addresses write them. */
class DurationsTest {
    @Test
    void unitsFractionsAndABareZero() {
        assertEquals(300_000, Durations.parseNanos("300us"));
        assertEquals(300_000, Durations.parseNanos("300µs"));
        assertEquals(1_500_000, Durations.parseNanos("1.5ms"));
        assertEquals(2_000_000_000L, Durations.parseNanos("2s"));
        assertEquals(60_000_000_000L, Durations.parseNanos("1m"));
        assertEquals(1_000_000, Durations.parseNanos("1_000_000ns"));
        assertEquals(0, Durations.parseNanos("0"), "a bare 0 needs no unit");
        assertEquals(0, Durations.parseNanos("0s"));
    }

    @Test
    void anythingElseIsRefusedSayingWhatADurationIs() {
        for (String bad : new String[] {"1", "soon", "-1s", "ms", "1e400s", "0.5", "1d"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parseNanos(bad), bad);
            assertEquals(true, e.getMessage().contains("is not a duration"), e.getMessage());
        }
    }
}
