package io.lockfabric.apps.objstore;

import io.lockfabric.LockFabric;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Fabrics;
import io.lockfabric.fabric.Table;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The object store's layout, client and facade: values round-trip, grow, fill up, and a torn value is caught. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ObjectStoreTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aValueRoundTripsAndAByteFlipFailsTheCheck() {
        byte[] value = bytes("hello, disaggregated memory");
        byte[] block = ObjectStoreLayout.encode(ObjectStoreLayout.tag(7), 3, 11, value, value.length);
        ObjectStoreLayout.Header h = ObjectStoreLayout.header(block);
        assertEquals(8, h.tag());
        assertEquals(value.length, h.length());
        assertEquals(3, h.writer());
        assertEquals(11, h.sequence());
        assertTrue(ObjectStoreLayout.intact(block, h));
        for (int i = 0; i < block.length; i++) {
            if (i >= ObjectStoreLayout.VALUE_CHECK && i < ObjectStoreLayout.HEADER_BYTES) {
                continue;
            }
            byte[] bad = block.clone();
            bad[i] ^= 0x10;
            assertFalse(ObjectStoreLayout.intact(bad, ObjectStoreLayout.header(bad)), "flip at byte " + i + " passed");
        }
        assertEquals(64, ObjectStoreLayout.blockBytes(1));
        assertEquals(128, ObjectStoreLayout.blockBytes(33));
    }

    @Test
    void theFacadeGetsWhatWasSetGrowsValuesAndKeepsKeysApart() {
        try (LockFabric lf = LockFabric.open("local")) {
            ObjectStore store = ObjectStore.open(lf, "objs", ObjectStoreOptions.DEFAULTS.withObjects(64)
                    .withMaxValueBytes(20_000).withProtocol("declock-tf"));
            assertNull(store.get("missing"));
            store.set("a", bytes("1"));
            store.set("b", new byte[0]);
            assertArrayEquals(bytes("1"), store.get("a"));
            assertArrayEquals(new byte[0], store.get("b"));
            byte[] big = new byte[15_000];
            for (int i = 0; i < big.length; i++) {
                big[i] = (byte) (i * 31);
            }
            store.set("a", big); // a bigger block: the old one is left MOVED
            assertArrayEquals(big, store.get("a"));
            store.set("a", bytes("small again"));
            assertArrayEquals(bytes("small again"), store.get("a"));
            assertThrows(IllegalArgumentException.class, () -> store.set("a", new byte[20_001]));
            ObjectStore again = ObjectStore.open(lf, "objs", store.options());
            assertArrayEquals(bytes("small again"), again.get("a"), "a second opener sees the same objects");
            assertThrows(IllegalStateException.class,
                    () -> ObjectStore.open(lf, "objs", store.options().withHeapBytes(1 << 20).withObjects(65)));
        }
    }

    @Test
    void aFullIndexAndAFullHeapAreRefused() {
        try (LockFabric lf = LockFabric.open("local")) {
            ObjectStore store = ObjectStore.open(lf, "tiny", ObjectStoreOptions.DEFAULTS.withObjects(8)
                    .withMaxValueBytes(100).withHeapBytes(8 * 128));
            for (long k = 0; k < 8; k++) {
                store.set(k, new byte[10]);
            }
            assertThrows(ObjectStoreFullException.class, () -> store.set(8, new byte[1]));
            for (long k = 0; k < 8; k++) {
                assertEquals(10, store.get(k).length);
            }
            ObjectStore small = ObjectStore.open(lf, "tiny-heap", ObjectStoreOptions.DEFAULTS.withObjects(8)
                    .withMaxValueBytes(100).withHeapBytes(192));
            small.set(1, new byte[100]); // 192 B: the whole heap
            assertThrows(ObjectStoreFullException.class, () -> small.set(2, new byte[1]));
        }
    }

    /** The control: without locks, a get beside sets reads torn values, and the check says so. */
    @Test
    void withoutTheLockTornValuesAreCaught() throws Exception {
        try (Fabric fabric = Fabrics.open("local")) {
            ObjectStoreOptions o = ObjectStoreOptions.DEFAULTS.withObjects(4).withMaxValueBytes(8192).withProtocol("cas");
            Endpoint we = fabric.newEndpoint();
            Endpoint re = fabric.newEndpoint();
            ObjectStoreClient w = ObjectStoreClient.open(we, "nolock", "cas", o);
            ObjectStoreClient r = ObjectStoreClient.open(re, "nolock", "cas", o);
            long slot = w.slotOf(1, true);
            byte[] a = new byte[8000];
            byte[] b = new byte[8000];
            java.util.Arrays.fill(b, (byte) 0x5A);
            w.writeHeld(slot, 1, a, a.length);
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = Thread.ofPlatform().start(() -> {
                for (int i = 0; !stop.get(); i++) {
                    w.writeHeld(slot, 1, (i & 1) == 0 ? a : b, a.length); // no lock taken
                }
            });
            long torn = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (torn == 0 && System.nanoTime() < deadline) {
                StoredValue v = r.readHeld(slot, 1, 8000);
                if (!v.intact()) {
                    torn++;
                }
            }
            stop.set(true);
            writer.join();
            assertTrue(torn > 0, "no torn value seen without locks");
            we.close();
            re.close();
        }
    }

    /** A block moved by another compute node: a reader that cached its old place follows MOVED. */
    @Test
    void aReaderOnAnotherComputeNodeFollowsAMovedBlock() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(1).seed(3).build())) {
            ObjectStoreOptions o = ObjectStoreOptions.DEFAULTS.withObjects(16).withMaxValueBytes(4096);
            Endpoint e0 = fabric.newEndpoint();
            Endpoint e1 = fabric.newEndpoint();
            assertFalse(e0.id().node() == e1.id().node(), "two compute nodes");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong reads = new AtomicLong();
            ClientThread t = fabric.spawn("app", () -> {
                ObjectStoreClient c0 = ObjectStoreClient.open(e0, "moves", "declock-tf", o);
                ObjectStoreClient c1 = ObjectStoreClient.open(e1, "moves", "declock-tf", o);
                c0.set(5, new byte[40]);
                assertEquals(40, c1.get(5).length); // c1's node caches the 128 B block
                byte[] big = new byte[3000];
                big[2999] = 9;
                c0.set(5, big); // moves to a bigger block
                long before = c1.dataReads();
                assertArrayEquals(big, c1.get(5, 3000));
                reads.set(c1.dataReads() - before);
            });
            t.join();
            Throwable f = ((SimProcess) t).failure();
            if (f != null) {
                throw new AssertionError(f);
            }
            assertTrue(reads.get() >= 3, "read MOVED, then the slot, then the new block: " + reads.get() + " READs");
        }
    }

    @Test
    void aBulkLoadWritesEveryObjectOnceAndOthersSeeIt() {
        try (Fabric fabric = Fabrics.open("local")) {
            ObjectTrace t = ObjectTrace.large(300, 0.99);
            Endpoint e0 = fabric.newEndpoint();
            Endpoint e1 = fabric.newEndpoint();
            ObjectStoreClient loader = ObjectStoreClient.open(e0, "bulk", "dslr", t.storeOptions());
            ObjectStoreClient other = ObjectStoreClient.open(e1, "bulk", "dslr", t.storeOptions());
            assertFalse(other.loaded());
            byte[] filler = new byte[100];
            for (int i = 0; i < filler.length; i++) {
                filler[i] = (byte) (i * 7 + 1);
            }
            assertTrue(loader.bulkLoad(t.objects(), t::sizeOf, filler));
            assertFalse(other.bulkLoad(t.objects(), t::sizeOf, filler), "one loader");
            other.awaitLoaded(1000);
            for (long k = 0; k < t.objects(); k++) {
                byte[] v = other.get(k);
                assertEquals(t.sizeOf(k), v.length, "key " + k);
                if (v.length >= 16) {
                    assertEquals(k, java.nio.ByteBuffer.wrap(v).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0));
                    assertEquals(filler[8], v[8]);
                }
            }
            other.set(5, new byte[70_000 > t.maxValueBytes() ? t.maxValueBytes() : 70_000]); // grows: a new block
            assertEquals(t.maxValueBytes(), loader.get(5).length);
            assertTrue(loader.dataWrites() < 300, "bulk WRITEs, not one per object: " + loader.dataWrites());
            List.of(loader, other).forEach(ObjectStoreClient::close);
            e0.close();
            e1.close();
        }
    }

    @Test
    void anExclusiveOnlyProtocolTakesGetsExclusive() {
        try (Fabric fabric = Fabrics.open("local")) {
            Endpoint e = fabric.newEndpoint();
            ObjectStoreClient c = ObjectStoreClient.open(e, "x", "cas", ObjectStoreOptions.DEFAULTS.withObjects(4));
            assertEquals(io.lockfabric.lock.Mode.EXCLUSIVE, c.readMode());
            ObjectStoreClient d = ObjectStoreClient.open(e, "y", "dslr", ObjectStoreOptions.DEFAULTS.withObjects(4));
            assertEquals(io.lockfabric.lock.Mode.SHARED, d.readMode());
            List.of(c, d).forEach(ObjectStoreClient::close);
            e.close();
        }
    }
}
