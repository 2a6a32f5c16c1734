package io.lockfabric.shm;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.VerbContractTest;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;

/**
 * The verb contract on the shm fabric: a fresh file per test (under {@code /dev/shm} when it exists),
 * this process serving the test's rpc services ({@code serveRpc}), deleted after the test.
 */
class ShmFabricVerbContractTest extends VerbContractTest {
    private Path dir;

    @Override
    protected Fabric newFabric() {
        dir = ShmTestFiles.newDirectory();
        return ShmFabric.builder().path(dir.resolve("verbs.shm")).capacityBytes(64L << 20).serveRpc(true).build();
    }

    @AfterEach
    void deleteFile() {
        ShmTestFiles.delete(dir);
    }
}
