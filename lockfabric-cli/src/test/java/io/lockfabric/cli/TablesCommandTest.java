package io.lockfabric.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.net.TcpFabric;
import io.lockfabric.net.TcpMemoryNode;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code lockfabric tables list|drop}, and the memory node's refusals as the CLI reports them: one
 * line, exit status 2 (what was asked does not fit) or 3 (the run failed), never a stack trace.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TablesCommandTest {
    private static TcpMemoryNode server() {
        return TcpMemoryNode.builder().port(0).capacityBytes(1 << 20).tableGraceNs(TimeUnit.HOURS.toNanos(1)).start();
    }

    private static void assertOneLine(MainTest.Outcome o) {
        String err = o.err().strip();
        assertTrue(err.startsWith("lockfabric: "), err);
        assertFalse(err.contains("\n"), "one line: " + err);
        assertFalse(err.contains("\tat "), "no stack trace: " + err);
    }

    @Test
    void aTableThatDoesNotFitIsOneLineAndExitStatus2OnLocalAndTcp() {
        MainTest.Outcome local = MainTest.run("bench", "--protocols", "cas", "--locks", "2000000000", "--ops", "10");
        assertEquals(Main.EXIT_BAD_INPUT, local.status(), local.err());
        assertOneLine(local);
        assertTrue(local.err().contains("cannot hold table"), local.err());
        try (TcpMemoryNode server = server()) {
            MainTest.Outcome tcp = MainTest.run("bench", "--fabric", server.uri(), "--protocols", "cas", "--locks",
                    "2000000000", "--ops", "10");
            assertEquals(Main.EXIT_BAD_INPUT, tcp.status(), tcp.err());
            assertOneLine(tcp);
            assertTrue(tcp.err().contains("bytes are in use"), tcp.err());
        }
    }

    @Test
    void benchRunsDropTheirOwnTablesSoALongLivedServerEndsAsItStarted() {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(256L << 20)
                .tableGraceNs(TimeUnit.HOURS.toNanos(1)).start()) {
            long before = server.memory().allocatedBytes();
            for (int i = 0; i < 3; i++) {
                MainTest.Outcome o = MainTest.run("bench", "--fabric", server.uri(), "--protocols", "cas,dslr",
                        "--clients", "2", "--locks", "1000", "--ops", "50", "--check", "--format", "csv");
                assertEquals(Main.EXIT_OK, o.status(), o.err());
                MainTest.Outcome r = MainTest.run("range-bench", "--fabric", server.uri(), "--protocols", "citron",
                        "--clients", "2", "--ops", "20", "--format", "csv");
                assertEquals(Main.EXIT_OK, r.status(), r.err());
            }
            assertEquals(List.of(), server.memory().tables(), "every run dropped its tables");
            assertEquals(before, server.memory().allocatedBytes());
        }
    }

    @Test
    void aTableDroppedUnderARunningBenchFailsItWithStatus3() throws Exception {
        try (TcpMemoryNode server = server()) {
            AtomicReference<MainTest.Outcome> bench = new AtomicReference<>();
            Thread t = Thread.ofPlatform().start(() -> bench.set(MainTest.run("bench", "--fabric", server.uri(),
                    "--protocols", "cas", "--clients", "2", "--locks", "4", "--duration", "3s", "--shared-table",
                    "victim", "--format", "csv")));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.memory().table("bench-cas-victim") == null) {
                assertTrue(System.nanoTime() < until && t.isAlive(), "the bench never opened its table");
                Thread.sleep(10);
            }
            Thread.sleep(300);
            assertTrue(server.dropTable("bench-cas-victim", true).isPresent());
            t.join();
            MainTest.Outcome o = bench.get();
            assertEquals(Main.EXIT_RUN_FAILED, o.status(), o.err());
            assertOneLine(o);
            assertTrue(o.err().contains("table 'bench-cas-victim' was dropped"), o.err());
        }
    }

    @Test
    void listShowsTablesAndDropDropsThemRefusingOneInUseWithoutForce() {
        try (TcpMemoryNode server = server(); TcpFabric client = TcpFabric.connect(server.uri())) {
            Endpoint e = client.newEndpoint();
            e.openTable(new TableSpec("orders", "dslr", 16, 4096));
            MainTest.Outcome list = MainTest.run("tables", "list", "--fabric", server.uri());
            assertEquals(Main.EXIT_OK, list.status(), list.err());
            List<String> lines = list.out().lines().toList();
            assertEquals(List.of("name", "protocol", "bytes", "clients", "idle"), List.of(lines.get(0).trim().split("\\s+")));
            assertEquals(List.of("orders", "dslr", "4096", "1", "-"), List.of(lines.get(1).trim().split("\\s+")));
            assertEquals("1 table, 4096 bytes", lines.get(2));

            MainTest.Outcome inUse = MainTest.run("tables", "drop", "orders", "--fabric", server.uri());
            assertEquals(Main.EXIT_BAD_INPUT, inUse.status(), inUse.err());
            assertOneLine(inUse);
            assertTrue(inUse.err().contains("open by 1 client connection; --force drops it"), inUse.err());

            MainTest.Outcome forced = MainTest.run("tables", "drop", "orders", "--force", "--fabric", server.uri());
            assertEquals(Main.EXIT_OK, forced.status(), forced.err());
            assertEquals("dropped table 'orders' (4096 bytes)", forced.out().strip());
            assertNull(server.memory().table("orders"));
            assertEquals(0, server.memory().allocatedBytes());

            MainTest.Outcome none = MainTest.run("tables", "drop", "orders", "--fabric", server.uri());
            assertEquals(Main.EXIT_BAD_INPUT, none.status(), none.err());
            assertTrue(none.err().startsWith("lockfabric: no table 'orders' on tcp://"), none.err());
            MainTest.Outcome empty = MainTest.run("tables", "list", "--fabric", server.uri());
            assertEquals("no tables on " + server.uri(), empty.out().strip());
        }
    }

    @Test
    void noServerOrABadAddressIsBadInput() {
        MainTest.Outcome absent = MainTest.run("tables", "list", "--fabric", "tcp://127.0.0.1:1");
        assertEquals(Main.EXIT_BAD_INPUT, absent.status(), absent.err());
        assertOneLine(absent);
        assertTrue(absent.err().startsWith("lockfabric: no memory node answers at tcp://127.0.0.1:1"), absent.err());
        MainTest.Outcome bad = MainTest.run("tables", "drop", "x", "--fabric", "local");
        assertEquals(Main.EXIT_BAD_INPUT, bad.status(), bad.err());
        assertOneLine(bad);
        MainTest.Outcome help = MainTest.run("tables", "--help");
        assertEquals(Main.EXIT_OK, help.status(), help.err());
        assertTrue(help.out().contains("list") && help.out().contains("drop") && help.out().contains("--table-grace"),
                help.out());
    }
}
