package io.lockfabric.cli;

import io.lockfabric.net.TcpMemoryNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lockfabric range-bench --fabric tcp://…} against a memory node in this JVM (the clients
 * reach it over loopback TCP and its services are built from the protocols' names, as for a
 * {@code lockfabric serve} process): a run per protocol, two benches sharing one range lock, and
 * bad input.
 */
class RangeBenchTcpTest {
    private static final String[] SMALL = {"--units", "16384", "--range-size", "16", "--zipf", "0.9"};

    private static MainTest.Outcome rangeBench(String uri, String... extra) {
        List<String> argv = new ArrayList<>(List.of("range-bench", "--fabric", uri));
        argv.addAll(List.of(SMALL));
        argv.addAll(List.of(extra));
        return MainTest.run(argv.toArray(String[]::new));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRunPerProtocolOverTcpWithTheTcpWaits() {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start()) {
            String uri = server.uri();
            MainTest.Outcome o = rangeBench(uri, "--protocols", "citron,rpc-range,lld", "--clients", "3", "--ops", "300",
                    "--format", "csv");
            assertEquals(Main.EXIT_OK, o.status(), o.err());
            List<String> rows = o.out().strip().lines().toList();
            assertEquals(4, rows.size(), o.out());
            assertTrue(rows.get(1).startsWith("citron," + uri + ",3,16384,16,"), rows.get(1));
            assertTrue(rows.get(2).startsWith("rpc-range," + uri + ",3,16384,16,"), rows.get(2));
            assertTrue(rows.get(3).startsWith("lld," + uri + ",3,16384,16,"), rows.get(3));
            // citron's T_wait is scaled to TCP's timing (three round trips and a stall), and the report says so
            assertTrue(o.err().contains("citron.t-wait-ns=2.3ms"), o.err());
            assertTrue(rows.get(1).contains("citron.t-wait-ns=2.3ms"), rows.get(1));
            MainTest.Outcome table = rangeBench(uri, "--protocols", "citron", "--clients", "2", "--ops", "100",
                    "--option", "citron.t-wait-ns=3ms");
            assertEquals(Main.EXIT_OK, table.status(), table.err());
            assertTrue(table.out().startsWith("# " + uri + " fabric: 2 clients"), table.out());
            assertTrue(table.out().contains("range exclusion checked, options"), table.out());
            assertTrue(table.out().contains("citron.t-wait-ns=3ms"), "the user's option is last, so it wins: "
                    + table.out());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void twoBenchesGivenOneSharedTableContendForOneRangeLock() throws Exception {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start()) {
            String uri = server.uri();
            List<MainTest.Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());
            List<Thread> benches = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                String seed = Integer.toString(i + 1);
                benches.add(Thread.ofPlatform().start(() -> outcomes.add(rangeBench(uri, "--protocols",
                        "citron,rpc-range", "--clients", "2", "--ops", "300", "--seed", seed, "--shared-table", "both"))));
            }
            for (Thread t : benches) {
                t.join();
            }
            assertEquals(2, outcomes.size());
            for (MainTest.Outcome o : outcomes) {
                assertEquals(Main.EXIT_OK, o.status(), o.err());
                assertTrue(o.out().contains("range exclusion checked (this process's holds; shared table both)"),
                        o.out());
            }
            assertNotNull(server.memory().table("rbench-citron-both"), "one citron table for both");
            assertNotNull(server.memory().table("rbench-rpc-range-both"), "one rpc-range table for both");
            // and no table of either process's own (citron's expansion tables would carry a '/')
            assertEquals(List.of("rbench-citron-both", "rbench-rpc-range-both"), server.memory().tables().stream()
                    .map(t -> t.spec().name()).filter(n -> n.startsWith("rbench-")).sorted().toList());
            MainTest.Outcome other = MainTest.run("range-bench", "--fabric", uri, "--protocols", "citron", "--units",
                    "65536", "--ops", "10", "--shared-table", "both");
            assertEquals(Main.EXIT_BAD_INPUT, other.status(), other.err());
            assertTrue(other.err().contains("another shape"), other.err());
            assertEquals(1, other.err().strip().lines().filter(l -> l.startsWith("lockfabric:")).count(), other.err());
        }
    }

    @Test
    void badTcpInputIsStatusTwo() {
        MainTest.Outcome absent = rangeBench("tcp://127.0.0.1:1", "--ops", "10");
        assertEquals(Main.EXIT_BAD_INPUT, absent.status(), absent.err());
        assertTrue(absent.err().startsWith("lockfabric: no memory node answers at tcp://127.0.0.1:1"), absent.err());
        MainTest.Outcome local = MainTest.run("range-bench", "--ops", "10", "--shared-table", "x");
        assertEquals(Main.EXIT_BAD_INPUT, local.status(), local.err());
        assertTrue(local.err().contains("--shared-table applies to --fabric tcp"), local.err());
        MainTest.Outcome unknown = MainTest.run("range-bench", "--fabric", "udp://x:1", "--ops", "10");
        assertEquals(Main.EXIT_BAD_INPUT, unknown.status(), unknown.err());
        assertTrue(unknown.err().contains("tcp://HOST:PORT"), unknown.err());
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start()) {
            MainTest.Outcome badName = rangeBench(server.uri(), "--protocols", "rpc-range", "--ops", "10",
                    "--shared-table", "a/b");
            assertEquals(Main.EXIT_BAD_INPUT, badName.status(), badName.err());
            assertTrue(badName.err().contains("shared table name"), badName.err());
        }
    }
}
