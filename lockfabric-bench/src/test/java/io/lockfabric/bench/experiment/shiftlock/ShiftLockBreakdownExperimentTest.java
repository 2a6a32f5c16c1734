package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.experiment.ExperimentReport;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Figure;
import io.lockfabric.bench.report.FigureData;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code shiftlock-table3} with its Table 4 part, in short windows: Table 3's tables come first as
 * before, every baseline reports its own breakdown, and retries slow the spinning lock's atomic
 * down (the paper's point); and {@code shiftlock-fig12}'s eleven thresholds.
 */
@Tag("experiments")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ShiftLockBreakdownExperimentTest {
    private static final ExperimentSettings SHORT = ExperimentSettings.defaults().withWarmupNs(300_000L)
            .withDurationNs(600_000L);

    private static ExperimentTable table(ExperimentResult r, String title) {
        return r.tables().stream().filter(x -> x.title().equals(title)).findFirst().orElseThrow(() ->
                new AssertionError("no table " + title + "\n" + ExperimentReport.table(r)));
    }

    private static double cell(ExperimentTable t, String lock, String column) {
        List<String> row = t.cells().stream().filter(c -> c.getFirst().equals(lock)).findFirst().orElseThrow();
        return Double.parseDouble(row.get(t.columns().indexOf(column)));
    }

    @Test
    void table4TimesEveryBaseline() {
        var e = new ShiftLockBreakdownExperiment(new int[]{5, 40}, 100_000L, ShiftLockBreakdownExperiment.TABLE4_WI,
                ShiftLockBreakdownExperiment.TABLE4_RI);
        ExperimentResult r = e.run(SHORT);
        String report = ExperimentReport.table(r);
        assertEquals("Zipf WI: paper / sim, us per operation", r.tables().get(0).title(), "Table 3 first");
        assertEquals("Zipf RI: paper / sim, us per operation", r.tables().get(1).title());
        assertTrue(r.rows().getFirst().caseName().startsWith("WI 5 clients"), "Table 3's rows first\n" + report);
        assertEquals(List.of("5", "40"), r.tables().getFirst().cells().stream().map(List::getFirst).toList());
        java.util.Set<String> timed = new java.util.TreeSet<>();
        for (String w : List.of("WI", "RI")) {
            ExperimentTable all = table(r, ShiftLockBreakdownExperiment.table4All(w));
            List<String> locks = w.equals("WI") ? ShiftLockBreakdownExperiment.TABLE4_WI
                    : ShiftLockBreakdownExperiment.TABLE4_RI;
            assertEquals(locks.size() + 1, all.cells().size(), "shiftlock and every baseline\n" + report);
            for (List<String> row : all.cells()) {
                if (cell(all, row.getFirst(), "Acq (W) IA") > 0 && cell(all, row.getFirst(), "Rel IA") > 0) {
                    timed.add(row.getFirst());
                }
            }
            table(r, ShiftLockBreakdownExperiment.table4(w));
        }
        // drtm's writers may finish nothing in so short a window under WI (they wait out read leases)
        assertEquals(new java.util.TreeSet<>(ShiftLockBreakdownExperiment.TABLE4_WI).size() + 1, timed.size(),
                "every protocol timed its initial atomic and release in one workload at least: " + timed + "\n" + report);
        ExperimentTable wi = table(r, ShiftLockBreakdownExperiment.table4All("WI"));
        assertTrue(cell(wi, "cas-nb", "Acq (W) IA") > 1.3 * cell(wi, "shiftlock", "Acq (W) IA"),
                "cas-nb's retries queue its CAS behind one another on the hot lock\n" + report);
        assertTrue(cell(wi, "cas-nb", "Acq (W) RT") > 0 && cell(wi, "mcs", "Acq (W) NP+WP+WR") > 0, report);
        assertTrue(r.rows().stream().anyMatch(x -> x.caseName().equals("Table 4 WI dslr")), report);
        assertFalse(r.discussion().isBlank());
        for (Figure f : e.figures()) {
            assertFalse(FigureData.of(f, r).isEmpty(), f.id() + " draws something");
        }
    }

    /** Fig. 12's x values, the paper's (a run at 240 clients takes minutes here: reproduce shiftlock-fig12). */
    @Test
    void fig12HasTheMissingThresholds() {
        assertEquals(List.of("1", "2", "4", "8", "12", "16", "20", "24", "28", "32", "inf"),
                ShiftLockThresholdExperiment.THRESHOLDS);
        assertEquals(2, new ShiftLockThresholdExperiment().figures().size(), "goodput and latency by N");
    }
}
