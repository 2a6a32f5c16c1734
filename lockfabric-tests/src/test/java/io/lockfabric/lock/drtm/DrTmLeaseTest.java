package io.lockfabric.lock.drtm;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** DrTM's leases in virtual time: shared without writes, waited out by writers. */
@Tag("faults")
class DrTmLeaseTest {
    private static final long US = 1_000;
    private static final long LEASE = 1_000 * US;
    private static final long DELTA = 50 * US;

    /**
     * Two readers share one lease (same token, one CAS each); a writer arriving after them waits
     * until the lease has expired by DELTA on its clock, though both readers left long before.
     */
    @Test
    void readersShareALeaseThatAWriterWaitsOut() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(3).seed(2).build())) {
            LockProtocol drtm = LockProtocols.byName("drtm");
            long[] tokens = new long[2];
            long[] readerGrantedAt = new long[2];
            long[] writerGrantedAt = new long[1];
            List<ClientThread> threads = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                int client = c;
                Endpoint e = fabric.newEndpoint();
                LockClient locks = drtm.open(e, "lease", 1, LockOptions.DEFAULTS);
                threads.add(fabric.spawn("c" + c, () -> {
                    e.clock().sleepNanos(client * 10 * US);
                    if (client < 2) {
                        Grant g = locks.acquire(0, Mode.SHARED);
                        readerGrantedAt[client] = fabric.observerNanoTime();
                        tokens[client] = g.fencingToken();
                        locks.release(g);
                    } else {
                        Grant g = locks.acquire(0, Mode.EXCLUSIVE);
                        writerGrantedAt[0] = fabric.observerNanoTime();
                        locks.release(g);
                    }
                }));
            }
            threads.forEach(ClientThread::join);
            assertEquals(tokens[0], tokens[1], "the second reader shares the first one's lease");
            long sinceLease = writerGrantedAt[0] - readerGrantedAt[0];
            assertTrue(sinceLease >= LEASE + DELTA - 10 * US, "the writer waited out lease + delta: " + sinceLease);
            assertTrue(sinceLease < LEASE + DELTA + 100 * US, "and not much longer: " + sinceLease);
        }
    }

    /**
     * Clocks drifting at up to 0.2% (far beyond PTP) for long enough that the skew between two
     * clients (up to 2δt) passes the whole margin of a fixed 50 µs delta (TX_TIME + 2 DELTA =
     * 600 µs, after 150 ms): with drift-ppm matching, the growing skew bound keeps readers and
     * writers apart. The price: writers wait ever longer past a lease end.
     */
    @Test
    void aSkewBoundThatGrowsWithTheDriftKeepsReadersAndWritersApart() {
        var cluster = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).clockDrift(0.002).seed(8).build();
        var cfg = LockStress.Config.of(8, 1, 0, 0.7, 150).withOptions(LockOptions.of(Map.of("drift-ppm", 2_000L)));
        try (SimFabric fabric = new SimFabric(cluster)) {
            var result = LockStress.run(fabric, LockProtocols.byName("drtm"), cfg);
            assertTrue(result.violations().isEmpty(), result.summary());
            assertTrue(result.elapsedNanos() > 150_000_000L, "long enough for the drift to pass the fixed margin: "
                    + result.elapsedNanos());
        }
    }

    /** The contract stress on the simulator with a hot lock and many readers, several seeds. */
    @Test
    void hotLockStressOverSeeds() {
        for (long seed = 1; seed <= 5; seed++) {
            try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(seed).build())) {
                var result = LockStress.run(fabric, LockProtocols.byName("drtm"), LockStress.Config.of(8, 2, 0.9, 0.7, 300));
                assertTrue(result.violations().isEmpty(), "seed " + seed + ": " + result.summary());
                assertTrue(result.sharedGrants() > 0 && result.exclusiveGrants() > 0);
            }
        }
    }
}
