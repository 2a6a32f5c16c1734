package io.lockfabric.check;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.local.LocalFabric;

/** The mutual-exclusion contract on the local fabric: 8 threads × 12 500 cycles per protocol. */
class LocalMutualExclusionTest extends MutualExclusionContractTest {
    @Override
    protected Fabric newFabric() {
        return LocalFabric.builder().build();
    }
}
