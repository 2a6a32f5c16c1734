package io.lockfabric.lock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.LatencyBreakdown.Item;
import io.lockfabric.lock.LatencyBreakdown.Part;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.protocols.LockProtocols;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * On a real-time clock the protocols count their operations for the latency breakdown but do not
 * time them ({@link io.lockfabric.fabric.Clock#timesBreakdowns}): every item's time stays 0. The
 * simulator's side, where they are timed, is {@code ShiftLockSimTest} and the {@code shiftlock-table3}
 * reproduction.
 */
@Tag("contract")
class RealTimeBreakdownTest {

    @Test
    void everyTimingProtocolCountsItsOperationsWithoutTimingThem() {
        for (String protocol : new String[] {"cas", "cas-rw", "dslr", "mcs", "rmarw", "drtm", "rpc", "shiftlock"}) {
            try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
                assertFalse(e.clock().timesBreakdowns(), "the local fabric's clock is the real-time one");
                LockClient client = LockProtocols.byName(protocol).open(e, "t", 64, LockOptions.DEFAULTS);
                int cycles = 7;
                for (int i = 0; i < cycles; i++) {
                    client.release(client.acquire(3, Mode.EXCLUSIVE));
                }
                client.release(client.acquire(5, Mode.SHARED));
                LatencyBreakdown b = LatencyBreakdown.of(client.stats());
                assertEquals(cycles + 1, b.operations(Part.WRITER_ACQUIRE) + b.operations(Part.READER_ACQUIRE),
                        protocol + ": every acquisition counted, " + b);
                assertEquals(cycles + 1, b.operations(Part.RELEASE), protocol + ": every release counted, " + b);
                for (Part p : Part.values()) {
                    for (Item i : Item.values()) {
                        assertEquals(0, b.totalNs(p, i), protocol + ": " + p + " " + i + " untimed, " + b);
                    }
                }
            }
        }
    }
}
