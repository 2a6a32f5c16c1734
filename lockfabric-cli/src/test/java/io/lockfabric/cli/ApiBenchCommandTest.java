package io.lockfabric.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lockfabric api-bench}: a short run on each kind of fabric, and its bad input. */
class ApiBenchCommandTest {
    @Test
    void aShortRunOnLocalAndOnAnInProcessTcpNodeReportsBothSidesAndTheRatio() {
        MainTest.Outcome o = MainTest.run("api-bench", "--fabric", "local,tcp", "--threads", "4", "--keys", "50",
                "--duration", "200ms", "--warmup", "100ms", "--rounds", "2");
        assertEquals(0, o.status(), o.err());
        for (String line : new String[] {"local ", "tcp (in-process node)", " SPI ", " API ", "API/SPI"}) {
            assertTrue(o.out().contains(line), "no '" + line + "' in:\n" + o.out());
        }
        assertTrue(o.out().contains("local, dslr: SPI"), o.out());
        assertTrue(o.out().contains("tcp (in-process node), declock-tf: SPI"), o.out());
    }

    @Test
    void theSimulatorAndUnknownProtocolsAreBadInput() {
        assertEquals(Main.EXIT_BAD_INPUT, MainTest.run("api-bench", "--fabric", "sim").status());
        MainTest.Outcome o = MainTest.run("api-bench", "--fabric", "local", "--protocol", "nope");
        assertEquals(Main.EXIT_BAD_INPUT, o.status());
        assertTrue(o.err().contains("nope"), o.err());
        assertEquals(Main.EXIT_BAD_INPUT, MainTest.run("api-bench", "--threads", "0").status());
    }
}
