package io.lockfabric.fabric.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.RemoteAccessException;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbReference;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** MemoryRegion and MemoryNode used directly, below any fabric. */
class MemoryRegionTest {
    private static final long SEED = 0xF1E1_DADDL;
    private static final long TOP = 1L << 63;

    private final Arena arena = Arena.ofShared();

    @AfterEach
    void closeArena() {
        arena.close();
    }

    private static String hex(long v) {
        return VerbReference.hex(v);
    }

    // ---------------------------------------------------------------- fieldAdd

    @Test
    void fieldAddMatchesThePerFieldReference() {
        SplittableRandom r = new SplittableRandom(SEED);
        for (int i = 0; i < 50_000; i++) {
            long a = VerbReference.edgy(r);
            long b = VerbReference.edgy(r);
            long tops = VerbReference.randomBoundaries(r) | TOP;
            long expected = VerbReference.maskedFaa(a, b, tops);
            long got = MemoryRegion.fieldAdd(a, b, tops);
            assertEquals(expected, got, "seed " + hex(SEED) + " iteration " + i + ": fieldAdd(" + hex(a) + ", "
                    + hex(b) + ", tops " + hex(tops) + ") = " + hex(got) + ", expected " + hex(expected));
        }
    }

    @Test
    void fieldAddEdgeCases() {
        assertEquals(0x1234L + 0xFFFF_FFFFL, MemoryRegion.fieldAdd(0x1234L, 0xFFFF_FFFFL, TOP),
                "only bit 63 as a top: a plain 64-bit add");
        assertEquals(-1L + -1L, MemoryRegion.fieldAdd(-1L, -1L, TOP), "plain add wraps mod 2^64");
        long a = 0x0123_4567_89AB_CDEFL;
        long b = 0xFEDC_BA98_7654_3210L ^ 0x0F0F_0000_FFFF_1234L;
        assertEquals(a ^ b, MemoryRegion.fieldAdd(a, b, -1L), "every bit its own field: addition is xor");
        assertEquals(0xFEFE_FEFE_FEFE_FEFEL, MemoryRegion.fieldAdd(-1L, -1L, 0x8080_8080_8080_8080L),
                "bytes 0xff + 0xff = 0xfe each, carries dropped");
        assertEquals(0L, MemoryRegion.fieldAdd(0x8000_0000_8000_0000L, 0x8000_0000_8000_0000L,
                0x8000_0000_8000_0000L), "top bits 1 + 1 in every 32-bit field: 0, no carry onward");
        assertEquals(0x0000_0001_0000_0000L, MemoryRegion.fieldAdd(0x0000_0000_FFFF_FFFFL, 1, TOP),
                "carry across bit 31/32 when no boundary is there");
        assertEquals(0L, MemoryRegion.fieldAdd(0x0000_0000_FFFF_FFFFL, 1, TOP | (1L << 31)),
                "boundary at bit 31: the low 32-bit field wraps, the carry is dropped");
    }

    // ---------------------------------------------------------------- region basics

    @Test
    void fillPatternRepeatsAndIsCutAtTheEnd() {
        MemoryRegion r = new MemoryRegion(1, 23, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, arena);
        byte[] all = r.read(0, 23);
        for (int i = 0; i < 23; i++) {
            assertEquals(i % 10 + 1, all[i], "byte " + i + " of a 23-byte region filled with 1..10");
        }
        MemoryRegion longFill = new MemoryRegion(2, 4, new byte[] {9, 8, 7, 6, 5, 4}, arena);
        assertArrayEquals(new byte[] {9, 8, 7, 6}, longFill.read(0, 4), "a fill longer than the region is cut");
        MemoryRegion none = new MemoryRegion(3, 16, null, arena);
        assertArrayEquals(new byte[16], none.read(0, 16), "no fill: zeros");
        assertEquals(0x0201_0A09_0807_0605L, r.read8(4), "unaligned read8 of the filled region, little-endian");
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, -16})
    void regionSizeMustBePositive(long size) {
        assertThrows(IllegalArgumentException.class, () -> new MemoryRegion(1, size, null, arena),
                "a region of " + size + " bytes");
    }

    @Test
    void readAndWriteCheckTheArraySlice() {
        MemoryRegion r = new MemoryRegion(1, 64, null, arena);
        byte[] buf = new byte[8];
        assertThrows(IllegalArgumentException.class, () -> r.read(0, buf, 4, 8), "slice past the array");
        assertThrows(IllegalArgumentException.class, () -> r.read(0, buf, -1, 2), "negative array offset");
        assertThrows(IllegalArgumentException.class, () -> r.write(0, buf, 0, 9), "slice longer than the array");
        assertThrows(IllegalArgumentException.class, () -> r.write(0, buf, 0, -1), "negative length");
        r.write(10, new byte[] {1, 2, 3, 4, 5}, 1, 3);
        byte[] out = new byte[6];
        r.read(9, out, 1, 5);
        assertArrayEquals(new byte[] {0, 0, 2, 3, 4, 0}, out, "slices are honoured on both sides");
    }

    @Test
    void newArrayReadChecksTheRangeBeforeAllocating() {
        MemoryRegion r = new MemoryRegion(1, 64, null, arena);
        assertThrows(RemoteAccessException.class, () -> r.read(0, -1), "negative length");
        assertThrows(RemoteAccessException.class, () -> r.read(0, Integer.MAX_VALUE), "huge length");
        assertThrows(RemoteAccessException.class, () -> r.read(60, 5), "past the end");
        assertThrows(RemoteAccessException.class, () -> r.read(-1, 1), "negative offset");
        assertEquals(0, r.read(64, 0).length, "an empty read at the very end is allowed");
    }

    @Test
    void atomicsCheckAlignmentAndRangeBeforeTouchingMemory() {
        MemoryRegion r = new MemoryRegion(1, 40, new byte[] {0x5A}, arena);
        byte[] before = r.read(0, 40);
        assertThrows(RemoteAccessException.class, () -> r.cas(4, 0, 1), "misaligned cas");
        assertThrows(RemoteAccessException.class, () -> r.faa(40, 1), "faa at the end");
        assertThrows(RemoteAccessException.class, () -> r.maskedFaa(-8, 1, 0), "negative offset");
        assertThrows(RemoteAccessException.class, () -> r.maskedCas128(8, Int128.ZERO, Int128.ZERO, Int128.ONES,
                Int128.ONES), "128-bit atomic at 8 mod 16");
        assertThrows(RemoteAccessException.class, () -> r.maskedFaa128(32, Int128.ONES, Int128.ZERO),
                "128-bit atomic running past the end (32 + 16 > 40)");
        assertArrayEquals(before, r.read(0, 40), "failed atomics changed memory");
        assertEquals(0x5A5A_5A5A_5A5A_5A5AL, r.maskedFaa128(16, new Int128(1, 1), Int128.ZERO).lo(),
                "an aligned 128-bit atomic inside the region works");
    }

    // ---------------------------------------------------------------- memory node

    @Test
    void memoryNodeDirectoryAndDispatch() {
        try (MemoryNode node = new MemoryNode(0, 1024)) {
            Table a = node.openTable(new TableSpec("a", "p", 1, 512));
            Table b = node.openTable(new TableSpec("b", "p", 1, 256));
            assertTrue(RemoteAddress.region(a.address()) > 0, "region 0 is never used");
            assertTrue(RemoteAddress.region(a.address()) != RemoteAddress.region(b.address()), "one region per table");
            assertSame(a, node.openTable(new TableSpec("a", "p", 1, 512)), "reopening finds the table");
            assertSame(b, node.table("b"), "lookup by name");
            assertNull(node.table("c"), "unknown name");
            assertEquals(768, node.allocatedBytes(), "allocated bytes");
            assertThrows(TableMismatchException.class, () -> node.openTable(new TableSpec("a", "q", 1, 512)),
                    "another protocol");
            assertThrows(FabricException.class, () -> node.openTable(new TableSpec("c", "p", 1, 512)),
                    "over capacity");
            assertThrows(IllegalArgumentException.class,
                    () -> node.openTable(new TableSpec("d", "p", 1, 8).onMemoryNode(1)), "spec for another node");
            assertThrows(RemoteAccessException.class, () -> node.region(RemoteAddress.of(7, 0)), "unknown region");
            assertThrows(RemoteAccessException.class, () -> node.region(0), "address 0");

            long w = b.address() + 8;
            Object[] results = node.execute(List.of(new Verb.Faa(w, 2), new Verb.Read8(w)));
            assertEquals(List.of(0L, 2L), List.of(results), "verbs in order");
            assertThrows(RemoteAccessException.class,
                    () -> node.execute(List.of(new Verb.Faa(w, 1), new Verb.Faa(w + 1, 1), new Verb.Faa(w, 100))),
                    "a bad verb stops the list");
            assertEquals(3L, node.execute(new Verb.Read8(w)), "the verb before the bad one ran, the one after did not");
        }
    }

    @Test
    void memoryNodeCallsFailForUnknownServicesAndThrowingHandlers() {
        try (MemoryNode node = new MemoryNode(0, 1024)) {
            Table t = node.openTable(new TableSpec("svc", "p", 1, 64).withService(host -> call -> {
                throw new IllegalStateException("boom");
            }));
            RecordingCall unknown = new RecordingCall();
            node.call(t.service() + 1, unknown);
            assertTrue(unknown.failure.get() != null && unknown.failure.get().contains("no rpc service"),
                    "unknown service fails the call: " + unknown.failure.get());
            RecordingCall crashing = new RecordingCall();
            node.call(t.service(), crashing);
            assertTrue(crashing.failure.get() != null && crashing.failure.get().contains("boom"),
                    "a throwing handler fails the call with its error: " + crashing.failure.get());
        }
    }

    /** Each verb value does on a region what the typed method of its kind does, with the same result. */
    @Test
    void executeRunsEachVerbAsItsTypedMethod() {
        MemoryRegion viaVerbs = new MemoryRegion(1, 64, null, arena);
        MemoryRegion direct = new MemoryRegion(2, 64, null, arena);
        byte[] bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        Int128 a = Int128.of(0x0F0F, 0xF0F0);
        List<Verb> verbs = List.of(new Verb.Write8(0, 41), new Verb.Faa(0, 1), new Verb.Cas(0, 42, 7),
                new Verb.MaskedCas(8, 0, 0, 0xFF, 0xFF), new Verb.MaskedFaa(8, 0x101, 0x80),
                new Verb.Write(16, bytes), new Verb.Read(16, bytes.length), new Verb.Read8(0),
                new Verb.MaskedCas128(32, Int128.ZERO, Int128.ZERO, a, Int128.ONES),
                new Verb.MaskedFaa128(32, Int128.of(1, 1), Int128.ZERO), new Verb.Read16(32));
        List<Object> expected = new java.util.ArrayList<>();
        direct.write8(0, 41);
        expected.add(null);
        expected.add(direct.faa(0, 1));
        expected.add(direct.cas(0, 42, 7));
        expected.add(direct.maskedCas(8, 0, 0, 0xFF, 0xFF));
        expected.add(direct.maskedFaa(8, 0x101, 0x80));
        direct.write(16, bytes, 0, bytes.length);
        expected.add(null);
        expected.add(direct.read(16, bytes.length));
        expected.add(direct.read8(0));
        expected.add(direct.maskedCas128(32, Int128.ZERO, Int128.ZERO, a, Int128.ONES));
        expected.add(direct.maskedFaa128(32, Int128.of(1, 1), Int128.ZERO));
        expected.add(direct.read16(32));
        for (int i = 0; i < verbs.size(); i++) {
            Verb v = verbs.get(i);
            Object got = viaVerbs.execute(v, RemoteAddress.offset(v.address()));
            if (got instanceof byte[] b) {
                assertArrayEquals((byte[]) expected.get(i), b, "verb " + i + " " + v);
            } else {
                assertEquals(expected.get(i), got, "verb " + i + " " + v);
            }
        }
        assertArrayEquals(direct.read(0, 64), viaVerbs.read(0, 64), "the same memory after both");
        assertThrows(RemoteAccessException.class, () -> viaVerbs.execute(new Verb.Faa(0, 1), 4),
                "a misaligned atomic fails as the typed method does");
    }

    /**
     * A table's service sees its node only as a ServiceHost: its own table's region (the words the
     * clients' verbs change) and allocation of more tables on the same node, found by name later.
     */
    @Test
    void aServiceSeesItsTableAndAllocatesOnItsNodeThroughItsHost() {
        try (MemoryNode node = new MemoryNode(3, 1 << 16)) {
            AtomicReference<io.lockfabric.fabric.ServiceHost> seen = new AtomicReference<>();
            Table t = node.openTable(new TableSpec("svc", "p", 1, 64).onMemoryNode(3).withService(host -> {
                seen.set(host);
                return call -> call.reply(new byte[0]);
            }));
            io.lockfabric.fabric.ServiceHost host = seen.get();
            assertEquals(3, host.memoryNode(), "the node's index");
            assertEquals(64, host.table().size(), "its own table's region");
            node.execute(new Verb.Write8(t.at(8), 0xABCDL));
            assertEquals(0xABCDL, host.table().read8(8), "the words the clients' verbs wrote");
            host.table().faa(8, 1);
            assertEquals(0xABCEL, node.execute(new Verb.Read8(t.at(8))), "and the clients see its updates");
            Table more = host.openTable(new TableSpec("more", "p", 1, 128).onMemoryNode(3));
            assertSame(more, node.table("more"), "an allocation is a table of the node, found by name");
            assertEquals(192, node.allocatedBytes(), "counted against the node's capacity");
            assertThrows(IllegalArgumentException.class,
                    () -> host.openTable(new TableSpec("elsewhere", "p", 1, 8).onMemoryNode(0)),
                    "only on its own node");
        }
    }

    /**
     * The order RMA-RW's reader relies on: once an 8-byte READ sees a 128-bit atomic's word 1, a
     * later READ of word 0 sees that atomic's word 0 or a later one. A writer keeps both words equal
     * and increasing with 128-bit atomics of both kinds while this thread reads word 1, then word
     * 0. With the stores in the other order this fails within milliseconds here.
     */
    @Test
    void aReadAfterSeeingAnAtomicsWordOneSeesItsWordZero() throws Exception {
        MemoryRegion r = new MemoryRegion(1, 16, null, arena);
        int rounds = 200_000;
        Thread writer = Thread.ofPlatform().start(() -> {
            for (long k = 1; k <= rounds; k++) {
                if ((k & 1) == 0) {
                    r.maskedFaa128(0, Int128.of(1, 1), Int128.ZERO);
                } else {
                    r.maskedCas128(0, Int128.of(k - 1, k - 1), Int128.ONES, Int128.of(k, k), Int128.ONES);
                }
            }
        });
        for (long reads = 1; writer.isAlive(); reads++) {
            long hi = r.read8(8);
            long lo = r.read8(0);
            assertTrue(lo >= hi, "read " + reads + " saw word 1 = " + hi + ", then an older word 0 = " + lo);
        }
        writer.join();
        assertEquals(Int128.of(rounds, rounds), r.read16(0), "every atomic applied to both words");
    }

    private static final class RecordingCall implements RpcCall {
        final AtomicReference<String> failure = new AtomicReference<>();

        @Override
        public EndpointId caller() {
            return new EndpointId(0, 1);
        }

        @Override
        public byte[] request() {
            return new byte[0];
        }

        @Override
        public void reply(byte[] response) {
            throw new AssertionError("no reply expected");
        }

        @Override
        public void fail(String reason) {
            failure.set(reason);
        }
    }
}
