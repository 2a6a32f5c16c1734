package io.lockfabric.spring;

import io.lockfabric.net.TcpMemoryNode;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link LockFabricLockRegistry} on the tcp fabric, against a memory node in this JVM on loopback. */
class TcpLockRegistryTest extends LockRegistryContractTest {
    private static TcpMemoryNode server;

    @BeforeAll
    static void startServer() {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    String address() {
        return server.uri();
    }
}
