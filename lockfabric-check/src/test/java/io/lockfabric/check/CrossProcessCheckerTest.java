package io.lockfabric.check;

import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The merged check on hand-made histories of processes on one host and on several. */
class CrossProcessCheckerTest {
    private static final String TABLE = "bench-cas-run1";

    private static CrossProcessChecker.Input process(String name, String clock, long pid, String kind, Hold... holds) {
        var header = new HistoryFile.Header(new ClockDomain(clock), "host-" + clock, pid, "test");
        return new CrossProcessChecker.Input(name, new HistoryFile(header,
                List.of(new HistoryFile.Run(kind, kind.equals("point") ? "cas" : "citron", TABLE, true, List.of(holds)))));
    }

    private static Hold x(int client, long lock, long token, long from, long to) {
        return new Hold(client, lock, lock + 1, Mode.EXCLUSIVE, token, from, to);
    }

    private static CrossProcessChecker.Report check(CrossProcessChecker.Input... in) {
        return CrossProcessChecker.check(List.of(in), 0);
    }

    @Test
    void anOverlapBetweenTwoProcessesOnOneHostIsFound() {
        // each process alone is clean: one client each
        var report = check(process("a.lfh", "h1", 1, "point", x(0, 5, 1, 100, 200), x(0, 5, 3, 300, 400)),
                process("b.lfh", "h1", 2, "point", x(0, 5, 2, 150, 250)));
        assertEquals(1, report.tables().size());
        assertEquals(2, report.tables().getFirst().processes());
        assertEquals(1, report.tables().getFirst().clocks());
        assertTrue(report.findings().stream().anyMatch(f -> f.violation() instanceof Violation.Overlap),
                report.findings().toString());
        String d = report.findings().stream().filter(f -> f.violation() instanceof Violation.Overlap).findFirst()
                .orElseThrow().description();
        assertTrue(d.contains("a.lfh (1@host-h1) client 0") && d.contains("b.lfh (2@host-h1) client 0"), d);
    }

    @Test
    void aReleaseAtTheInstantOfTheNextGrantIsNoOverlap() {
        var report = check(process("a.lfh", "h1", 1, "point", x(0, 5, 1, 100, 200), x(0, 5, 3, 300, 400)),
                process("b.lfh", "h1", 2, "point", x(0, 5, 2, 200, 300), new Hold(0, 6, 7, Mode.SHARED, 0, 100, 400)),
                process("c.lfh", "h1", 3, "point", new Hold(0, 6, 7, Mode.SHARED, 0, 150, 500)));
        assertTrue(report.clean(), report.findings().toString());
        assertEquals(3, report.tables().getFirst().processes());
    }

    @Test
    void sameClientNumbersInTwoProcessesAreTwoClients() {
        // client 0 in both: a merge that confused them would see one client and no conflict
        var report = check(process("a.lfh", "h1", 1, "point", x(0, 1, 1, 0, 10)),
                process("b.lfh", "h1", 2, "point", x(0, 1, 2, 5, 15)));
        assertEquals(1, report.findings().stream().filter(f -> f.violation() instanceof Violation.Overlap).count());
    }

    @Test
    void rangeHoldsOfTwoProcessesConflictWhereTheyIntersect() {
        var a = process("a.lfh", "h1", 1, "range", new Hold(0, 0, 16, Mode.EXCLUSIVE, 1, 0, 100));
        var touching = process("b.lfh", "h1", 2, "range", new Hold(0, 16, 32, Mode.EXCLUSIVE, 2, 0, 100));
        assertTrue(check(a, touching).clean());
        var crossing = process("c.lfh", "h1", 3, "range", new Hold(0, 15, 17, Mode.EXCLUSIVE, 3, 50, 60));
        assertEquals(2, check(a, touching, crossing).findings().size());
    }

    @Test
    void tokenOrderThatNoClockOffsetExplainsIsFoundAcrossHosts() {
        // host B's clock reads 1 000 000 more than A's. A holds lock 0 with tokens 1 and 3, B with 2:
        // consistent, whatever the offset, as long as B's grant fits between A's two
        var a = process("a.lfh", "A", 1, "point", x(0, 0, 1, 0, 100), x(0, 0, 3, 300, 400));
        var b = process("b.lfh", "B", 2, "point", x(0, 0, 2, 1_000_150, 1_000_250));
        var fine = check(a, b);
        assertTrue(fine.clean(), fine.findings().toString());
        assertEquals(2, fine.tables().getFirst().clocks());
        assertTrue(fine.tables().getFirst().acrossClocks());
        // on lock 1, B's token-5 grant lasts 500 ns while A's tokens 4 and 6 are 200 ns apart: it cannot
        // fit between them, whatever the offset
        var a2 = process("a.lfh", "A", 1, "point", x(0, 0, 1, 0, 100), x(0, 0, 3, 300, 400),
                x(0, 1, 4, 1000, 1100), x(0, 1, 6, 1300, 1400));
        var b2 = process("b.lfh", "B", 2, "point", x(0, 0, 2, 1_000_150, 1_000_250), x(0, 1, 5, 1_001_000, 1_001_500));
        var broken = check(a2, b2);
        assertEquals(1, broken.findings().size(), broken.findings().toString());
        assertInstanceOf(Violation.ClockOrder.class, broken.findings().getFirst().violation());
        assertTrue(broken.findings().getFirst().description().contains("no offset between the clocks"),
                broken.findings().getFirst().description());
        // the same histories on one clock: an overlap, and no clock-order finding
        var b3 = process("b.lfh", "A", 2, "point", x(0, 0, 2, 150, 250), x(0, 1, 5, 1000, 1500));
        assertTrue(check(a2, b3).findings().stream().allMatch(f -> !(f.violation() instanceof Violation.ClockOrder)));
    }

    @Test
    void aDriftAllowanceForgivesSmallDisagreements() {
        // B's grant overlaps A's next by 10 ns: over a span of 1 s, 100 ppm is 100 us, so it is forgiven
        var a = process("a.lfh", "A", 1, "point", x(0, 0, 1, 0, 100), x(0, 0, 3, 200, 1_000_000_000));
        var b = process("b.lfh", "B", 2, "point", x(0, 0, 2, 5_000, 5_110));
        assertEquals(1, CrossProcessChecker.check(List.of(a, b), 0).findings().size());
        assertTrue(CrossProcessChecker.check(List.of(a, b), 100).clean());
    }

    @Test
    void oneTokenOnTwoHostsIsFound() {
        var report = check(process("a.lfh", "A", 1, "point", x(0, 7, 9, 0, 100)),
                process("b.lfh", "B", 2, "point", x(0, 7, 9, 500, 600)));
        assertTrue(report.findings().stream().anyMatch(f -> f.description().contains("carry one fencing token")),
                report.findings().toString());
    }

    @Test
    void historiesThatDisagreeAboutATableOrRepeatAProcessAreRefused() {
        var a = process("a.lfh", "A", 1, "point", x(0, 7, 9, 0, 100));
        var e = assertThrows(IllegalArgumentException.class, () -> check(a, process("b.lfh", "A", 2, "range",
                new Hold(0, 0, 4, Mode.EXCLUSIVE, 1, 0, 1))));
        assertTrue(e.getMessage().contains("not one table"), e.getMessage());
        var twice = assertThrows(IllegalArgumentException.class, () -> check(a, process("a2.lfh", "A", 1, "point")));
        assertTrue(twice.getMessage().contains("give each once"), twice.getMessage());
    }
}
