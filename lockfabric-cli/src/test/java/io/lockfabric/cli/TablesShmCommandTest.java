package io.lockfabric.cli;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.shm.ShmFabric;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lockfabric tables list|drop --fabric shm:PATH}: the tables of a shm fabric's file. */
class TablesShmCommandTest {
    @Test
    void tablesOfAShmFileAreListedAndDroppedOnceNobodyHasThemOpen(@TempDir Path dir) {
        Path file = dir.resolve("tables.shm");
        try (ShmFabric fabric = ShmFabric.builder().path(file).capacityBytes(32L << 20).build()) {
            Endpoint e = fabric.newEndpoint();
            e.openTable(new TableSpec("orders", "cas", 16, 4096));
            MainTest.Outcome list = MainTest.run("tables", "list", "--fabric", "shm:" + file);
            assertEquals(Main.EXIT_OK, list.status(), list.err());
            assertTrue(list.out().lines().anyMatch(l -> l.matches("orders\\s+cas\\s+4096\\s+1")), list.out());

            MainTest.Outcome refused = MainTest.run("tables", "drop", "orders", "--fabric", "shm:" + file);
            assertEquals(Main.EXIT_BAD_INPUT, refused.status(), refused.out());
            assertTrue(refused.err().contains("open by 1 other endpoint") && refused.err().contains("--force"),
                    refused.err());

            e.close();
            MainTest.Outcome dropped = MainTest.run("tables", "drop", "orders", "--fabric", "shm:" + file);
            assertEquals(Main.EXIT_OK, dropped.status(), dropped.err());
            assertTrue(dropped.out().contains("dropped table 'orders' (4096 bytes)"), dropped.out());
            MainTest.Outcome none = MainTest.run("tables", "list", "--fabric", "shm:" + file);
            assertTrue(none.out().contains("no tables in shm:" + file), none.out());
            MainTest.Outcome again = MainTest.run("tables", "drop", "orders", "--fabric", "shm:" + file);
            assertEquals(Main.EXIT_BAD_INPUT, again.status());
            assertTrue(again.err().contains("no table 'orders'"), again.err());
        }
        MainTest.Outcome missing = MainTest.run("tables", "list", "--fabric", "shm:" + dir.resolve("missing.shm"));
        assertEquals(Main.EXIT_BAD_INPUT, missing.status());
        assertTrue(missing.err().contains("no shm file at"), missing.err());
    }
}
