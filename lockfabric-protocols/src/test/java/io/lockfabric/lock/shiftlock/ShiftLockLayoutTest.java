package io.lockfabric.lock.shiftlock;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.memory.MemoryRegion;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The entry's bit fields and the extended atomics ShiftLock applies to them. */
class ShiftLockLayoutTest {

    @Test
    void fieldsSitWhereTheDiagramSays() {
        assertEquals(0x1L, ShiftLockLayout.EPOCH_MASK);
        assertEquals(0x0000_0000_00FF_FFFEL, ShiftLockLayout.RDRCNT_MASK);
        assertEquals(0x0000_00FF_FF00_0000L, ShiftLockLayout.NODE_MASK);
        assertEquals(0xFFFF_FF00_0000_0000L, ShiftLockLayout.QUEUE_MASK);
        assertEquals(-1L, ShiftLockLayout.EPOCH_MASK | ShiftLockLayout.RDRCNT_MASK | ShiftLockLayout.TAIL_MASK);
        assertEquals(0, ShiftLockLayout.EPOCH_MASK & ShiftLockLayout.RDRCNT_MASK);
        assertEquals(0, ShiftLockLayout.RDRCNT_MASK & ShiftLockLayout.TAIL_MASK);
        long w = ShiftLockLayout.word0(1, 5, ShiftLockLayout.tailOf(new EndpointId(3, 7)));
        assertEquals(1, ShiftLockLayout.epoch(w));
        assertEquals(5, ShiftLockLayout.rdrCnt(w));
        assertEquals((3L << 24) | (7L << 40) | (5L << 1) | 1, w);
        assertThrows(IllegalArgumentException.class, () -> ShiftLockLayout.word0(2, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> ShiftLockLayout.word0(0, ShiftLockLayout.RDRCNT_MAX + 1, 0));
    }

    @Test
    void tailPointerIsTheEndpointIdItself() {
        for (EndpointId id : new EndpointId[] {new EndpointId(0, 1), new EndpointId(EndpointId.MAX_NODE, EndpointId.MAX_QUEUE),
                new EndpointId(4, 123_456)}) {
            long tail = ShiftLockLayout.tailOf(id);
            assertTrue(tail != 0 && (tail & ~ShiftLockLayout.TAIL_MASK) == 0);
            assertEquals(id, ShiftLockLayout.endpointOf(tail));
        }
        assertThrows(IllegalArgumentException.class, () -> ShiftLockLayout.endpointOf(0));
        assertThrows(IllegalArgumentException.class, () -> ShiftLockLayout.endpointOf(1));
    }

    @Test
    void extendedAtomicsKeepFieldsApart() {
        try (Arena arena = Arena.ofConfined()) {
            var r = new MemoryRegion(1, 64, new byte[0], arena);
            long tail = ShiftLockLayout.tailOf(new EndpointId(MAX_NODE_MINUS, 9));
            // Writer enqueue: a fetch-and-store of TailPtr that leaves the rest alone.
            r.maskedCas128(16, Int128.ZERO, Int128.ZERO, Int128.of(ShiftLockLayout.word0(1, 0, 0), 41), Int128.ONES);
            Int128 old = r.maskedCas128(16, Int128.ZERO, Int128.ZERO, Int128.of(tail, 0), ShiftLockLayout.TAIL_SWAP_MASK);
            assertEquals(0, ShiftLockLayout.tail(old.lo()));
            assertEquals(tail, ShiftLockLayout.tail(r.read16(16).lo()));
            // A reader counts in and out without touching TailPtr or Epoch; the release adds to RelCnt.
            r.maskedFaa128(16, ShiftLockLayout.READER_ACQUIRE_ADD, ShiftLockLayout.BOUNDARIES);
            r.maskedFaa128(16, ShiftLockLayout.READER_ACQUIRE_ADD, ShiftLockLayout.BOUNDARIES);
            Int128 e = r.read16(16);
            assertEquals(2, ShiftLockLayout.rdrCnt(e.lo()));
            assertEquals(tail, ShiftLockLayout.tail(e.lo()));
            assertEquals(1, ShiftLockLayout.epoch(e.lo()));
            r.maskedFaa128(16, ShiftLockLayout.READER_RELEASE_ADD, ShiftLockLayout.BOUNDARIES);
            e = r.read16(16);
            assertEquals(1, ShiftLockLayout.rdrCnt(e.lo()));
            assertEquals(tail, ShiftLockLayout.tail(e.lo()));
            assertEquals(1, ShiftLockLayout.epoch(e.lo()));
            assertEquals(42, e.hi());
            // An epoch flip by MFAA never carries into RdrCnt.
            r.maskedFaa128(16, Int128.of(1, 1), ShiftLockLayout.BOUNDARIES);
            e = r.read16(16);
            assertEquals(0, ShiftLockLayout.epoch(e.lo()));
            assertEquals(1, ShiftLockLayout.rdrCnt(e.lo()));
            assertEquals(43, e.hi());
            // RelCnt's carry stays in RelCnt (word 1), never reaching word 0's top field.
            r.maskedCas128(32, Int128.ZERO, Int128.ZERO, Int128.of(tail, -1L), Int128.ONES);
            r.maskedFaa128(32, ShiftLockLayout.READER_RELEASE_ADD, ShiftLockLayout.BOUNDARIES);
            e = r.read16(32);
            assertEquals(0, e.hi());
            assertEquals(tail, ShiftLockLayout.tail(e.lo()));
        }
    }

    private static final int MAX_NODE_MINUS = EndpointId.MAX_NODE - 1;

    @Test
    void leapsAreTellableFromProgress() {
        assertFalse(ShiftLockLayout.leapt(10, 10));
        assertFalse(ShiftLockLayout.leapt(10, 10 + 1_000_000));
        assertTrue(ShiftLockLayout.leapt(10, 10 + ShiftLockLayout.LEAP));
        assertTrue(ShiftLockLayout.leapt(-5, -5 + ShiftLockLayout.LEAP + 3));
        assertTrue(ShiftLockLayout.leapt(10, 9), "going backwards is no progress");
    }

    @Test
    void tableHoldsEntriesThenEras() {
        assertEquals(4 * 16 + 3 * 8, ShiftLockLayout.tableBytes(4, 3));
        assertEquals(64 + 16, ShiftLockLayout.eraOffset(4, 2));
        for (long lock = 0; lock < 100; lock++) {
            int era = ShiftLockLayout.eraOf(lock, 7);
            assertTrue(era >= 0 && era < 7);
        }
    }

    @Test
    void grantWordsRoundTrip() {
        long w = ShiftLockMessages.grantWord(-3, 17, 1);
        assertEquals(-3, ShiftLockMessages.attempt(w));
        assertEquals(17, ShiftLockMessages.consWrt(w));
        assertEquals(1, ShiftLockMessages.epoch(w));
        assertEquals(ShiftLockMessages.CONS_WRT_MAX, ShiftLockMessages.consWrt(ShiftLockMessages.grantWord(1, Long.MAX_VALUE, 0)));
    }

    @Test
    void recoveryServiceResetsOncePerEraAndOnlyAStuckEntry() {
        try (Arena arena = Arena.ofConfined()) {
            long locks = 4;
            var r = new MemoryRegion(1, ShiftLockLayout.tableBytes(locks, 1), new byte[0], arena);
            var service = new ShiftLockRecovery(r, locks, 1);
            long tail = ShiftLockLayout.tailOf(new EndpointId(1, 2));
            r.maskedCas128(16, Int128.ZERO, Int128.ZERO, Int128.of(ShiftLockLayout.word0(1, 3, tail), 77), Int128.ONES);
            assertEquals(ShiftLockRecovery.PROGRESSED, call(service, 1, 0, 76), "RelCnt moved since it was seen");
            assertEquals(ShiftLockRecovery.RECOVERED, call(service, 1, 0, 77));
            Int128 e = r.read16(16);
            assertEquals(0, e.lo());
            assertEquals(77 + ShiftLockLayout.LEAP, e.hi());
            assertEquals(1, r.read8(ShiftLockLayout.eraOffset(locks, 0)));
            assertEquals(ShiftLockRecovery.STALE_ERA, call(service, 1, 0, 77 + ShiftLockLayout.LEAP), "once per era");
            assertEquals(Int128.of(0, 77 + ShiftLockLayout.LEAP), r.read16(16));
            assertEquals(1, service.recoveries());
        }
    }

    private static byte call(ShiftLockRecovery service, long lock, long era, long stuck) {
        byte[][] reply = new byte[1][];
        service.handle(new io.lockfabric.fabric.RpcCall() {
            @Override
            public EndpointId caller() {
                return new EndpointId(0, 1);
            }

            @Override
            public byte[] request() {
                return ShiftLockRecovery.request(lock, era, stuck);
            }

            @Override
            public void reply(byte[] response) {
                reply[0] = response;
            }

            @Override
            public void fail(String reason) {
                throw new AssertionError(reason);
            }
        });
        assertEquals(1, reply[0].length);
        return reply[0][0];
    }
}
