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

    @Test
    void aSpaceAnotherClientHasOpenIsNotDroppedUntilItClosesIt() {
        try (LockFabric first = LockFabric.builder(address()).poolSize(2).open()) {
            LockSpace mine = first.lockSpace("dropped-shared", SpaceOptions.builder().slots(8).build());
            mine.acquire("k").close();
            try (LockFabric second = LockFabric.builder(address()).poolSize(1).open()) {
                LockSpace theirs = second.lockSpace("dropped-shared", SpaceOptions.builder().slots(8).build());
                theirs.acquire("k").close();
                SpaceInUseException e = assertThrows(SpaceInUseException.class, () -> first.dropSpace("dropped-shared"));
                assertTrue(e.getMessage().contains("is open by 1 other client connection"), e.getMessage());
                mine.acquire("k").close(); // refused: nothing changed here either
                theirs.acquire("k").close();
            }
            // the other client has gone (once the server has seen its connection close): only this
            // LockFabric's own endpoints have it open
            long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try {
                    assertTrue(first.dropSpace("dropped-shared"));
                    break;
                } catch (SpaceInUseException stillClosing) {
                    assertTrue(System.nanoTime() < until, "the server never saw the other client go");
                    Thread.onSpinWait();
                }
            }
            assertThrows(LockFabricException.class, () -> mine.acquire("k"));
        }
    }
}
