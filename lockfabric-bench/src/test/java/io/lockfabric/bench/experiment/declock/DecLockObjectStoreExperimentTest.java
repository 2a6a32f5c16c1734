package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Experiments;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code declock-fig17}'s object-store panel at a reduced scale: its tables, its rows, every get whole. */
@Tag("experiments")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DecLockObjectStoreExperimentTest {
    @Test
    void registered() {
        assertEquals(DecLockObjectStoreExperiment.NAME, Experiments.byName("declock-fig17").name());
    }

    @Test
    void aReducedPanelHasATableRowPerProtocolAndThePapersRatios() {
        ExperimentSettings tiny = ExperimentSettings.defaults().withWarmupNs(400_000L).withDurationNs(300_000L);
        DecLockObjectStoreExperiment e = new DecLockObjectStoreExperiment(200, new int[][]{{1, 4}, {2, 2}});
        ExperimentResult r = e.run(tiny);
        assertEquals(6, r.tables().size(), "throughput, p99, NIC per trace");
        for (ExperimentTable t : r.tables()) {
            assertEquals(List.of("protocol", "1x4", "2x2"), t.columns());
            assertEquals(4, t.cells().size(), t.title());
            assertTrue(t.title().startsWith("object store, "), t.title());
        }
        assertEquals(6, r.rows().size(), "throughput and p99 against CASLock, DSLR+ and ShiftLock");
        assertTrue(r.rows().stream().allMatch(row -> row.caseName().startsWith("objstore")));
        assertTrue(r.rows().getFirst().sim() > 0, r.rows().toString());
        assertTrue(r.discussion().contains(" 0 torn. "), r.discussion());
        assertTrue(r.tables().get(2).cells().getFirst().get(1).contains("%"), "NIC utilisation: " + r.tables().get(2));
    }
}
