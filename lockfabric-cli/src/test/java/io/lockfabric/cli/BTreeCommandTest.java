package io.lockfabric.cli;

import io.lockfabric.net.TcpMemoryNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lockfabric btree}: runs per lock variant on sim, local and tcp, its formats, and bad input. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BTreeCommandTest {
    @Test
    void aRunPerVariantOnTheSimulatorIsCheckedAndReportedAsATable() {
        MainTest.Outcome o = MainTest.run("btree", "--fabric", "sim", "--cns", "2", "--clients-per-cn", "4",
                "--keys", "2000", "--load-every", "2", "--fanout", "8", "--workload", "update-only",
                "--virtual-duration", "1ms", "--warmup", "500us", "--lock", "sherman,sherman-nh,declock");
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        assertTrue(o.out().startsWith("# sim fabric: 2 CN(s) x 4 clients, B+-tree update-only, 2,000 keys"), o.out());
        List<String> rows = o.out().lines().filter(l -> l.startsWith("sherman") || l.startsWith("declock")).toList();
        assertEquals(3, rows.size(), o.out());
        assertTrue(rows.stream().allMatch(r -> r.strip().endsWith("ok")), o.out());
        assertTrue(o.out().lines().findFirst().orElseThrow().contains("options declock-pf.cns=2"),
                "the hierarchical DecLock's queue is sized for the cluster's compute nodes: " + o.out());
    }

    @Test
    void jsonAndCsvOnTheLocalFabric() {
        MainTest.Outcome json = MainTest.run("btree", "--keys", "1000", "--clients", "2", "--duration", "200ms",
                "--warmup", "100ms", "--lock", "cas-rw", "--workload", "search-mostly", "--format", "json");
        assertEquals(Main.EXIT_OK, json.status(), json.err());
        String line = json.out().strip();
        assertTrue(line.startsWith("{\"protocol\":\"cas-rw\",\"fabric\":\"local\",\"parameters\":{\"workload\":\"search-mostly\""),
                line);
        assertTrue(line.contains("\"searches\":{\"ops\":"), line);
        assertTrue(line.contains("\"clean\":true"), line);
        MainTest.Outcome csv = MainTest.run("btree", "--keys", "1000", "--clients", "2", "--duration", "100ms",
                "--warmup", "50ms", "--lock", "sherman", "--format", "csv", "--no-check");
        assertEquals(Main.EXIT_OK, csv.status(), csv.err());
        List<String> rows = csv.out().strip().lines().toList();
        assertEquals(2, rows.size(), csv.out());
        assertTrue(rows.get(0).startsWith("lock,fabric,workload,clients,keys,zipf,fanout,load_every,"), rows.get(0));
        assertTrue(rows.get(1).startsWith("sherman,local,update-heavy,2,1000,0.99,32,1,"), rows.get(1));
    }

    @Test
    void overTcpWithAMemoryNodeOnLoopback() {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start()) {
            MainTest.Outcome o = MainTest.run("btree", "--fabric", server.uri(), "--keys", "2000", "--clients", "2",
                    "--duration", "300ms", "--warmup", "200ms", "--lock", "sherman,declock", "--option", "lease-ns=5s",
                    "--format", "csv");
            assertEquals(Main.EXIT_OK, o.status(), o.err());
            List<String> rows = o.out().strip().lines().toList();
            assertEquals(3, rows.size(), o.out());
            assertTrue(rows.get(1).startsWith("sherman," + server.uri()), rows.get(1));
            assertTrue(rows.get(2).startsWith("declock," + server.uri()), rows.get(2));
            assertTrue(rows.stream().skip(1).allMatch(r -> r.contains(",ok,0")), o.out());
        }
    }

    @Test
    void badInputIsOneLineAndStatus2() {
        MainTest.Outcome workload = MainTest.run("btree", "--workload", "update-most");
        assertEquals(Main.EXIT_BAD_INPUT, workload.status());
        assertTrue(workload.err().contains("unknown B+-tree workload 'update-most'; known: update-only, update-heavy, "
                + "search-mostly"), workload.err());
        MainTest.Outcome lock = MainTest.run("btree", "--lock", "sherman,nope");
        assertEquals(Main.EXIT_BAD_INPUT, lock.status());
        assertTrue(lock.err().contains("unknown lock variant 'nope'"), lock.err());
        MainTest.Outcome simOnly = MainTest.run("btree", "--virtual-duration", "1ms");
        assertEquals(Main.EXIT_BAD_INPUT, simOnly.status());
        assertTrue(simOnly.err().contains("apply to --fabric sim only"), simOnly.err());
        MainTest.Outcome keys = MainTest.run("btree", "--keys", "0");
        assertEquals(Main.EXIT_BAD_INPUT, keys.status());
        assertTrue(keys.err().contains("keys must be in [1, 2^31)"), keys.err());
        MainTest.Outcome option = MainTest.run("btree", "--lock", "sherman", "--option", "lease-ns=1s");
        assertEquals(Main.EXIT_BAD_INPUT, option.status());
        assertTrue(option.err().lines().count() == 1, option.err());
        MainTest.Outcome noServer = MainTest.run("btree", "--fabric", "tcp://127.0.0.1:1");
        assertEquals(Main.EXIT_BAD_INPUT, noServer.status());
        assertTrue(noServer.err().contains("no memory node answers"), noServer.err());
    }
}
