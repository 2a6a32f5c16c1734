package io.lockfabric.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lockfabric fs}: BT-IO on local, OLTP and hard-write on sim, JSON; bad input in one line with status 2. */
@Tag("stress")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FsCommandTest {
    private static MainTest.Outcome fs(String... args) {
        String[] argv = new String[args.length + 1];
        argv[0] = "fs";
        System.arraycopy(args, 0, argv, 1, args.length);
        return MainTest.run(argv);
    }

    @Test
    void btioOnLocalReadsBackWhatItWrote() {
        MainTest.Outcome o = fs("btio", "--clients", "4", "--rows", "4", "--steps", "1", "--lock", "citron,mutex",
                "--duration", "300ms", "--warmup", "100ms");
        assertEquals(Main.EXIT_OK, o.status(), o.err() + o.out());
        assertTrue(o.out().startsWith("# local fabric: 4 clients, BT-IO class D: 4 processes"), o.out());
        List<String> rows = o.out().lines().filter(l -> l.startsWith("citron") || l.startsWith("mutex:dslr")).toList();
        assertEquals(2, rows.size(), o.out());
        rows.forEach(r -> assertTrue(r.endsWith("ok"), r));
    }

    @Test
    void oltpAndHardWriteOnTheSimulatorAsJson() {
        MainTest.Outcome o = fs("oltp", "--fabric", "sim", "--mns", "2", "--mn-link-gbps", "115", "--file-mb", "1",
                "--lock", "citron", "--virtual-duration", "500us", "--warmup", "1ms", "--format", "json");
        assertEquals(Main.EXIT_OK, o.status(), o.err() + o.out());
        assertTrue(o.out().contains("\"trace\":\"oltp\"") && o.out().contains("\"clean\":true"), o.out());
        assertTrue(o.out().contains("citron.units=1048576"), "citron's tree sized to the 1 MiB files: " + o.out());
        MainTest.Outcome h = fs("hardwrite", "--fabric", "sim", "--clients", "8", "--no-data", "--lock", "citron",
                "--virtual-duration", "500us", "--warmup", "100us", "--option", "citron.units=1024");
        assertEquals(Main.EXIT_OK, h.status(), h.err() + h.out());
        assertTrue(h.out().contains("lock only"), h.out());
    }

    @Test
    void badInputIsOneLineWithStatus2() {
        for (String[] args : List.of(new String[] {"nope"}, new String[] {"oltp", "--lock", "nope"},
                new String[] {"btio", "--clients", "3"}, new String[] {"oltp", "--duration", "1s", "--fabric", "sim"})) {
            MainTest.Outcome o = fs(args);
            assertEquals(2, o.status(), String.join(" ", args) + ": " + o.err());
            assertEquals(1, o.err().strip().lines().count(), o.err());
        }
    }
}
