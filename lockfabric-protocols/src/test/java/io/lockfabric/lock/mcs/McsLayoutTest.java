package io.lockfabric.lock.mcs;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.Inbox;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class McsLayoutTest {
    @Test
    void tailAndCountShareTheWordWithoutOverlap() {
        var id = new EndpointId(EndpointId.MAX_NODE, EndpointId.MAX_QUEUE);
        long w = McsLayout.word(McsLayout.COUNT_MASK, id.pack());
        assertEquals(id, McsLayout.tailEndpoint(w));
        assertEquals(McsLayout.COUNT_MASK, McsLayout.count(w));
        assertEquals(-1L, w, "24 + 40 bits fill the word");
        assertEquals(0, McsLayout.TAIL_MASK & (McsLayout.COUNT_MASK << McsLayout.COUNT_SHIFT));
    }

    @Test
    void emptyQueueHasNoTailAndTheCountWraps() {
        long w = McsLayout.word(McsLayout.COUNT_MASK + 6, 0);
        assertNull(McsLayout.tailEndpoint(w));
        assertEquals(0, McsLayout.tail(w));
        assertEquals(5, McsLayout.count(w), "count is modulo 2^24");
        assertEquals(0, McsLayout.word(0, 0), "a fresh table is an empty queue with count 0");
    }

    @Test
    void aSmallEndpointIsTheLowBitsOfItsWord() {
        var id = new EndpointId(3, 17);
        assertEquals((3L << 24) | 17, McsLayout.word(0, id.pack()));
        assertThrows(IllegalArgumentException.class, () -> McsLayout.word(0, 1L << 40));
    }

    @Test
    void channelsOfTablesOnDifferentNodesOrRegionsDiffer() {
        var spec = new TableSpec("t", "mcs", 1, 8);
        int a = Inbox.channelOf(new Table(spec, 0, RemoteAddress.of(1, 0), 1));
        int b = Inbox.channelOf(new Table(spec, 0, RemoteAddress.of(2, 0), 2));
        int c = Inbox.channelOf(new Table(spec, 1, RemoteAddress.of(1, 0), 1));
        assertNotEquals(a, b);
        assertNotEquals(a, c);
        assertNotEquals(b, c);
    }
}
