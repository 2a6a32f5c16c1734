package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentReport;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Experiments;
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
 * ShiftLock's §4.3 scalability sweeps ({@code shiftlock-fig7}, {@code -fig8}, {@code -fig9}) at a reduced
 * scale (few clients, few points, the sweeps' own short windows): each runs, its figures draw from its
 * tables, and the sweep's direction holds.
 */
@Tag("experiments")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShiftLockScalabilityExperimentsTest {
    private static final ExperimentSettings SETTINGS = ExperimentSettings.defaults();

    private static double cell(ExperimentResult r, String table, int row, String column) {
        ExperimentTable t = r.tables().stream().filter(x -> x.title().equals(table)).findFirst().orElseThrow();
        return Double.parseDouble(t.cells().get(row).get(t.columns().indexOf(column)));
    }

    private static void drawsEveryFigure(Experiment e, ExperimentResult r) {
        assertFalse(e.figures().isEmpty(), e.name() + " declares its figures");
        for (Figure f : e.figures()) {
            FigureData d = FigureData.of(f, r);
            assertFalse(d.isEmpty(), f.id() + " draws something");
            assertTrue(d.numericX(), f.id() + " has a numeric x");
        }
    }

    @Test
    void registered() {
        for (String name : List.of(ShiftLockLockCountExperiment.NAME, ShiftLockClientCountExperiment.NAME,
                ShiftLockSkewExperiment.NAME)) {
            assertTrue(Experiments.names().contains(name), name);
        }
    }

    /** Fig. 7: more locks, less contention, more goodput, for shiftlock and the mutex alike. */
    @Test
    void moreLocksLessContention() {
        ShiftLockLockCountExperiment e = new ShiftLockLockCountExperiment(List.of("shiftlock", "mcs"),
                new long[] {1_000L, 10_000_000L}, 40, 0);
        ExperimentResult r = e.run(SETTINGS);
        String table = ShiftLockLockCountExperiment.GOODPUT_TABLE;
        for (String p : List.of("shiftlock", "mcs")) {
            assertTrue(cell(r, table, 1, p) > cell(r, table, 0, p), p + ": 10 M locks beat 1 K\n"
                    + ExperimentReport.table(r));
        }
        assertEquals(3, r.rows().size(), "1 K and 10 M leads, and the count of leads");
        assertTrue(e.figures().stream().allMatch(Figure::logX), "the lock count is a log axis");
        drawsEveryFigure(e, r);
    }

    /** Fig. 8: shiftlock's goodput grows with clients, and the knee is one of the client counts run. */
    @Test
    void moreClientsMoreGoodputUntilTheKnee() {
        int[] clients = {5, 40, 80};
        ShiftLockClientCountExperiment e = new ShiftLockClientCountExperiment(List.of("shiftlock"), clients,
                10_000_000L, 0);
        ExperimentResult r = e.run(SETTINGS);
        for (double reads : ShiftLockClientCountExperiment.READ_RATIOS) {
            String table = ShiftLockClientCountExperiment.table(reads);
            assertTrue(cell(r, table, 2, "shiftlock") > 3 * cell(r, table, 0, "shiftlock"),
                    "80 clients do far more than 5\n" + ExperimentReport.table(r));
        }
        assertEquals(4, r.rows().size(), "knee and plateau per workload");
        r.rows().stream().filter(x -> x.metric().equals(ShiftLockClientCountExperiment.KNEE_METRIC))
                .forEach(x -> assertTrue(List.of(5.0, 40.0, 80.0).contains(x.sim()), x.toString()));
        assertEquals(40, ShiftLockClientCountExperiment.knee(clients, new double[] {1, 9.5, 10}));
        assertEquals(5, ShiftLockClientCountExperiment.knee(clients, new double[] {10, 9.5, 9.8}));
        drawsEveryFigure(e, r);
    }

    /** Fig. 9: goodput falls as the skew grows, more for the mutex (which serialises readers too) under RI. */
    @Test
    void skewCostsGoodput() {
        ShiftLockSkewExperiment e = new ShiftLockSkewExperiment(List.of("shiftlock", "mcs"), new double[] {0, 0.99},
                60, 1_000_000L);
        ExperimentResult r = e.run(SETTINGS);
        for (double reads : ShiftLockSkewExperiment.READ_RATIOS) {
            String table = ShiftLockSkewExperiment.goodputTable(reads);
            for (String p : List.of("shiftlock", "mcs")) {
                assertTrue(cell(r, table, 1, p) < cell(r, table, 0, p), p + " loses goodput to skew\n"
                        + ExperimentReport.table(r));
            }
        }
        String ri = ShiftLockSkewExperiment.goodputTable(0.95);
        assertTrue(cell(r, ri, 1, "shiftlock") / cell(r, ri, 0, "shiftlock")
                > cell(r, ri, 1, "mcs") / cell(r, ri, 0, "mcs"), "under RI shiftlock keeps more than mcs\n"
                + ExperimentReport.table(r));
        assertTrue(r.rows().isEmpty(), "the paper's text gives no numbers for Fig. 9");
        assertFalse(r.discussion().isEmpty());
        drawsEveryFigure(e, r);
    }
}
