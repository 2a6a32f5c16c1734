package io.lockfabric.spring;

/** {@link LockFabricLockRegistry} on the local fabric (memory node in this JVM). */
class LocalLockRegistryTest extends LockRegistryContractTest {
    @Override
    String address() {
        return "local";
    }
}
