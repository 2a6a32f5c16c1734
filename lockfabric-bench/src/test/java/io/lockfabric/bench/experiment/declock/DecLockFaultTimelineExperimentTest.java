package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.Experiments;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
            4, 1, 6, 2_000, 1_000_000L, 15_000_000L, 1_000_000L, 5_000_000L, 9_000_000L, 2_000_000L, "1ms", "2ms",
            1_000_000L);

    @Test
    void registeredWithAFigure() {
        assertEquals(DecLockFaultTimelineExperiment.NAME, Experiments.byName("declock-fig16-timeline").name());
        assertEquals(1, Experiments.byName("declock-fig16-timeline").figures().size());
    }

    @Test
    void goodputDropsAfterTheCnCrashToZeroWhileTheMnIsDownAndComesBack() {
        DecLockFaultTimelineExperiment e = new DecLockFaultTimelineExperiment(SMALL);
        ExperimentSettings settings = ExperimentSettings.defaults();
        for (int perCn : new int[]{1, 6}) {
            DecLockFaultTimelineExperiment.Levels v = e.levels(e.timeline(settings, "x" + perCn, perCn));
            String what = perCn + " per CN: " + v;
            assertTrue(v.result().correct(), what + " " + v.result().violations());
            assertTrue(v.pre() > 0 && v.afterCn() > 0.4 * v.pre(), "the surviving nodes go on: " + what);
            if (perCn == 1) {
                assertTrue(v.afterCn() < 0.9 * v.pre(), "one client in four is gone: " + what);
            }
            assertTrue(v.outage() < 0.05 * v.afterCn(), "nothing while the memory node is down: " + what);
            assertTrue(v.recoveryNs() >= 0 && v.afterMn() > 0.6 * v.afterCn(), "back after the reset: " + what);
        }
    }

    @Test
    void theExperimentReportsTheTimelineAndThePapersRows() {
        ExperimentResult r = new DecLockFaultTimelineExperiment(SMALL).run(ExperimentSettings.defaults());
        assertEquals(16, r.tables().getFirst().cells().size(), "one row per 1 ms bin");
        assertEquals(4, r.rows().size());
        assertTrue(r.discussion().contains("memory node fails"), r.discussion());
    }
}
