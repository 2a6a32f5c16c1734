package io.lockfabric.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EndpointIdTest {
    private static final long SEED = 0xE1D_0001L;

    @ParameterizedTest(name = "node {0}, queue {1}")
    @CsvSource({"0, 1", "0, 16777215", "65535, 1", "65535, 16777215", "1, 2", "300, 70000"})
    void packAndUnpackRoundTrip(int node, int queue) {
        EndpointId id = new EndpointId(node, queue);
        long packed = id.pack();
        assertNotEquals(0L, packed, "a real endpoint never packs to 0 (" + id + ")");
        assertEquals(0L, packed & ~EndpointId.PACKED_MASK, "packed form fits 40 bits: 0x" + Long.toHexString(packed));
        assertEquals(((long) node << 24) | queue, packed, "node in bits 24..39, queue in bits 0..23");
        assertEquals(id, EndpointId.unpack(packed), "unpack(pack(id)) == id");
    }

    @Test
    void randomIdsRoundTrip() {
        SplittableRandom r = new SplittableRandom(SEED);
        for (int i = 0; i < 2_000; i++) {
            EndpointId id = new EndpointId(r.nextInt(EndpointId.MAX_NODE + 1), 1 + r.nextInt(EndpointId.MAX_QUEUE));
            assertEquals(id, EndpointId.unpack(id.pack()), "seed 0x" + Long.toHexString(SEED) + " iteration " + i);
        }
    }

    @Test
    void zeroIsNobody() {
        assertNull(EndpointId.unpack(0), "0 unpacks to null (nobody)");
    }

    @Test
    void rejectsOutOfRangeFields() {
        assertThrows(IllegalArgumentException.class, () -> new EndpointId(0, 0), "queue 0 is reserved");
        assertThrows(IllegalArgumentException.class, () -> new EndpointId(-1, 1), "negative node");
        assertThrows(IllegalArgumentException.class, () -> new EndpointId(65536, 1), "node > 16 bits");
        assertThrows(IllegalArgumentException.class, () -> new EndpointId(0, 1 << 24), "queue > 24 bits");
        assertThrows(IllegalArgumentException.class, () -> EndpointId.unpack(1L << 40), "bit 40 set");
        assertThrows(IllegalArgumentException.class, () -> EndpointId.unpack(-1L), "negative packed value");
        assertThrows(IllegalArgumentException.class, () -> EndpointId.unpack(5L << 24),
                "node 5 with queue 0 is not a valid endpoint");
    }

    @Test
    void toStringIsNodeDotQueue() {
        assertEquals("3.17", new EndpointId(3, 17).toString(), "toString");
        assertTrue(new EndpointId(3, 17).equals(EndpointId.unpack(new EndpointId(3, 17).pack())), "equals");
    }
}
