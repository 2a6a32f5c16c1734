package io.lockfabric.local;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.InterruptibleWaitContractTest;

/** Ending a client from outside, on the in-JVM fabric. */
class LocalInterruptibleWaitTest extends InterruptibleWaitContractTest {
    @Override
    protected Fabric newFabric() {
        return LocalFabric.builder().build();
    }
}
