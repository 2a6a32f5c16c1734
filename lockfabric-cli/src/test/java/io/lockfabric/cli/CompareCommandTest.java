package io.lockfabric.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lockfabric compare} on the local fabric alone (the peers' servers: PeersCompareTest in
 * lockfabric-compare): a report in each format and a chart, every option in the help, and bad input
 * as one line with status 2.
 */
class CompareCommandTest {
    @Test
    void aLocalComparisonReportsInEveryFormatAndDrawsItsChart(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("c.png");
        MainTest.Outcome json = MainTest.run("compare", "--peers", "lockfabric", "--fabrics", "local", "--protocols", "cas,dslr",
                "--threads", "4", "--locks", "16", "--duration", "300ms", "--warmup", "100ms", "--format", "json",
                "--chart", png.toString());
        assertEquals(Main.EXIT_OK, json.status(), json.err());
        assertEquals(2, json.out().lines().count(), json.out());
        assertTrue(json.out().contains("\"peer\":\"lockfabric local cas\"") && json.out().contains("\"check\":\"ok\"")
                && json.out().contains("\"lockfabric_best_ratio\":"), json.out());
        assertTrue(Files.size(png) > 1000, "chart of " + Files.size(png) + " bytes");
        MainTest.Outcome csv = MainTest.run("compare", "--peers", "lockfabric", "--fabrics", "local", "--threads", "2",
                "--locks", "4", "--read-ratio", "0.5", "--duration", "200ms", "--warmup", "0s", "--format", "csv");
        assertEquals(Main.EXIT_OK, csv.status(), csv.err());
        assertEquals(2, csv.out().lines().count(), csv.out());
        assertTrue(csv.out().startsWith("peer,system,lock,threads,locks,zipf,read_ratio,"), csv.out());
        MainTest.Outcome table = MainTest.run("compare", "--peers", "lockfabric", "--fabrics", "local", "--threads", "2",
                "--duration", "200ms", "--warmup", "0s");
        assertEquals(Main.EXIT_OK, table.status(), table.err());
        assertTrue(table.out().contains("ops/s") && table.out().contains("lockfabric local dslr") && table.out().contains("1.00x")
                && table.out().contains("load average:"), table.out());
    }

    /** An rpc protocol on a shm file nobody serves: the comparison serves its rpcs itself, and says so. */
    @Test
    void anRpcProtocolOnAShmFileIsServedByTheComparison(@TempDir Path dir) {
        MainTest.Outcome o = MainTest.run("compare", "--peers", "lockfabric", "--fabrics", "shm:" + dir.resolve("cmp.shm"),
                "--protocols", "rpc,cas", "--threads", "2", "--locks", "8", "--duration", "200ms", "--warmup", "0s",
                "--format", "csv");
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        assertEquals(3, o.out().lines().count(), o.out());
        assertTrue(o.out().lines().skip(1).allMatch(l -> l.endsWith(",ok")), o.out());
        assertTrue(o.out().contains("its rpcs served by this process"), o.out());
    }

    @Test
    void theHelpExplainsEveryOption() {
        MainTest.Outcome help = MainTest.run("compare", "--help");
        assertEquals(Main.EXIT_OK, help.status());
        String text = help.out().replaceAll("\\s+", " ");
        for (String option : new String[] {"--peers", "--fabrics", "--protocols", "--threads", "--locks", "--zipf", "--read-ratio",
                "--duration", "--warmup", "--seed", "--hazelcast-members", "--format", "--chart", "apt-get install redis-server", "apt-get install etcd-server",
                "unsafe"}) {
            assertTrue(text.contains(option), option + " not in:\n" + help.out());
        }
    }

    @Test
    void badInputIsOneLineAndStatusTwo() {
        for (String[] args : new String[][] {{"compare", "--format", "xml"}, {"compare", "--peers", "zookeeper"},
                {"compare", "--peers", "nope"}, {"compare", "--protocols", "nope"}, {"compare", "--fabrics", "sim"},
                {"compare", "--threads", "0"}, {"compare", "--zipf", "-1"}, {"compare", "--read-ratio", "2"},
                {"compare", "--duration", "0s"}, {"compare", "--hazelcast-members", "2"}}) {
            MainTest.Outcome o = MainTest.run(args);
            assertEquals(Main.EXIT_BAD_INPUT, o.status(), String.join(" ", args) + ": " + o.err());
            assertEquals(1, o.err().strip().lines().filter(l -> l.startsWith("lockfabric: ")).count(),
                    String.join(" ", args) + ": " + o.err());
        }
    }
}
