package io.lockfabric.bench.experiment;

import io.lockfabric.bench.RunResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DecLock experiments ({@code declock-fig12} … {@code declock-fig16}) with tiny windows: their
 * structure (a table row per protocol that ran, a column per case), a few invariants of the numbers,
 * and that a protocol this build lacks is reported as not run rather than given a number.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DecLockExperimentsTest {
    /** 0.3 ms of warmup and 1 ms measured, virtual. */
    private static final ExperimentSettings TINY = ExperimentSettings.defaults().withWarmupNs(300_000L)
            .withDurationNs(1_000_000L);

    @Test
    void registeredUnderTheirNames() {
        for (String name : List.of("declock-fig12", "declock-fig13", "declock-fig14", "declock-fig15",
                "declock-fig16")) {
            assertEquals(name, Experiments.byName(name).name());
        }
    }

    @Test
    void runnerMeasuresReleaseAndHottestLockLatency() {
        RunResult r = DecLockMicrobench.testbed(DecLockMicrobench.SHIFTLOCK, 300_000L, 1_000_000L)
                .withClients(2, 8).run(ExperimentSettings.defaults());
        assertTrue(r.measuredOps() > 0);
        assertEquals(r.measuredOps(), r.releaseLatency().count(), "one release per measured operation");
        long hot = r.hottestLockAcquireLatency().count();
        assertTrue(hot > 0 && hot < r.measuredOps(), "lock 0 is the hottest, not the only one: " + hot);
        assertTrue(r.releaseLatency().p50Us() > 0 && r.releaseLatency().p50Us() < r.operationLatency().p50Us());
    }

    @Test
    void clientsSweepHasARowPerProtocolAndCasLockRetriesGrowWithClients() {
        ExperimentResult result = new DecLockClientsExperiment().run(TINY);
        ExperimentTable goodput = result.tables().getFirst();
        List<String> ran = DecLockMicrobench.availableOf(DecLockClientsExperiment.PROTOCOLS);
        assertEquals(ran, goodput.cells().stream().map(row -> row.getFirst()).toList());
        assertEquals(1 + DecLockClientsExperiment.POINTS.length, goodput.columns().size());
        for (List<String> row : goodput.cells()) {
            for (String cell : row.subList(1, row.size())) {
                assertTrue(Double.parseDouble(cell) > 0, () -> "every run completes operations: " + row);
            }
        }
        List<String> casRetries = result.tables().get(2).cells().stream()
                .filter(row -> row.getFirst().equals(DecLockMicrobench.CASLOCK)).findFirst().orElseThrow();
        double few = retriesOf(casRetries.get(1));
        double many = retriesOf(casRetries.getLast());
        assertTrue(many > 5 * few, "CASLock retries more with 256 clients than with 8: " + casRetries);
        assertMissingNamed(result, DecLockClientsExperiment.PROTOCOLS);
    }

    @Test
    void criticalSectionSweepCountsVerbsAndLatencyGrowsWithCs() {
        ExperimentResult result = new DecLockCriticalSectionExperiment().run(TINY);
        List<String> ran = DecLockMicrobench.availableOf(DecLockCriticalSectionExperiment.PROTOCOLS);
        ExperimentTable latency = result.tables().get(1);
        assertEquals(ran, latency.cells().stream().map(row -> row.getFirst()).toList());
        assertEquals(1 + DecLockMicrobench.CS_SWEEP.length, latency.columns().size());
        for (List<String> row : latency.cells()) {
            double p50Cs0 = Double.parseDouble(row.get(1).split(" / ")[0]);
            double p50Cs32 = Double.parseDouble(row.getLast().split(" / ")[0]);
            assertTrue(p50Cs32 > p50Cs0 + 32 * 1.0, () -> "32 remote operations take > 32 us more: " + row);
        }
        assertTrue(result.rows().stream().anyMatch(r -> r.metric().equals("ShiftLock retries per acquisition")));
        for (String d : DecLockMicrobench.availableOf(DecLockMicrobench.DECLOCKS)) {
            ExperimentRow ops = result.rows().stream()
                    .filter(r -> r.caseName().startsWith(d + ",") && r.metric().equals("MN verbs per acquisition"))
                    .findFirst().orElseThrow();
            assertTrue(ops.sim() >= 1 && ops.sim() <= 2, () -> d + ": one FAA, at most one WRITE: " + ops);
        }
        assertMissingNamed(result, DecLockCriticalSectionExperiment.PROTOCOLS);
    }

    @Test
    void policiesRunOrAreReportedMissing() {
        ExperimentResult result = new DecLockPolicyExperiment().run(TINY);
        List<DecLockPolicyExperiment.Case> runnable = DecLockPolicyExperiment.CASES.stream()
                .filter(DecLockPolicyExperiment.Case::runnable).toList();
        ExperimentTable hot = result.tables().getFirst();
        assertEquals(runnable.stream().map(DecLockPolicyExperiment.Case::label).toList(),
                hot.cells().stream().map(row -> row.getFirst()).toList());
        assertEquals(4, hot.columns().size());
        if (runnable.size() < DecLockPolicyExperiment.CASES.size()) {
            assertTrue(result.discussion().startsWith("Not run"), result.discussion());
        }
        if (runnable.stream().noneMatch(DecLockPolicyExperiment.Case::timestamp)) {
            assertTrue(result.rows().isEmpty(), "no timestamp case, no comparison");
        }
    }

    @Test
    void capacityAndResetExperimentsRunOrSayWhyNot() {
        for (Experiment e : List.of(new DecLockCapacityExperiment(), new DecLockResetExperiment())) {
            ExperimentResult result = e.run(TINY);
            String protocol = e instanceof DecLockCapacityExperiment ? DecLockCapacityExperiment.PROTOCOL
                    : DecLockResetExperiment.PROTOCOL;
            if (!DecLockMicrobench.hasOption(protocol, "capacity")) {
                assertTrue(result.rows().isEmpty() && result.tables().isEmpty(), e.name());
                assertTrue(result.discussion().startsWith("Not run: " + protocol), result.discussion());
            } else {
                assertFalse(result.tables().isEmpty(), e.name());
                for (List<String> row : result.tables().getFirst().cells()) {
                    assertEquals(result.tables().getFirst().columns().size(), row.size());
                }
            }
        }
    }

    private static void assertMissingNamed(ExperimentResult result, List<String> protocols) {
        for (String missing : DecLockMicrobench.missingOf(protocols)) {
            assertTrue(result.discussion().contains(missing), () -> missing + " not named: " + result.discussion());
        }
    }

    /** The retries of a {@code "verbs / retries"} cell. */
    private static double retriesOf(String cell) {
        return Double.parseDouble(cell.split(" / ")[1]);
    }
}
