package io.lockfabric.shm;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A test with a fresh directory for its shm files ({@link ShmTestFiles}), made before each test and deleted after. */
abstract class ShmDirectoryTest {
    /** This test's directory. */
    Path dir;

    @BeforeEach
    void newDirectory() {
        dir = ShmTestFiles.newDirectory();
    }

    @AfterEach
    void deleteDirectory() {
        ShmTestFiles.delete(dir);
    }
}
