package io.lockfabric;

/** The client API's contract on the local fabric (memory node in this JVM). */
class LocalLockSpaceTest extends LockSpaceContractTest {
    @Override
    String address() {
        return "local";
    }
}
