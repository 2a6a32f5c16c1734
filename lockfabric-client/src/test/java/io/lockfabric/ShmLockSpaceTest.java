package io.lockfabric;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Fabrics;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The client API's contract on the shm fabric: every {@code LockFabric} of the suite maps one file
 * in {@code /dev/shm}; a fabric opened here with {@code serve=true} serves the rpcs of the protocols
 * that have a service (CITRON's range spaces), as {@code lockfabric serve --shm} would.
 */
class ShmLockSpaceTest extends LockSpaceContractTest {
    private static Path file;
    private static Fabric server;

    @BeforeAll
    static void map() throws IOException {
        Path dir = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        file = dir.resolve("lockfabric-api-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        server = Fabrics.open("shm:" + file + "?capacity=268435456&serve=true");
    }

    @AfterAll
    static void unmap() throws IOException {
        server.close();
        Files.deleteIfExists(file);
    }

    @Override
    String address() {
        return "shm:" + file;
    }

    /** Another {@code LockFabric} on the file (another process, as a rule) keeps a space from being dropped until it closes. */
    @Test
    void aSpaceAnotherClientHasOpenIsNotDroppedUntilItClosesIt() {
        aSpaceOpenElsewhereIsNotDroppedUntilItCloses("is open by 1 other endpoint");
    }
}
