package io.lockfabric.sim;

import org.junit.jupiter.api.Tag;

import io.lockfabric.check.RangeExclusionContractTest;
import io.lockfabric.fabric.Fabric;

/** The range exclusion contract on the simulated cluster (2 compute nodes × 4 clients, drifting clocks). */
@Tag("seeds")
class SimRangeExclusionTest extends RangeExclusionContractTest {
    @Override
    protected Fabric newFabric() {
        return new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(11).build());
    }

    @Override
    protected int opsPerClient() {
        return 1_500;
    }
}
