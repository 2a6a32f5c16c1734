package io.lockfabric.lock.citron;

import io.lockfabric.fabric.memory.MemoryRegion;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CitronLayoutTest {

    @Test
    void paperSizedTreeHasTwelveLevelsAndAbout42Point7MiB() {
        var t = new CitronLayout(1L << 28);
        assertEquals(12, t.levels());
        assertEquals(5_592_405, t.nodes());
        assertEquals(32 + 5_592_405L * 8, t.tableBytes());
        assertEquals(42.7, t.nodes() * 8 / (1024.0 * 1024.0), 0.05);
    }

    @Test
    void childParentAndLevelsAgreeWithTheRanges() {
        var t = new CitronLayout(64 * 4 * 4 * 4); // 4 levels
        for (long x = 1; x <= t.nodes(); x++) {
            int d = t.level(x);
            assertEquals(t.span(d), t.rangeEnd(x) - t.rangeStart(x));
            assertEquals(x, t.nodeAt(d, t.rangeStart(x)));
            if (x > 1) {
                long par = CitronLayout.parent(x);
                assertEquals(d - 1, t.level(par));
                assertTrue(t.covers(par, x));
                assertEquals(x, CitronLayout.child(par, (int) ((x + 2) % 4)));
            }
            assertEquals(d == t.leafLevel(), t.isLeaf(x));
        }
        assertEquals(CitronLayout.levelStart(t.leafLevel()), t.nodeAt(t.leafLevel(), 0));
        assertEquals(t.nodes(), t.nodeAt(t.leafLevel(), t.units() - 1));
        assertEquals(CitronLayout.levelStart(2) + 4, CitronLayout.firstDescendant(3, 1));
    }

    @Test
    void leafMaskCoversExactlyTheRequestedUnits() {
        var t = new CitronLayout(256);
        long leaf1 = t.nodeAt(1, 64); // [64, 128)
        assertEquals(-1L, t.leafMask(leaf1, 0, 1000));
        assertEquals(0b1110L, t.leafMask(leaf1, 65, 68));
        assertEquals(1L << 63, t.leafMask(leaf1, 127, 130));
        assertEquals(0, t.leafMask(leaf1, 0, 64));
    }

    @Test
    void badSizesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new CitronLayout(1000));
        assertThrows(IllegalArgumentException.class, () -> new CitronLayout(128));
        assertThrows(IllegalArgumentException.class, () -> new CitronLayout(64L << 40));
    }

    /** Every field is its own MFAA field: no carry between counters, a flag cleared by adding 1. */
    @Test
    void internalFieldsWrapIndependentlyUnderMaskedFaa() {
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            var region = new MemoryRegion(0, 16, new byte[0], arena);
            long full = CitronLayout.word(false, true, 0x7FFF, 0x7FFF, 0x7FFF, 0x7FFF);
            region.write8(0, full);
            region.maskedFaa(0, CitronLayout.ONE_DMAX, CitronLayout.BOUNDARY_MASK);
            region.maskedFaa(0, CitronLayout.ONE_TMAX, CitronLayout.BOUNDARY_MASK);
            region.maskedFaa(0, CitronLayout.VACATE, CitronLayout.BOUNDARY_MASK);
            long w = region.read8(0);
            assertEquals(0, CitronLayout.dmax(w));
            assertEquals(0x7FFF, CitronLayout.dcnt(w));
            assertEquals(0, CitronLayout.tmax(w));
            assertEquals(0, CitronLayout.tcnt(w));
            assertFalse(CitronLayout.occupied(w));
            assertFalse(CitronLayout.expanded(w));
            assertEquals(0, w >>> 62, "reserved bits untouched");
        }
    }
}
