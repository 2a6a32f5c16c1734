package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimConfig;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ideal-lock oracle: exclusive, never a failed CAS, handovers of three one-way trips. */
@Tag("experiments")
class IdealCasOracleTest {
    private static final int CLIENTS = 16;
    private static final int OPS = 300;

    @Test
    void mutualExclusionHoldsAndNoCasEverFails() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(8).seed(3)
                .build())) {
            var result = LockStress.run(fabric, new IdealCasOracle(fabric),
                    new LockStress.Config(CLIENTS, 4, 0.99, 0.5, OPS, 3, LockOptions.DEFAULTS));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals((long) CLIENTS * OPS, result.exclusiveGrants());
            CounterSnapshot nic = fabric.memoryNodeCounters(0);
            assertEquals((long) CLIENTS * OPS, nic.ops(VerbKind.MCAS), "one CAS per acquisition: none failed");
            assertEquals(0, result.stats().retries());
        }
    }

    @Test
    void aContendedHandoverTakesThreeOneWayTripsPlusCosts() {
        SimConfig cfg = SimConfig.builder().computeNodes(4).clientsPerComputeNode(4).networkJitterNs(0).build();
        try (SimFabric fabric = new SimFabric(cfg)) {
            IdealCasOracle oracle = new IdealCasOracle(fabric);
            List<ClientThread> threads = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                Endpoint e = fabric.newEndpoint();
                LockClient c = oracle.open(e, "one", 1, LockOptions.DEFAULTS);
                threads.add(fabric.spawn("c" + i, () -> {
                    for (int k = 0; k < OPS; k++) {
                        Grant g = c.acquire(0, Mode.EXCLUSIVE);
                        c.release(g);
                    }
                }));
            }
            threads.forEach(ClientThread::join);
            double handoverNs = (double) fabric.simulation().now() / (CLIENTS * OPS);
            // The woken client's CAS out (CPU, its NIC, the wire, service), the reply in (wire, its NIC), the
            // release out (CPU, its NIC, the wire, service): the next waiter is woken when it takes effect.
            double expected = 3 * cfg.networkOneWayNs() + 2 * cfg.clientVerbCpuNs() + 3 * cfg.cnNicServiceNs()
                    + cfg.atomicServiceNs() + cfg.writeServiceNs();
            assertEquals(expected, handoverNs, expected * 0.03, "handover");
        }
    }

    @Test
    void runsOnlyOnItsOwnSimFabric() {
        try (SimFabric fabric = new SimFabric(SimConfig.defaults());
             SimFabric other = new SimFabric(SimConfig.defaults());
             LocalFabric local = LocalFabric.builder().build()) {
            IdealCasOracle oracle = new IdealCasOracle(fabric);
            assertThrows(IllegalArgumentException.class,
                    () -> oracle.open(other.newEndpoint(), "t", 1, LockOptions.DEFAULTS));
            assertThrows(IllegalArgumentException.class,
                    () -> oracle.open(local.newEndpoint(), "t", 1, LockOptions.DEFAULTS));
        }
    }
}
