package io.lockfabric;

/**
 * The client API's contract on the local fabric with local handovers on ({@link
 * LockFabric.Builder#localHandovers}): every promise of the API holds when exclusive grants pass
 * between the threads of the process.
 */
class LocalHandoverContractTest extends LockSpaceContractTest {
    @Override
    String address() {
        return "local";
    }

    @Override
    LockFabric.Builder configure(LockFabric.Builder b) {
        return b.localHandovers(4);
    }
}
