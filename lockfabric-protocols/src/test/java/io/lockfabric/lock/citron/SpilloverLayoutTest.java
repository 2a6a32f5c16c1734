package io.lockfabric.lock.citron;

import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.lock.dslr.DslrLayout;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The spillover mutex's word keeps DSLR's bit positions, so a table's header reads as it always did. */
class SpilloverLayoutTest {
    @Test
    void theExclusiveCountersSitWhereDslrHasThem() {
        long w = DslrLayout.word(0x1234, 0x0BCD, 0x0567, 0x0089);
        assertEquals(DslrLayout.nX(w), SpilloverLayout.nX(w));
        assertEquals(DslrLayout.maxX(w), SpilloverLayout.maxX(w));
        assertEquals(DslrLayout.ONE_MAX_X, SpilloverLayout.ONE_MAX_X);
        assertEquals(DslrLayout.ONE_N_X, SpilloverLayout.ONE_N_X);
        assertEquals(DslrLayout.N_X_MASK, SpilloverLayout.N_X_MASK);
        assertEquals(DslrLayout.COUNTER_MASK, SpilloverLayout.COUNTER_MASK);
    }

    @Test
    void eachCounterWrapsOnItsOwnUnderMaskedFaa() {
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            var region = new MemoryRegion(0, 8, new byte[0], arena);
            region.write8(0, DslrLayout.word(0xFFFF, 0, 0xFFFF, 0));
            region.maskedFaa(0, SpilloverLayout.ONE_MAX_X, SpilloverLayout.BOUNDARY_MASK);
            region.maskedFaa(0, SpilloverLayout.ONE_N_X, SpilloverLayout.BOUNDARY_MASK);
            long w = region.read8(0);
            assertEquals(0, SpilloverLayout.maxX(w));
            assertEquals(0, SpilloverLayout.nX(w));
            assertEquals(0, w, "no carry crossed into a neighbouring counter");
        }
    }
}
