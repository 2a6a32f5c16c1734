package io.lockfabric.lock;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Open, named statistics: the standard counters, names a protocol adds, histograms, plus and minus. */
class LockStatsTest {
    @Test
    void theStandardCountersAreNamedAndAbsentOnesReadAsZero() {
        LockStats s = new LockStats(3, 2, 1);
        assertEquals(3, s.retries());
        assertEquals(2, s.aborts());
        assertEquals(1, s.resets());
        assertEquals(3, s.counter(LockStats.RETRIES));
        assertEquals(Set.of(LockStats.RETRIES, LockStats.ABORTS, LockStats.RESETS), s.counterNames());
        assertEquals(0, s.counter("no-such-count"));
        assertFalse(s.has(LockStats.TIMING_ABORTS), "absent is not the same as 0");
        assertTrue(ValueHistogram.EMPTY.equals(s.histogram("no-such-histogram")));
        assertEquals(0, LockStats.ZERO.retries());
        assertEquals("(no statistics)", LockStats.ZERO.toString());
    }

    @Test
    void aProtocolAddsItsOwnNamesAndTheyTravelThroughPlusAndMinus() {
        LockStats before = LockStats.builder().counter(LockStats.RETRIES, 1).counter("profile.ticket-ns", 100)
                .histogram("reset-latency-ns", ValueHistogram.of(50)).build();
        LockStats after = LockStats.builder().counter(LockStats.RETRIES, 4).counter("profile.ticket-ns", 350)
                .counter(LockStats.TIMING_ABORTS, 0).histogram("reset-latency-ns", ValueHistogram.of(50, 70, 70))
                .build();
        LockStats phase = after.minus(before);
        assertEquals(3, phase.retries());
        assertEquals(250, phase.counter("profile.ticket-ns"));
        assertTrue(phase.has(LockStats.TIMING_ABORTS), "a name either side reports is kept, even at 0");
        assertEquals(ValueHistogram.of(70, 70), phase.histogram("reset-latency-ns"));
        assertEquals(after, before.plus(phase));
        assertEquals(after.hashCode(), before.plus(phase).hashCode());
        LockStats twoClients = LockStats.ZERO.plus(phase).plus(new LockStats(1, 0, 0));
        assertEquals(4, twoClients.retries());
        assertEquals(250, twoClients.counter("profile.ticket-ns"));
        assertSame(phase, phase.minus(LockStats.ZERO));
    }

    @Test
    void theBuilderAddsAndRefusesANameThatIsBothKinds() {
        LockStats s = LockStats.builder().counter(LockStats.ABORTS, 2).add(LockStats.ABORTS, 3)
                .addAll(new LockStats(1, 1, 1)).build();
        assertEquals(6, s.aborts());
        assertEquals(1, s.retries());
        assertSame(LockStats.ZERO, LockStats.builder().build());
        assertThrows(IllegalArgumentException.class,
                () -> LockStats.builder().counter("x", 1).histogram("x", ValueHistogram.EMPTY));
        assertThrows(IllegalArgumentException.class, () -> LockStats.builder().counter(" ", 1));
        assertEquals("aborts=1 resets=1 retries=1 h=n=1 min=5 mean=5.00 max=5",
                LockStats.builder().addAll(new LockStats(1, 1, 1)).histogram("h", ValueHistogram.of(5)).build()
                        .toString());
    }
}
