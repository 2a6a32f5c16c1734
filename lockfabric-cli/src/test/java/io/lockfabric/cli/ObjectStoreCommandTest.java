package io.lockfabric.cli;

import io.lockfabric.net.TcpMemoryNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lockfabric objstore}: a run per protocol on local, tcp (a memory node in this JVM, over
 * loopback) and sim, every get verified; its formats; bad input in one line with status 2.
 */
@Tag("stress")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ObjectStoreCommandTest {
    private static MainTest.Outcome objstore(String... args) {
        String[] argv = new String[args.length + 1];
        argv[0] = "objstore";
        System.arraycopy(args, 0, argv, 1, args.length);
        return MainTest.run(argv);
    }

    @Test
    void aTableOnLocalWithEveryGetVerified() {
        MainTest.Outcome o = objstore("--protocol", "declock-tf,dslr", "--clients", "3", "--objects", "200",
                "--duration", "300ms", "--warmup", "200ms");
        assertEquals(Main.EXIT_OK, o.status(), o.err() + o.out());
        assertTrue(o.out().startsWith("# local fabric: 3 clients, small trace (mean 414 B, 65% gets"), o.out());
        assertTrue(o.out().contains("dslr.lease-ns=1s"), "the client API's lease on a real-time fabric: " + o.out());
        List<String> rows = o.out().lines().filter(l -> l.startsWith("declock-tf") || l.startsWith("dslr")).toList();
        assertEquals(2, rows.size(), o.out());
        for (String row : rows) {
            assertTrue(row.contains("gets verified)"), row);
        }
    }

    @Test
    void jsonOverTcpWithTheLargeTrace() {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(256L << 20).start()) {
            MainTest.Outcome o = objstore("--fabric", server.uri(), "--trace", "large", "--protocol", "declock-tf,cas",
                    "--clients", "3", "--objects", "300", "--duration", "400ms", "--warmup", "500ms", "--format", "json");
            assertEquals(Main.EXIT_OK, o.status(), o.err() + o.out());
            List<String> lines = o.out().strip().lines().toList();
            assertEquals(2, lines.size(), o.out());
            for (String line : lines) {
                assertTrue(line.contains("\"trace\":\"large\""), line);
                assertTrue(line.contains("\"clean\":true"), line);
                assertTrue(!line.contains("\"gets_verified\":0,"), line);
            }
            assertTrue(server.tables().isEmpty(), "the runs dropped their tables: " + server.tables());
            // 300 large objects are 2.8 MB: the bulk load writes them in several WRITEs, each under the tcp limit
        }
    }

    @Test
    void csvOnTheSimulatorWithFaults() {
        MainTest.Outcome o = objstore("--fabric", "sim", "--cns", "2", "--clients-per-cn", "3", "--objects", "64",
                "--protocol", "declock-pf,shiftlock", "--virtual-duration", "1ms", "--warmup", "300us",
                "--faults", "pause=1@50us..200us", "--format", "csv");
        assertEquals(Main.EXIT_OK, o.status(), o.err() + o.out());
        List<String> rows = o.out().strip().lines().toList();
        assertEquals(3, rows.size(), o.out());
        assertTrue(rows.get(0).startsWith("protocol,fabric,trace,"), rows.get(0));
        assertTrue(rows.get(0).contains(",gets_verified,torn,check,"), rows.get(0));
        assertTrue(rows.get(1).startsWith("declock-pf,sim,small,"), rows.get(1));
        assertTrue(rows.get(1).contains(",0,ok,0"), "no torn value, check ok: " + rows.get(1));
        MainTest.Outcome again = objstore("--fabric", "sim", "--cns", "2", "--clients-per-cn", "3", "--objects", "64",
                "--protocol", "declock-pf,shiftlock", "--virtual-duration", "1ms", "--warmup", "300us",
                "--faults", "pause=1@50us..200us", "--format", "csv");
        assertEquals(o.out(), again.out(), "a sim run is a function of its seed");
    }

    @Test
    void helpDescribesEveryOptionCleanly() {
        MainTest.Outcome o = objstore("--help");
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        assertTrue(o.out().contains("65% gets") && o.out().contains("--trace"), o.out());
        assertTrue(!o.out().contains("%%"), "percent signs rendered, not left escaped: " + o.out());
    }

    @Test
    void badInputIsOneLineWithStatusTwo() {
        for (String[] args : List.of(new String[]{"--trace", "medium"}, new String[]{"--objects", "0"},
                new String[]{"--zipf", "-1"}, new String[]{"--protocol", "nope"},
                new String[]{"--fabric", "sim", "--duration", "1s"}, new String[]{"--faults", "crash"},
                new String[]{"--format", "xml"}, new String[]{"--fabric", "tcp://127.0.0.1:1"})) {
            MainTest.Outcome o = objstore(args);
            assertEquals(Main.EXIT_BAD_INPUT, o.status(), String.join(" ", args) + ": " + o.err());
            assertEquals(1, o.err().strip().lines().count(), String.join(" ", args) + ": " + o.err());
            assertTrue(o.err().startsWith("lockfabric: "), o.err());
        }
    }
}
