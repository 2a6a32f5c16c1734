package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.experiment.ExperimentReport;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.Experiments;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code shiftlock-fig10} in short windows with two protocols: both tables, the ratio rows, the
 * discussion, and a run that is a function of its seed. The full run's numbers are in the README.
 */
@Tag("experiments")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShiftLockTransactionsExperimentTest {
    @Test
    void shortRunsOfTwoProtocolsGiveBothTablesAndTheRatios() {
        ExperimentSettings s = ExperimentSettings.defaults().withWarmupNs(100_000).withDurationNs(200_000)
                .withProtocols(List.of("shiftlock", "rmarw"));
        ExperimentResult r = new ShiftLockTransactionsExperiment().run(s);
        String text = ExperimentReport.table(r);
        assertEquals(2, r.tables().size(), text);
        assertEquals(2, r.tables().get(0).cells().size(), "a row per protocol:\n" + text);
        assertTrue(text.contains("GSD p50") && text.contains("NEW p99"), text);
        assertEquals(4, r.rows().size(), "best and worst ratio of each workload (rmarw against cas, dslr, mcs: none ran):\n" + text);
        assertTrue(r.tables().get(1).cells().stream().allMatch(row -> Double.parseDouble(row.get(1)) > 0),
                "every protocol committed TPC-C transactions:\n" + text);
        assertTrue(!r.discussion().isBlank(), text);
        assertSame(Experiments.byName(ShiftLockTransactionsExperiment.NAME).getClass(),
                ShiftLockTransactionsExperiment.class);
    }
}
