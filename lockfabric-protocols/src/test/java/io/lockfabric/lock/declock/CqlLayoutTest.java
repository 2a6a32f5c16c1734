package io.lockfabric.lock.declock;


import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The CQL header and entry encodings: field widths, deltas that never borrow, versions, tokens. */
class CqlLayoutTest {

    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(ints = {2, 8, 512, 4096})
    void fieldsHaveTheSpecWidthsAndPositions(int capacity) {
        var l = new CqlLayout(capacity, 2 * capacity - 1);
        int c = Integer.numberOfTrailingZeros(capacity);
        assertEquals(1L, l.header(true, 0, 0, 0, 0), "RST is bit 0");
        assertEquals(1L << 1, l.header(false, 1, 0, 0, 0), "wcnt from bit 1");
        assertEquals(1L << (c + 2), l.header(false, 0, 1, 0, 0), "qsize from bit C+2");
        assertEquals(1L << (2 * c + 3), l.header(false, 0, 0, 1, 0), "qhead from bit 2C+3");
        assertEquals(1L << (2 * c + 27), l.header(false, 0, 0, 0, 1), "RSTCNT from bit 2C+27");
        assertEquals(37 - 2 * c, l.rstcntBits());
        assertEquals((1 << (c + 1)) - 1, l.maxParticipants(), "qsize and wcnt have C+1 bits");
        long h = l.header(true, 5 % capacity, 7 % capacity, 123_456, 77);
        assertTrue(CqlLayout.rst(h));
        assertEquals(5 % capacity, l.wcnt(h));
        assertEquals(7 % capacity, l.qsize(h));
        assertEquals(123_456, l.qhead(h));
        assertEquals(77, l.rstcnt(h));
    }

    /**
     * Every delta, applied with plain 64-bit addition to any header the protocol allows (counts up
     * to the participant bound, qhead up to the index limit, any reset count), changes exactly its
     * own fields: nothing borrows or carries across, not even qhead at its largest into RSTCNT.
     */
    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(ints = {2, 8, 512, 4096})
    void deltasNeverBorrowAcrossFields(int capacity) {
        var l = new CqlLayout(capacity, 2 * capacity - 1);
        long max = l.maxParticipants();
        long rstMax = (1L << l.rstcntBits()) - 1;
        long[] heads = {0, 1, capacity - 1, capacity, l.indexLimit() - 1, l.indexLimit()};
        long[] epochs = {0, 1, rstMax - 1, rstMax};
        var rnd = new SplittableRandom(7);
        for (int k = 0; k < 20_000; k++) {
            boolean rst = rnd.nextBoolean();
            long qsize = k < 200 ? max - (k % 2) : rnd.nextLong(max + 1);
            long wcnt = rnd.nextLong(qsize + 1);
            long qhead = k % 3 == 0 ? heads[rnd.nextInt(heads.length)] : rnd.nextLong(l.indexLimit() + 1);
            long ep = k % 2 == 0 ? epochs[rnd.nextInt(epochs.length)] : rnd.nextLong(rstMax + 1);
            long h = l.header(rst, wcnt, qsize, qhead, ep);
            if (qsize < max) {
                assertFields(l, h + l.acquireSharedDelta(), rst, wcnt, qsize + 1, qhead, ep);
                if (wcnt < max) {
                    assertFields(l, h + l.acquireExclusiveDelta(), rst, wcnt + 1, qsize + 1, qhead, ep);
                }
            }
            if (qsize >= 1 && qhead < l.indexLimit() + max) {
                assertFields(l, h + l.releaseSharedDelta(), rst, wcnt, qsize - 1, qhead + 1, ep);
                if (wcnt >= 1) {
                    assertFields(l, h + l.releaseExclusiveDelta(), rst, wcnt - 1, qsize - 1, qhead + 1, ep);
                }
            }
        }
    }

    private static void assertFields(CqlLayout l, long h, boolean rst, long wcnt, long qsize, long qhead, long ep) {
        assertEquals(rst, CqlLayout.rst(h));
        assertEquals(wcnt, l.wcnt(h));
        assertEquals(qsize, l.qsize(h));
        assertEquals(qhead, l.qhead(h));
        assertEquals(ep, l.rstcnt(h));
    }

    @Test
    void qheadNeverReachesItsWrapBeforeVersionExhaustion() {
        for (int c = CqlLayout.MIN_CAPACITY_BITS; c <= CqlLayout.MAX_CAPACITY_BITS; c++) {
            var l = new CqlLayout(1 << c, (2 << c) - 1);
            long worst = l.indexLimit() + l.maxParticipants();
            assertTrue(worst < 1L << CqlLayout.QHEAD_BITS, "capacity 2^" + c + ": qhead + qsize stays below 2^24");
            assertTrue(l.version(l.indexLimit() - 1) < l.versionNever(), "the last usable index has a real version");
        }
    }

    @Test
    void takeoverAndResetMoveOnlyTheResetCount() {
        var l = new CqlLayout(8, 15);
        long h = l.header(true, 3, 9, 1000, 41);
        long t = h + l.takeoverDelta();
        assertFields(l, t, true, 3, 9, 1000, 42);
        assertEquals(l.header(false, 0, 0, 0, 43), l.freshHeader(43));
    }

    @Test
    void entriesCarryOpClientAndVersionAndZeroMeansNeverWritten() {
        var l = new CqlLayout(8, CqlLayout.MAX_SLOTS);
        int slot = CqlLayout.MAX_SLOTS - 1;
        long index = 8 * 1234 + 5;
        long e = l.entry(true, slot, index);
        assertTrue(CqlLayout.entryExclusive(e));
        assertEquals(slot, CqlLayout.entrySlot(e));
        assertEquals(1234, l.entryVersion(e));
        assertTrue(l.valid(e, index));
        assertFalse(l.valid(e, index - 8), "a later traversal's entry is not valid for the earlier index");
        assertTrue(l.overwritten(e, index - 8), "... it overwrote it");
        assertFalse(l.valid(e, index + 8), "an earlier traversal's entry is obsolete for the later index");
        assertFalse(l.overwritten(e, index + 8));
        assertEquals(l.versionNever(), l.entryVersion(0), "a zeroed entry reads as version all-ones");
        for (long i = 0; i < 64; i++) {
            assertFalse(l.valid(0, i), "a zeroed entry is valid for no index");
            assertFalse(l.overwritten(0, i));
        }
        long reader = l.entry(false, 9, 5);
        assertEquals(9, CqlLayout.entrySlot(reader));
        assertThrows(IllegalArgumentException.class, () -> new CqlLayout(8, 15).entry(false, 15, 5), "no slot 15");
        assertFalse(CqlLayout.entryExclusive(reader));
        assertEquals(0, l.entryVersion(reader));
    }

    @Test
    void hierarchicalEntriesCarryA14BitTimestampBesideAShorterVersion() {
        var l = new CqlLayout(8, 100, CqlLayout.HIERARCHICAL_TIMESTAMP_BITS);
        long index = 8 * 300 + 2;
        long e = l.entry(false, 77, index, (1 << 14) + 999);
        assertEquals(999, l.entryTimestamp(e), "kept modulo 2^14");
        assertEquals(77, CqlLayout.entrySlot(e));
        assertEquals(300, l.entryVersion(e));
        assertTrue(l.valid(e, index));
        assertEquals((1L << 33) - 1, l.versionNever(), "47 - 14 = 33 version bits");
        assertTrue(l.version(l.indexLimit() - 1) < l.versionNever());
        assertEquals((1L << 24) - 16, l.indexLimit(), "qhead's 24 bits, not the versions, bound the indices");
        assertTrue(Timestamps.earlier(10, 20, 14));
        assertFalse(Timestamps.earlier(20, 10, 14));
        assertFalse(Timestamps.earlier(5, 5, 14));
        assertTrue(Timestamps.earlier((1 << 14) - 5, 3, 14), "wrapped: the larger value is earlier");
        assertFalse(Timestamps.earlier(3, (1 << 14) - 5, 14));
    }

    @Test
    void tokensGrowWithIndexAndResetCount() {
        var l = new CqlLayout(512, 1023);
        assertTrue(CqlLayout.token(0, 1) > CqlLayout.token(0, 0));
        assertTrue(CqlLayout.token(1, 0) > CqlLayout.token(0, l.indexLimit() + l.maxParticipants()));
        long rstMax = (1L << l.rstcntBits()) - 1;
        assertTrue(CqlLayout.token(rstMax, l.indexLimit()) > 0, "tokens stay positive");
    }

    @Test
    void badGeometryIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new CqlLayout(6, 5));
        assertThrows(IllegalArgumentException.class, () -> new CqlLayout(1, 1));
        assertThrows(IllegalArgumentException.class, () -> new CqlLayout(8192, 100));
        assertThrows(IllegalArgumentException.class, () -> new CqlLayout(8, 0));
        assertThrows(IllegalArgumentException.class, () -> new CqlLayout(8, CqlLayout.MAX_SLOTS + 1));
        assertThrows(IllegalArgumentException.class, () -> new CqlLayout(8, 15, 15));
        var l = new CqlLayout(4, 7);
        assertEquals(8 * 9, l.memberBytes(), "count, sync, 7 slots");
        assertEquals(16, l.memberSlotOffset(0));
        assertEquals(8 * 5, l.lockBytes());
        assertEquals(72 + 3 * 40, l.tableBytes(3));
        assertEquals(72 + 40, l.headerOffset(1));
        assertEquals(8 * (1 + 1), l.entryOffset(5), "index 5 is slot 1");
    }

    @Test
    void tokensCarryTheMemoryNodeGenerationAndStillIncreaseAcrossRestarts() {
        for (int c : new int[]{3, 9, 12}) {
            var l = new CqlLayout(1 << c, (2 << c) - 1);
            long lowResets = (1L << (l.rstcntBits() - CqlLayout.GENERATION_BITS)) - 1;
            long lastIndex = l.indexLimit() - 1;
            assertEquals(CqlLayout.token(5, 7), l.token(0, 5, 7), "generation 0: the token as before");
            for (long g = 1; g < 1L << CqlLayout.GENERATION_BITS; g++) {
                assertTrue(l.token(g, 0, 0) > l.token(g - 1, lowResets, lastIndex),
                        "C=" + c + ": the first grant after restart " + g + " outranks the last before it");
                assertTrue(l.token(g, 1, 0) > l.token(g, 0, lastIndex));
                assertTrue(l.token(g, lowResets, lastIndex) > 0, "no overflow into the sign");
            }
        }
    }
}
