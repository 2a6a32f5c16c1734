package io.lockfabric.sim;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocols;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hierarchical DecLock on the simulator, 4 compute nodes × 3 clients on a few hot locks:
 * every fairness design and policy keeps mutual exclusion, and handing over within a node saves
 * memory-node operations compared with {@code cql}, where every client queues on the memory node.
 * With {@code sync-cns=4} the four nodes pass the clock barrier first (and nobody hangs in it).
 */
class DecLockSimTest {
    static final int CLIENTS = 12;
    static final int OPS = 600;

    private static double mnOpsPerCycle(String protocol, List<String> options, long seed) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(4).clientsPerComputeNode(3).seed(seed)
                .build())) {
            var result = LockStress.run(fabric, LockProtocols.byName(protocol),
                    LockStress.Config.of(CLIENTS, 4, 0.99, 0.5, OPS).withOptions(LockOptions.parse(options)));
            assertTrue(result.violations().isEmpty(), protocol + " " + options + ": " + result.summary());
            assertEquals(CLIENTS * OPS, result.holds().size());
            CounterSnapshot mn = fabric.memoryNodeCounters(0);
            // the stress's guarded counters cost one READ and one WRITE per exclusive grant
            long lockOps = mn.oneSidedOps() - 2 * result.exclusiveGrants();
            return lockOps / (double) (CLIENTS * OPS);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "declock-tf, policy=timestamp", "declock-pf, policy=timestamp", "declock-pf, policy=remote-prefer",
            "declock-tf, policy=local-prefer", "declock-pf, policy=local-bound", "declock-tf, sync-cns=4",
    })
    void everyPolicyIsSafeAndLocalHandoversSaveMemoryNodeOperations(String protocol, String policy) {
        double hier = mnOpsPerCycle(protocol, List.of(policy), 7);
        double flat = mnOpsPerCycle("cql", List.of(), 7);
        System.out.printf("%s %s: %.3f memory-node ops per cycle (cql %.3f)%n", protocol, policy, hier, flat);
        assertTrue(hier < flat, protocol + " " + policy + ": " + hier + " memory-node ops per cycle, cql " + flat);
    }
}
