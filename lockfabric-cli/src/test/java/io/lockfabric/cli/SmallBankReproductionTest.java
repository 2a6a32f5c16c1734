package io.lockfabric.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lockfabric reproduce shiftlock-fig11}: listed, its own options refused elsewhere, and a
 * short run end to end on a real redis-server and memory node (started by the command; a missing
 * redis-server fails the test), every run's check passed and the paper's ratio beside ours.
 */
@Tag("peers")
class SmallBankReproductionTest {
    @Test
    void listedAndItsOptionsAreItsOwn() {
        MainTest.Outcome list = MainTest.run("reproduce", "--list");
        assertEquals(Main.EXIT_OK, list.status(), list.err());
        assertTrue(list.out().contains("shiftlock-fig11\n"), list.out());
        MainTest.Outcome other = MainTest.run("reproduce", "shiftlock-2.3", "--accounts", "100");
        assertEquals(Main.EXIT_BAD_INPUT, other.status());
        assertTrue(other.err().contains("--accounts, --threads and --processes apply to shiftlock-fig11 only"), other.err());
        MainTest.Outcome few = MainTest.run("reproduce", "shiftlock-fig11", "--accounts", "1");
        assertEquals(Main.EXIT_BAD_INPUT, few.status());
        assertEquals("lockfabric: --accounts must be at least 2, got 1", few.err().strip());
    }

    @Test
    void aShortRunOnRealProcessesConservesMoneyAndComparesWithThePaper() {
        MainTest.Outcome o = MainTest.run("reproduce", "shiftlock-fig11", "--accounts", "500", "--threads", "2", "--processes", "1",
                "--warmup", "300ms", "--duration", "700ms", "--protocols", "shiftlock", "--format", "json");
        assertEquals(Main.EXIT_OK, o.status(), o.out() + o.err());
        assertTrue(o.out().contains("\"checks_passed\":true"), o.out());
        assertTrue(o.out().contains("\"locks\":\"redis-setnx\"") && o.out().contains("\"locks\":\"lockfabric/shiftlock\""), o.out());
        assertTrue(o.out().contains("\"goodput_ratio_vs_redis\":"), o.out());
        assertTrue(o.out().contains("\"shiftlock_kops\":36.55"), o.out());
    }
}
