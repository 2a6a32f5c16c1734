package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Experiments;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Sherman panel of DecLock's Figure 17 at a reduced scale: every case runs and is compared. */
@Tag("experiments")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DecLockShermanExperimentTest {
    @Test
    void aReducedScaleRunsEveryWorkloadLockAndNodeCountAndComparesWithThePaper() {
        assertTrue(Experiments.names().contains(DecLockObjectStoreExperiment.NAME));
        assertTrue(Experiments.byName(DecLockObjectStoreExperiment.NAME).reference().contains("Sherman"),
                "declock-fig17 runs the Sherman panel after the object store's");
        ExperimentResult r = new DecLockShermanExperiment(new int[]{1, 2}, 4, 2_000).run(ExperimentSettings.defaults()
                .withWarmupNs(200_000L).withDurationNs(300_000L));
        ExperimentTable goodput = r.tables().getFirst();
        assertEquals(3, goodput.columns().size(), "the label and two CN counts");
        assertEquals(9, goodput.cells().size(), "three workloads x three locks");
        for (var row : goodput.cells()) {
            for (String cell : row.subList(1, row.size())) {
                assertTrue(Double.parseDouble(cell) > 0, row.toString());
            }
        }
        assertEquals(5, r.rows().size());
        assertEquals(2.31, r.rows().getFirst().paper());
        assertEquals(27.71, r.rows().get(1).paper());
        assertTrue(r.rows().getFirst().sim() > 0, r.rows().toString());
        assertTrue(r.discussion().contains("update-only sherman-nh peaks at"), r.discussion());
    }
}
