package io.lockfabric.lock.ss;

import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.protocols.RangeLockProtocols;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Static segmentation's presets, table sizes and refusals. */
class SsProtocolTest {
    private static LockOptions opts(String... pairs) {
        return LockOptions.parse(List.of(pairs));
    }

    private static SsProtocol ss(String name) {
        return (SsProtocol) RangeLockProtocols.byName(name);
    }

    @Test
    void presetsSizeSegmentsFromTheRangeSize() {
        assertEquals(16, ss("ss-exact").segmentUnits(opts("range-size=16")));
        assertEquals(128, ss("ss-over").segmentUnits(opts("range-size=16")));
        assertEquals(2, ss("ss-under").segmentUnits(opts("range-size=16")));
        assertEquals(1, ss("ss-under").segmentUnits(opts("range-size=1")), "at least one unit");
        assertEquals(64, ss("ss").segmentUnits(opts()));
        assertEquals(1000, ss("ss").segmentUnits(opts("segment=1000")));
    }

    @Test
    void tableIsOneDslrWordPerSegmentPlusTheSpillover() {
        SsLayout l = ss("ss").layout(opts("units=1000", "segment=64"));
        assertEquals(16, l.segments(), "the last segment is short");
        assertEquals(17 * 8, l.tableBytes());
        assertEquals(15, l.segmentOf(999));
        assertEquals(16, l.spilloverLock());
    }

    @Test
    void tooLargeTablesAndBadOptionsAreRefused() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> ss("ss-under").tableSpec("t", opts("units=" + (1L << 32), "range-size=8")));
        assertTrue(e.getMessage().contains("segments"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ss("ss").tableSpec("t", opts("segment=0")));
        assertThrows(IllegalArgumentException.class, () -> ss("ss-exact").tableSpec("t", opts("range-size=0")));
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            assertThrows(IllegalArgumentException.class, () -> ss("ss").open(fabric.newEndpoint(), "u", opts("range-size=4")),
                    "ss takes segment, not range-size");
            assertThrows(IllegalArgumentException.class, () -> ss("ss-over").open(fabric.newEndpoint(), "v", opts("segment=4")));
        }
    }

    @Test
    void recoveryOnlyWithALease() {
        assertTrue(!ss("ss").failureModel(opts()).recoversFromCrash(), "lease-ns=inf by default");
        var leased = ss("ss-exact").failureModel(opts("lease-ns=10ms"));
        assertTrue(leased.recoversFromCrash());
        assertEquals(10_000_000, leased.leaseNs());
        assertThrows(IllegalArgumentException.class, () -> ss("ss").failureModel(opts("lease-ns=1ms")),
                "dslr's rule: lease >= 4 x max-wait-ns");
    }

    @Test
    void overlappingRangesInOneSegmentConflictEvenIfDisjoint() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            RangeLockClient a = ss("ss").open(fabric.newEndpoint(), "t", opts("units=1024", "segment=64"));
            RangeGrant g = a.acquire(0, 10, Mode.SHARED);
            assertEquals(Mode.SHARED, g.mode());
            RangeGrant h = a.acquire(20, 30, Mode.SHARED); // same segment, shared with shared: granted
            a.release(h);
            a.release(g);
            assertThrows(IllegalArgumentException.class, () -> a.release(g), "released twice");
            assertThrows(IllegalArgumentException.class, () -> a.acquire(7, 7, Mode.EXCLUSIVE));
            RangeGrant big = a.acquire(0, 5000, Mode.EXCLUSIVE); // every segment and the spillover
            a.release(big);
        }
    }
}
