package io.lockfabric.client;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The key hash is pinned: every process and JVM version must map a key to the same slot. */
class KeyHashTest {
    @Test
    void fnv1aThenFmix64IsPinned() {
        assertEquals(KeyHash.fmix64(0xcbf29ce484222325L), KeyHash.hash(""));
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector)
        assertEquals(KeyHash.fmix64(0xaf63dc4c8601ec8cL), KeyHash.hash("a"));
        assertEquals(KeyHash.fmix64(0x85944171f73967e8L), KeyHash.hash("foobar"));
        assertEquals(Long.remainderUnsigned(KeyHash.hash("order:42"), 4096), KeyHash.slot("order:42", 4096));
        // a power of two takes a mask, any other count a division: the same slot as the division either way
        for (long slots : new long[] {1, 2, 3, 1000, 4096, 1L << 20, (1L << 20) + 1, 1L << 40, Long.MAX_VALUE}) {
            for (String k : new String[] {"", "a", "order:42", "日本"}) {
                assertEquals(Long.remainderUnsigned(KeyHash.hash(k), slots), KeyHash.slot(k, slots), k + " in " + slots);
            }
        }
    }

    @Test
    void utf8BytesAreHashed() {
        assertEquals(KeyHash.hash(new String("é".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                java.nio.charset.StandardCharsets.UTF_8)), KeyHash.hash("é"));
        assertTrue(KeyHash.hash("é") != KeyHash.hash("e"));
        // ASCII keys take a path without the byte array; keys that start ASCII and are not, the other
        for (String k : new String[] {"", "a", "order:42", "order:42é", "é-order", "日本", "emoji \uD83D\uDE00", "\u007f\u0080"}) {
            long h = KeyHash.FNV_OFFSET_BASIS;
            for (byte b : k.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
                h = (h ^ (b & 0xff)) * KeyHash.FNV_PRIME;
            }
            assertEquals(KeyHash.fmix64(h), KeyHash.hash(k), k);
        }
    }

    @Test
    void sequentialKeysSpreadOverSlots() {
        Set<Long> used = new HashSet<>();
        for (int i = 0; i < 1024; i++) {
            used.add(KeyHash.slot("order:" + i, 1024));
        }
        // a random function fills about 1 - 1/e = 63% of the slots
        assertTrue(used.size() > 600, "slots used: " + used.size());
        assertThrows(IllegalArgumentException.class, () -> KeyHash.slot("k", 0));
    }
}
