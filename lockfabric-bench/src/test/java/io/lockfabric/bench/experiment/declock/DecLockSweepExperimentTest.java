package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.Experiments;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.fabric.VerbKind;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Figure 12's read-ratio, lock-count, skew and locality panels ({@link DecLockSweepExperiment}) at reduced scale
 * (2 CNs x 8 clients, 0.3 ms + 1 ms virtual): registered with figures, DSLR+ is dslr with its backoff,
 * and the panels' key directions hold.
 */
@Tag("experiments")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DecLockSweepExperimentTest {
    private static final ExperimentSettings SETTINGS = ExperimentSettings.defaults();

    private static DecLockMicrobench small(String protocol) {
        return DecLockMicrobench.testbed(protocol, 300_000L, 1_000_000L).withClients(2, 8);
    }

    @Test
    void registeredWithFigures() {
        for (String name : List.of("declock-fig12-reads", "declock-fig12-locks", "declock-fig12-skew",
                "declock-fig12-locality")) {
            assertEquals(name, Experiments.byName(name).name());
            assertFalse(Experiments.byName(name).figures().isEmpty(), name);
        }
    }

    @Test
    void dslrPlusIsDslrWithItsBackoffAndPollsMore() {
        DecLockMicrobench plus = small(DecLockMicrobench.DSLR).withOptions(List.of(DecLockSweepExperiment.DSLR_PLUS_OPTION));
        assertEquals(List.of("dslr.waiting=backoff"), plus.runOptions());
        RunResult dslr = small(DecLockMicrobench.DSLR).withOptions(List.of("dslr.waiting=dynamic")).withLocks(100).run(SETTINGS);
        RunResult dslrPlus = plus.withLocks(100).run(SETTINGS);
        assertTrue(dslrPlus.lockOpsPerCycle().oneSided() > dslr.lockOpsPerCycle().oneSided(),
                "DSLR+ polls on a backoff of a few us, DSLR every 20 us per ticket ahead: "
                        + dslrPlus.lockOpsPerCycle().oneSided() + " vs " + dslr.lockOpsPerCycle().oneSided());
    }

    @Test
    void moreLocksMeanLessContentionAndMoreGoodputForCasLock() {
        RunResult few = small(DecLockMicrobench.CASLOCK).withLocks(1_000).run(SETTINGS);
        RunResult many = small(DecLockMicrobench.CASLOCK).withLocks(100_000).run(SETTINGS);
        assertTrue(many.goodput() > few.goodput(), many.goodput() + " vs " + few.goodput());
        assertTrue(DecLockMicrobench.retriesPerOp(many) < DecLockMicrobench.retriesPerOp(few));
    }

    @Test
    void moreReadsFavourTheReaderWriterLock() {
        RunResult writes = small(DecLockMicrobench.CASLOCK).withLocks(1_000).withReadRatio(0).run(SETTINGS);
        RunResult reads = small(DecLockMicrobench.CASLOCK).withLocks(1_000).withReadRatio(0.95).run(SETTINGS);
        assertTrue(reads.goodput() > writes.goodput(), reads.goodput() + " vs " + writes.goodput());
    }

    @Test
    void lessSkewMeansMoreGoodputForCasLock() {
        RunResult skewed = small(DecLockMicrobench.CASLOCK).withZipf(0.99).run(SETTINGS);
        RunResult uniform = small(DecLockMicrobench.CASLOCK).withZipf(0).run(SETTINGS);
        assertTrue(uniform.goodput() > skewed.goodput(), uniform.goodput() + " vs " + skewed.goodput());
    }

    @Test
    void localityKeepsDecLockGrantsOnTheComputeNode() {
        // every CN on its own locks: no CQL queue ever holds two CNs, so no grant crosses CNs (the
        // messages left are grants handed over within a CN)
        DecLockMicrobench pf = small(DecLockMicrobench.DECLOCK_PF).withLocks(1_000);
        RunResult spread = pf.run(SETTINGS);
        RunResult local = pf.withLocality(1.0).run(SETTINGS);
        double spreadSends = spread.lockOpsPerCycle().get(VerbKind.SEND);
        double localSends = local.lockOpsPerCycle().get(VerbKind.SEND);
        assertTrue(spreadSends > 0.01, "CN-to-CN grants without locality: " + spreadSends);
        assertTrue(localSends < 0.8 * spreadSends, "grant messages per op: " + localSends + " vs " + spreadSends);
        assertTrue(local.goodput() > spread.goodput(), local.goodput() + " vs " + spread.goodput());
    }

    @Test
    void localityIsValidatedAndOffByDefault() {
        PointWorkload plain = PointWorkload.builder().build();
        assertEquals(0.0, plain.locality());
        assertEquals(1, plain.localityNodes());
        assertEquals(plain, plain.toBuilder().build());
        assertThrows(IllegalArgumentException.class, () -> PointWorkload.builder().locality(1.5, 2).build());
        assertThrows(IllegalArgumentException.class, () -> PointWorkload.builder().locality(0.5, 0).build());
        assertThrows(IllegalArgumentException.class, () -> PointWorkload.builder().locks(4).locality(0.5, 8).build());
    }
}
