package io.lockfabric.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lockfabric range-bench} and {@code bench --workload range}: a small sim run in each format, and bad input. */
class RangeBenchCommandTest {
    private static final String[] SMALL = {"range-bench", "--fabric", "sim", "--clients", "6", "--units", "16384",
            "--range-size", "mixed", "--virtual-duration", "1ms", "--warmup", "200us"};

    private static MainTest.Outcome run(String... extra) {
        String[] argv = new String[SMALL.length + extra.length];
        System.arraycopy(SMALL, 0, argv, 0, SMALL.length);
        System.arraycopy(extra, 0, argv, SMALL.length, extra.length);
        return MainTest.run(argv);
    }

    @Test
    void aSimRunPrintsATableWithPerSizeGoodputAndTheCheck() {
        MainTest.Outcome o = run();
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        assertTrue(o.out().startsWith("# sim fabric: 1 CN(s) x 6 clients"), o.out());
        assertTrue(o.out().contains("range exclusion checked"), o.out());
        // Every registered range protocol runs by default.
        for (String name : io.lockfabric.protocols.RangeLockProtocols.names()) {
            assertTrue(o.out().lines().anyMatch(l -> l.startsWith(name + " ") && l.contains(" mixed ")),
                    name + ": " + o.out());
        }
        assertTrue(o.out().contains(" 1:") && o.out().contains(" 256:") && o.out().contains(" ok"), o.out());
    }

    @Test
    void csvAndJsonHaveOneRecordPerProtocol() {
        MainTest.Outcome csv = run("--format", "csv", "--option", "citron.fast-path=0",
                "--protocols", "citron,rpc-range");
        assertEquals(Main.EXIT_OK, csv.status(), csv.err());
        String[] lines = csv.out().strip().split("\n");
        assertEquals(3, lines.length, csv.out());
        assertTrue(lines[2].startsWith("rpc-range,sim,6,16384,mixed,"), lines[2]);
        assertTrue(lines[0].startsWith("protocol,fabric,clients,units,range_size"), lines[0]);
        assertTrue(lines[1].startsWith("citron,sim,6,16384,mixed,"), lines[1]);
        assertTrue(lines[1].contains("citron.fast-path=0"), lines[1]);
        // timing aborts: a count for citron, an empty cell (not -1) for rpc-range, which has none
        int timing = java.util.List.of(lines[0].split(",", -1)).indexOf("timing_aborts");
        assertTrue(timing > 0, lines[0]);
        assertTrue(lines[1].split(",", -1)[timing].matches("\\d+"), lines[1]);
        assertEquals("", lines[2].split(",", -1)[timing], lines[2]);
        MainTest.Outcome json = run("--format", "json", "--protocols", "citron,rpc-range");
        assertEquals(Main.EXIT_OK, json.status(), json.err());
        assertTrue(json.out().startsWith("{\"protocol\":\"citron\""), json.out());
        assertTrue(json.out().contains("\"goodput_by_size\":{\"1\":"), json.out());
        String[] objects = json.out().strip().split("\n");
        assertTrue(objects[0].matches(".*\"timing_aborts\":\\d+,.*"), objects[0]);
        assertTrue(objects[1].contains("\"timing_aborts\":null,"), objects[1]);
    }

    /** {@code range-bench} is {@code bench --workload range} under its own flags: the same runs, byte for byte. */
    @Test
    void benchWithTheRangeWorkloadPrintsWhatRangeBenchPrints() {
        for (String format : new String[] {"table", "csv", "json"}) {
            MainTest.Outcome alias = run("--protocols", "citron,ss-exact", "--cs", "1us", "--format", format);
            MainTest.Outcome bench = MainTest.run("bench", "--workload", "range", "--fabric", "sim", "--clients", "6",
                    "--units", "16384", "--range-size", "mixed", "--virtual-duration", "1ms", "--warmup", "200us",
                    "--protocols", "citron,ss-exact", "--cs", "1us", "--format", format);
            assertEquals(Main.EXIT_OK, bench.status(), bench.err());
            assertEquals(alias.out(), bench.out(), format);
            assertEquals(alias.err(), bench.err(), format);
        }
    }

    /**
     * --read-ratio asks for shared ranges: citron with reader lanes grants them shared (the JSON
     * says read_ratio, no violation), bench --workload range prints the same, and without the flag
     * the JSON has no read_ratio key (the paper's runs print what they always printed).
     */
    @Test
    void readRatioAsksForSharedRanges() {
        MainTest.Outcome o = run("--protocols", "citron", "--read-ratio", "0.9", "--option", "citron.shared-lanes=4",
                "--cs", "2us", "--format", "json");
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        assertTrue(o.out().contains("\"read_ratio\":0.9") && o.out().contains("\"violations\":[]"), o.out());
        MainTest.Outcome bench = MainTest.run("bench", "--workload", "range", "--fabric", "sim", "--clients", "6",
                "--units", "16384", "--range-size", "mixed", "--virtual-duration", "1ms", "--warmup", "200us",
                "--protocols", "citron", "--read-ratio", "0.9", "--option", "citron.shared-lanes=4", "--cs", "2us",
                "--format", "json");
        assertEquals(o.out(), bench.out());
        MainTest.Outcome plain = run("--protocols", "citron", "--format", "json");
        assertEquals(Main.EXIT_OK, plain.status(), plain.err());
        assertTrue(!plain.out().contains("read_ratio"), plain.out());
    }

    @Test
    void benchRefusesFlagsOfTheOtherWorkloadKind() {
        for (String[] bad : new String[][] {{"--workload", "range", "--locks", "5"},
                {"--workload", "range", "--read-ratio", "1.5"}, {"--range-size", "16"}, {"--units", "4096"},
                {"--workload", "txn"}, {"--workload", "range", "--cs", "5"}, {"--cs", "5us"}}) {
            String[] argv = new String[bad.length + 3];
            argv[0] = "bench";
            argv[1] = "--ops";
            argv[2] = "10";
            System.arraycopy(bad, 0, argv, 3, bad.length);
            MainTest.Outcome o = MainTest.run(argv);
            assertEquals(Main.EXIT_BAD_INPUT, o.status(), String.join(" ", bad) + ": " + o.err());
            assertEquals(1, o.err().strip().split("\n").length, o.err());
        }
    }

    @Test
    void badInputIsStatusTwoWithOneLine() {
        for (String[] bad : new String[][] {{"--range-size", "big"}, {"--protocols", "nope"},
                {"--option", "no-such=1"}, {"--duration", "1s"}, {"--zipf", "-1"}}) {
            MainTest.Outcome o = run(bad);
            assertEquals(Main.EXIT_BAD_INPUT, o.status(), String.join(" ", bad) + ": " + o.err());
            assertEquals(1, o.err().strip().split("\n").length, o.err());
        }
        MainTest.Outcome local = MainTest.run("range-bench", "--cns", "2");
        assertEquals(Main.EXIT_BAD_INPUT, local.status(), local.err());
        MainTest.Outcome reproduce = MainTest.run("reproduce", "shiftlock-2.3", "--protocols", "cas");
        assertEquals(Main.EXIT_BAD_INPUT, reproduce.status(), reproduce.err());
        assertTrue(reproduce.err().contains("--protocols applies to experiments that compare protocols"),
                reproduce.err());
    }
}
