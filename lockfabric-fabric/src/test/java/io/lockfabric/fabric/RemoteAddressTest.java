package io.lockfabric.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RemoteAddressTest {
    @ParameterizedTest(name = "region {0}, offset {1}")
    @CsvSource({"0, 0", "1, 0", "1, 4096", "65535, 0", "65535, 281474976710655", "9999, 12345"})
    void regionAndOffsetRoundTrip(int region, long offset) {
        long a = RemoteAddress.of(region, offset);
        assertEquals(region, RemoteAddress.region(a), "region of " + RemoteAddress.toString(a));
        assertEquals(offset, RemoteAddress.offset(a), "offset of " + RemoteAddress.toString(a));
        assertEquals(((long) region << 48) | offset, a, "region in bits 48..63, offset in bits 0..47");
    }

    @Test
    void addressZeroIsRegionZero() {
        assertEquals(0L, RemoteAddress.of(0, 0), "region 0 offset 0 is the (invalid) address 0");
    }

    @Test
    void rejectsOutOfRangeParts() {
        assertThrows(IllegalArgumentException.class, () -> RemoteAddress.of(-1, 0), "negative region");
        assertThrows(IllegalArgumentException.class, () -> RemoteAddress.of(65536, 0), "region > 16 bits");
        assertThrows(IllegalArgumentException.class, () -> RemoteAddress.of(1, -1), "negative offset");
        assertThrows(IllegalArgumentException.class, () -> RemoteAddress.of(1, 1L << 48), "offset > 48 bits");
    }

    @Test
    void addingToAnAddressMovesTheOffset() {
        long base = RemoteAddress.of(7, 100);
        assertEquals(RemoteAddress.of(7, 108), base + 8, "address + n is offset + n in the same region");
    }

    @Test
    void toStringShowsRegionAndHexOffset() {
        assertEquals("r3+0x10", RemoteAddress.toString(RemoteAddress.of(3, 16)), "toString");
        assertEquals("r65535+0xffffffffffff", RemoteAddress.toString(-1L), "toString of -1");
    }
}
