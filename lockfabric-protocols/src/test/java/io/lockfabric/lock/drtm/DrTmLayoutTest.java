package io.lockfabric.lock.drtm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DrTmLayoutTest {
    @Test
    void bitsAreWhereDrTmPutsThem() {
        assertEquals(1, DrTmLayout.WRITE_LOCKED, "write lock: bit 0");
        assertEquals(0x1FEL, DrTmLayout.OWNER_MASK, "owner: bits 1-8");
        assertEquals(9, DrTmLayout.LEASE_SHIFT, "lease end: bits 9-63");
        assertEquals(55, DrTmLayout.LEASE_BITS);
    }

    @Test
    void lockedAndLeasedWordsDecode() {
        long w = DrTmLayout.locked(200);
        assertTrue(DrTmLayout.writeLocked(w));
        assertEquals(200, DrTmLayout.owner(w));
        assertEquals(0, DrTmLayout.leaseEnd(w));
        long l = DrTmLayout.lease(DrTmLayout.LEASE_MAX);
        assertFalse(DrTmLayout.writeLocked(l));
        assertEquals(0, DrTmLayout.owner(l));
        assertEquals(DrTmLayout.LEASE_MAX, DrTmLayout.leaseEnd(l));
        assertThrows(IllegalArgumentException.class, () -> DrTmLayout.lease(0));
        assertThrows(IllegalArgumentException.class, () -> DrTmLayout.lease(DrTmLayout.LEASE_MAX + 1));
        assertThrows(IllegalArgumentException.class, () -> DrTmLayout.locked(256));
    }

    @Test
    void ordinalsFoldIntoTheOwnerField() {
        assertEquals(1, DrTmLayout.ownerOf(1));
        assertEquals(255, DrTmLayout.ownerOf(255));
        assertEquals(1, DrTmLayout.ownerOf(256));
        assertEquals(10, DrTmLayout.ownerOf(265));
        assertEquals(((1 << 24) - 2) % 255 + 1, DrTmLayout.ownerOf((1 << 24) - 1), "the largest ordinal");
        for (int o = 1; o < 2000; o++) {
            long f = DrTmLayout.ownerOf(o);
            assertTrue(f >= 1 && f <= DrTmLayout.OWNER_MAX, "ordinal " + o + " -> " + f);
        }
    }

    @Test
    void theEpochWordIsNeverZero() {
        assertNotEquals(0, DrTmLayout.epochWord(0));
        assertNotEquals(0, DrTmLayout.epochWord(-1_000_000_000L));
        assertEquals(1_000_001, DrTmLayout.epochWord(1_000_000));
    }
}
