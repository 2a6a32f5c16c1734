package io.lockfabric;

import java.io.IOException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client API's contract on the tcp fabric, against a memory node in a process of its own. */
class TcpLockSpaceTest extends LockSpaceContractTest {
    private static JavaProcess server;
    private static String uri;

    @BeforeAll
    static void startServer() throws IOException {
        server = JavaProcess.memoryNode();
        uri = server.awaitMark(1);
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    String address() {
        return uri;
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

    /** Another client (another process, as a rule) keeps a space from being dropped until it closes. */
    @Test
    void aSpaceAnotherClientHasOpenIsNotDroppedUntilItClosesIt() {
        aSpaceOpenElsewhereIsNotDroppedUntilItCloses("is open by 1 other client connection");
    }
}
