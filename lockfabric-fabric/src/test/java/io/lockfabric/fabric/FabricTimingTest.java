package io.lockfabric.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** FabricTiming: exact on RDMA, proportional to the round trip elsewhere, stalls added, infinity kept. */
class FabricTimingTest {
    @ParameterizedTest
    @ValueSource(longs = {0, 1, 1_000, 1_862, 15_000, 10_000_000, 1_000_000_000, Long.MAX_VALUE - 1, Long.MAX_VALUE})
    void everyWaitIsExactlyItselfOnRdma(long ns) {
        assertEquals(ns, FabricTiming.RDMA.scaled(ns));
        assertEquals(ns, FabricTiming.RDMA.scaled(ns, 3), "RDMA has no stalls");
    }

    @Test
    void aSlowerFabricScalesByItsRoundTripAndAddsItsStalls() {
        FabricTiming slow = new FabricTiming(40_000, 2_000_000);
        assertEquals(200_000_000, slow.scaled(10_000_000), "20 x the round trip, 20 x the wait");
        assertEquals(300_000, slow.scaled(15_000));
        assertEquals(2_300_000, slow.scaled(15_000, 1), "plus one stall");
        assertEquals(Long.MAX_VALUE, slow.scaled(Long.MAX_VALUE, 1), "infinite stays infinite");
        assertEquals(Long.MAX_VALUE, slow.scaled(Long.MAX_VALUE / 4), "a huge wait saturates");
        assertEquals(1_000, new FabricTiming(4_000, 0).scaled(2_000) / 4, "proportional");
    }

    @Test
    void aTimingNeedsAPositiveRoundTrip() {
        assertThrows(IllegalArgumentException.class, () -> new FabricTiming(0, 0));
        assertThrows(IllegalArgumentException.class, () -> new FabricTiming(1, -1));
        assertEquals("round trip 2us, stall 0ns", FabricTiming.RDMA.toString());
    }
}
