package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.Experiments;
import io.lockfabric.lock.declock.DecLockCounters;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code declock-fig15-refetch} ({@link DecLockRefetchExperiment}) at reduced scale (2 CNs x 8 clients,
 * 100 locks, 0.3 ms + 1 ms virtual): registered with figures, refetches are counted over the measured
 * window, and the key direction holds: refetching is rare (well under the paper's 0.018 + band per
 * release) and no more frequent with long critical sections than with short ones.
 */
@Tag("experiments")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DecLockRefetchExperimentTest {
    private static final ExperimentSettings SETTINGS = ExperimentSettings.defaults();

    private static RunResult run(int cs) {
        return DecLockMicrobench.testbed(DecLockRefetchExperiment.PROTOCOL, 300_000L, 1_000_000L).withClients(2, 8)
                .withLocks(100).withReadRatio(0.5).withCs(cs).run(SETTINGS);
    }

    @Test
    void registeredWithFigures() {
        assertEquals(DecLockRefetchExperiment.NAME, Experiments.byName("declock-fig15-refetch").name());
        assertFalse(Experiments.byName("declock-fig15-refetch").figures().isEmpty());
    }

    @Test
    void refetchingIsRareAndFallsWithLongerCriticalSections() {
        RunResult shortCs = run(0);
        RunResult longCs = run(16);
        double atShort = DecLockRefetchExperiment.refetchesPerRelease(shortCs);
        double atLong = DecLockRefetchExperiment.refetchesPerRelease(longCs);
        assertTrue(shortCs.measuredOps() > 1000, "ran: " + shortCs.measuredOps());
        assertTrue(DecLockCounters.of(shortCs.stats()).cqlAcquisitions() > 0, "the counters come through");
        assertTrue(atShort < 0.05, "refetches per release at cs 0: " + atShort);
        assertTrue(atLong <= atShort, "cs 16 " + atLong + " vs cs 0 " + atShort);
    }
}
