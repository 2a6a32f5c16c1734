package io.lockfabric.lock.rmarw;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.memory.MemoryRegion;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RmaRwLayoutTest {
    @Test
    void fieldsRoundTrip() {
        var id = new EndpointId(2, 99);
        Int128 e = RmaRwLayout.entry(7, id.pack(), true, 12, 5);
        assertEquals(id, RmaRwLayout.tailEndpoint(e));
        assertEquals(7, RmaRwLayout.releaseCount(e));
        assertTrue(RmaRwLayout.writeFlag(e));
        assertEquals(12, RmaRwLayout.arrive(e));
        assertEquals(5, RmaRwLayout.depart(e));
        assertEquals(7, RmaRwLayout.readers(e));
        Int128 free = RmaRwLayout.entry(0, 0, false, 0, 0);
        assertEquals(Int128.ZERO, free, "a fresh table: empty queue, no flag, counters 0");
        assertFalse(RmaRwLayout.writeFlag(free));
    }

    @Test
    void theFlagIsTheTopBitOfArrive() {
        assertEquals(1L << 31, RmaRwLayout.WRITE_FLAG);
        assertEquals(RmaRwLayout.WRITE_FLAG | RmaRwLayout.ARRIVE_COUNT_MASK, RmaRwLayout.ARRIVE_MASK);
        assertEquals(0, RmaRwLayout.ARRIVE_MASK & RmaRwLayout.DEPART_MASK);
        assertEquals(-1L, RmaRwLayout.TAIL_MASK | RmaRwLayout.COUNT_FIELD_MASK);
    }

    /** The masked FAAs the protocol uses, executed by the one class that defines verb semantics. */
    @Test
    void maskedFaaKeepsFieldsApart() {
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion r = new MemoryRegion(1, 16, new byte[0], arena);
            r.maskedCas128(0, Int128.ZERO, Int128.ZERO, RmaRwLayout.entry(3, 0xABCDEF, false, 0, 0), Int128.ONES);
            // Adding to depart past its 32 bits must not carry into anything else.
            r.maskedCas128(0, Int128.ZERO, Int128.ZERO, Int128.of(0, RmaRwLayout.counterWord(false, 4, 0xFFFF_FFFFL)),
                    Int128.of(0, -1L));
            r.maskedFaa128(0, RmaRwLayout.ONE_DEPART, RmaRwLayout.BOUNDARY);
            Int128 e = r.read16(0);
            assertEquals(0, RmaRwLayout.depart(e));
            assertEquals(4, RmaRwLayout.arrive(e));
            assertEquals(0xABCDEF, RmaRwLayout.tail(e));
            assertEquals(3, RmaRwLayout.releaseCount(e));
            // Setting the flag leaves the count; an arrival under the flag counts below it.
            Int128 old = r.maskedFaa128(0, RmaRwLayout.SET_WRITE_FLAG, RmaRwLayout.BOUNDARY);
            assertFalse(RmaRwLayout.writeFlag(old));
            r.maskedFaa128(0, RmaRwLayout.ONE_ARRIVE, RmaRwLayout.BOUNDARY);
            e = r.read16(0);
            assertTrue(RmaRwLayout.writeFlag(e));
            assertEquals(5, RmaRwLayout.arrive(e));
        }
    }
}
