package io.lockfabric.lock.drtm;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DrTM's reader costs, with a lease long enough (0.5 s) that it cannot run out during the test
 * on a real clock, and its option checks.
 */
class DrTmCycleCostTest {
    private static final LockOptions LONG_LEASE = LockOptions.parse(List.of("lease-ns=500ms", "tx-time-ns=1ms"));

    @Test
    void aReaderCreatesALeaseWithOneCasAndSharesItWithOneFailedCas() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            LockClient client = LockProtocols.byName("drtm").open(e, "t", 4, LONG_LEASE);
            CounterSnapshot before = e.counters();
            Grant first = client.acquire(2, Mode.SHARED);
            client.release(first);
            assertEquals(1, e.counters().minus(before).ops(VerbKind.CAS), "CAS 0 -> lease");
            before = e.counters();
            for (int i = 0; i < 10; i++) {
                Grant g = client.acquire(2, Mode.SHARED);
                assertEquals(first.fencingToken(), g.fencingToken(), "the same lease is shared");
                client.release(g);
            }
            CounterSnapshot d = e.counters().minus(before);
            assertEquals(10, d.ops(VerbKind.CAS), "one CAS per shared acquisition, none per release");
            assertEquals(d.ops(VerbKind.CAS), d.oneSidedOps(), "nothing else: " + d);
            assertEquals(10, client.stats().retries(), "the CAS expecting 0 fails on the lease");
        }
    }

    @Test
    void optionsThatLeaveNoValidLeaseAreRejected() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            var drtm = LockProtocols.byName("drtm");
            var bad = LockOptions.parse(List.of("lease-ns=500us", "tx-time-ns=500us"));
            var ex = assertThrows(IllegalArgumentException.class, () -> drtm.open(e, "t", 4, bad));
            assertTrue(ex.getMessage().contains("lease-ns"), ex.getMessage());
        }
    }
}
