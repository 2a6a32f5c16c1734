package io.lockfabric.sim;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.VerbContractTest;

import org.junit.jupiter.api.Test;

/**
 * The verb contract on the simulated cluster (2 compute nodes × 4 clients, default network and
 * RNIC model, clock drift and jitter on): every test body is a simulated process, so its verbs,
 * messages, rpcs and waits all run in virtual time.
 */
class SimVerbContractTest extends VerbContractTest {
    @Override
    protected Fabric newFabric() {
        return new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(17).build());
    }

    /** Guards the premise above: outside a process, verbs would bypass the network and the RNIC. */
    @Test
    void testBodiesRunAsSimulatedProcesses() {
        assertNotNull(((SimFabric) fabric).simulation().current(), "the test body must be a simulated process");
    }
}
