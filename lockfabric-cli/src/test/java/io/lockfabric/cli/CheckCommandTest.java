package io.lockfabric.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lockfabric check} and the history options on a local fabric: a clean history, and bad input as one line. */
class CheckCommandTest {
    @Test
    void aLocalCheckedRunWritesAHistoryThatChecksClean(@TempDir Path dir) {
        Path file = dir.resolve("one.lfh");
        MainTest.Outcome bench = MainTest.run("bench", "--protocols", "cas,cas-rw", "--clients", "2", "--locks", "4",
                "--ops", "400", "--check", "--history", file.toString(), "--format", "csv");
        assertEquals(Main.EXIT_OK, bench.status(), bench.err());
        assertTrue(bench.err().contains("history: 800 holds of 2 run(s) written to " + file), bench.err());
        MainTest.Outcome check = MainTest.run("check", dir.toString());
        assertEquals(Main.EXIT_OK, check.status(), check.out() + check.err());
        assertEquals(3, check.out().lines().count(), check.out());
        assertTrue(check.out().contains("cas, point, 1 process(es) on 1 clock(s), 400 holds") && check.out().endsWith(
                "check: ok\n"), check.out());
    }

    @Test
    void badInputIsOneLineAndStatusTwo(@TempDir Path dir) throws Exception {
        Path text = Files.writeString(dir.resolve("x.lfh"), "not a history\n");
        for (String[] args : new String[][] {{"check", text.toString()}, {"check", dir.resolve("none").toString()},
                {"check", Files.createDirectory(dir.resolve("empty")).toString()}, {"check"},
                {"bench", "--fabric", "sim", "--protocols", "cas", "--check", "--history", "h.lfh"},
                {"bench", "--protocols", "cas", "--ops", "10", "--history", "h.lfh"},
                {"bench", "--protocols", "cas", "--ops", "10", "--check", "--processes", "2"}}) {
            MainTest.Outcome o = MainTest.run(args);
            assertEquals(Main.EXIT_BAD_INPUT, o.status(), String.join(" ", args) + ": " + o.err());
            assertEquals(1, o.err().strip().lines().filter(l -> l.startsWith("lockfabric: ")).count(),
                    String.join(" ", args) + ": " + o.err());
        }
    }
}
