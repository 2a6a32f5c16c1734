package io.lockfabric.local;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.VerbContractTest;

/** The verb contract on the in-JVM fabric. */
class LocalFabricVerbContractTest extends VerbContractTest {
    @Override
    protected Fabric newFabric() {
        return LocalFabric.builder().build();
    }
}
