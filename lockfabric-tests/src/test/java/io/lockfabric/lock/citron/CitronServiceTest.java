package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.RpcException;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.LockOptions;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CITRON's table service (allocation rpc and configuration query, §3.9.1), the Exp mark field and
 * the index arithmetic a scale-up relies on.
 */
class CitronServiceTest {

    @Test
    void allocateGivesAFreshZeroedRegionPerCallAndLookupReturnsTheLatestConfiguration() {
        var protocol = new CitronProtocol();
        var opts = LockOptions.parse(List.of("units=256"));
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            var table = e.openTable(protocol.tableSpec("svc", opts));
            var qp = e.queuePair(table.memoryNode());
            long base0 = table.at(CitronLayout.TREE_OFFSET);
            int[] grown = {2, 3};
            long a = CitronService.allocated(qp.rpc(table.service(), CitronService.allocateRequest(grown,
                    new long[] {base0})));
            assertEquals(0, qp.read8(a), "zeroed");
            qp.write8(a, 42);
            long b = CitronService.allocated(qp.rpc(table.service(), CitronService.allocateRequest(grown,
                    new long[] {base0})));
            assertNotEquals(a, b, "a second allocation for the same generation is a new region");
            assertEquals(0, qp.read8(b));
            CitronTree t = CitronService.decodeConfig(qp.rpc(table.service(), CitronService.lookupRequest(1)));
            assertArrayEquals(grown, t.levels());
            assertArrayEquals(new long[] {base0, b}, t.bases(), "the latest allocation of generation 1");
            assertThrows(RpcException.class, () -> qp.rpc(table.service(), CitronService.lookupRequest(2)));
            assertThrows(RpcException.class, () -> qp.rpc(table.service(), CitronService.allocateRequest(
                    new int[] {2, 2}, new long[] {base0})), "generations must grow");
        }
    }

    @Test
    void expMarkIsAThreeBitFieldBesideOcc() {
        long w = CitronLayout.word(false, true, 5, 6, 7, 8) | CitronLayout.markOf(5);
        assertEquals(5, CitronLayout.expMark(w));
        assertTrue(CitronLayout.expanded(w));
        assertTrue(CitronLayout.occupied(w));
        assertEquals(5, CitronLayout.tcnt(w));
        assertEquals(8, CitronLayout.dmax(w));
        assertEquals(CitronLayout.MAX_MARK, CitronLayout.expMark(-1L));
        assertFalse(CitronLayout.expanded(CitronLayout.word(false, true, 1, 1, 1, 1)));
        assertEquals(CitronTree.MAX_GENERATIONS, CitronLayout.MAX_MARK);
        assertThrows(IllegalArgumentException.class, () -> CitronLayout.markOf(8));
    }

    @Test
    void carryTargetsAreTheNewAncestorsOfTheOldRootAndLiftKeepsThePosition() {
        var t = new CitronTree(new int[] {2, 3, 5}, new long[] {1 << 20, 2 << 20, 3 << 20});
        assertArrayEquals(new long[] {1, 2}, CitronClient.carryTargets(t)); // root and its leftmost child
        assertArrayEquals(new long[] {1}, CitronClient.carryTargets(t.upTo(1)));
        var big = t.layout();
        var small = t.upTo(1).layout();
        for (long x = 1; x <= small.nodes(); x++) {
            long y = CitronTree.lift(x, 3, 5);
            assertEquals(small.rangeStart(x), big.rangeStart(y));
            assertEquals(small.rangeEnd(x), big.rangeEnd(y));
            assertEquals(t.upTo(1).address(x), t.address(y), "an old node keeps its place");
        }
        for (long target : CitronClient.carryTargets(t)) {
            assertTrue(big.covers(target, CitronTree.lift(1, 3, 5)), "a carry target covers the old root");
        }
    }
}
