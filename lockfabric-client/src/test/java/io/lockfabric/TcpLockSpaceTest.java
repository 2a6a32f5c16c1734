package io.lockfabric;

import io.lockfabric.net.TcpMemoryNode;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client API's contract on the tcp fabric, against a memory node in this JVM. */
class TcpLockSpaceTest extends LockSpaceContractTest {
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

    @Test
    void anotherProcessWithOtherOptionsGetsAClearError() {
        try (LockFabric first = LockFabric.builder(address()).poolSize(1).open();
             LockFabric second = LockFabric.builder(address()).poolSize(1).open()) {
            first.lockSpace("shared-shape", SpaceOptions.builder().slots(64).build());
            second.lockSpace("shared-shape", SpaceOptions.builder().slots(64).build());
            second.lockSpace("shared-shape-2", SpaceOptions.builder().slots(8).build());
            SpaceMismatchException e = assertThrows(SpaceMismatchException.class,
                    () -> first.lockSpace("shared-shape-2", SpaceOptions.builder().slots(16).build()));
            assertTrue(e.getMessage().contains("shared-shape-2"), e.getMessage());
        }
    }
}
