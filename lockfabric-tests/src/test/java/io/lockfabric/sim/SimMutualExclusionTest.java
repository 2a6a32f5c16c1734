package io.lockfabric.sim;

import org.junit.jupiter.api.Tag;

import io.lockfabric.check.MutualExclusionContractTest;
import io.lockfabric.fabric.Fabric;

/** The mutual-exclusion contract on the simulated cluster (2 compute nodes × 4 clients). */
@Tag("seeds")
class SimMutualExclusionTest extends MutualExclusionContractTest {
    @Override
    protected Fabric newFabric() {
        return new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(11).build());
    }

    @Override
    protected int opsPerClient() {
        return 2_000;
    }
}
