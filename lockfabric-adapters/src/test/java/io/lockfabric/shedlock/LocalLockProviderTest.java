package io.lockfabric.shedlock;

/** {@link LockFabricLockProvider} on the local fabric (memory node in this JVM). */
class LocalLockProviderTest extends LockProviderContractTest {
    @Override
    String address() {
        return "local";
    }
}
