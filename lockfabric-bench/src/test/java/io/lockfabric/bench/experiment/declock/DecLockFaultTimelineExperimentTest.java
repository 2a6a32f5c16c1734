package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.Experiments;
import io.lockfabric.bench.report.FigureData;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code declock-fig16-timeline} ({@link DecLockFaultTimelineExperiment}) at reduced scale (4 CNs x 1
 * or x 6 clients, 2 000 locks, 16 ms virtual): registered with its figure, and the key direction
 * holds: goodput drops after the CN crash under low contention and stays well above zero for the
 * surviving nodes; it drops to about zero while the memory node is down and comes back after the
 * reset; both runs are checked clean.
 */
@Tag("experiments")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DecLockFaultTimelineExperimentTest {
    private static final DecLockFaultTimelineExperiment.Scenario SMALL = new DecLockFaultTimelineExperiment.Scenario(
            4, 1, 6, 1_000, 1_000_000L, 15_000_000L, 1_000_000L, 5_000_000L, 9_000_000L, 2_000_000L, "1ms", "2ms",
            1_000_000L);

    @Test
    void registeredWithAFigure() {
        assertEquals(DecLockFaultTimelineExperiment.NAME, Experiments.byName("declock-fig16-timeline").name());
        assertEquals(1, Experiments.byName("declock-fig16-timeline").figures().size());
    }

    @Test
    void goodputDropsAfterTheCnCrashToZeroWhileTheMnIsDownAndComesBack() {
        ExperimentResult r = new DecLockFaultTimelineExperiment(SMALL).run(ExperimentSettings.defaults());
        assertEquals(16, r.tables().getFirst().cells().size(), "one row per 1 ms bin");
        assertEquals(4, r.rows().size());
        List<List<String>> levels = r.tables().get(1).cells();
        assertEquals(2, levels.size(), "low and high contention");
        for (List<String> v : levels) {
            String what = String.join(" | ", r.tables().get(1).columns()) + "\n" + String.join(" | ", v);
            double pre = Double.parseDouble(v.get(1));
            double afterCn = Double.parseDouble(v.get(2));
            double outage = Double.parseDouble(v.get(3));
            double afterMn = Double.parseDouble(v.get(4));
            assertEquals("ok", v.get(7), "checked clean across both faults: " + what);
            assertTrue(pre > 0 && afterCn > 0.4 * pre, "the surviving nodes go on: " + what);
            if (v.getFirst().equals("low")) {
                assertTrue(afterCn < 0.9 * pre, "one client in four is gone: " + what);
            }
            assertTrue(outage < 0.05 * afterCn, "nothing while the memory node is down: " + what);
            assertTrue(!v.get(5).equals("never") && afterMn > 0.6 * afterCn, "back after the reset: " + what);
        }
        assertTrue(r.discussion().contains("memory node fails"), r.discussion());
        FigureData plot = FigureData.of(new DecLockFaultTimelineExperiment(SMALL).figures().getFirst(), r);
        assertTrue(plot.numericX(), "x is time");
        assertEquals(List.of("low Mops/s", "high Mops/s", "low", "high"),
                plot.series().stream().map(FigureData.Series::name).toList());
        assertEquals(16, plot.series().getFirst().y().size());
        assertTrue(plot.series().get(2).paper() && plot.series().get(2).y().size() < 16,
                "the paper's levels only where its text gives them");
    }
}
