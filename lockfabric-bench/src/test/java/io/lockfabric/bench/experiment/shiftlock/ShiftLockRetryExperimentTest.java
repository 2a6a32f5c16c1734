package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.experiment.ExperimentReport;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The calibration scenario of the simulator's defaults, {@code shiftlock-2.3}, run once with its
 * own windows and seed. Virtual-time figures are deterministic, so the bands are asserted exactly.
 */
@Tag("experiments")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ShiftLockRetryExperimentTest {
    private static final String IDEAL = "ideal (no retries)";
    private static final String CAS_NB = "cas-nb (retry at once)";
    private static final String CAS = "cas (SMART backoff)";
    private static ExperimentResult result;

    @BeforeAll
    static void run() {
        result = new ShiftLockRetryExperiment().run(ExperimentSettings.defaults());
    }

    private static ExperimentRow row(String caseName, String unit) {
        return result.rows().stream().filter(r -> r.caseName().equals(caseName) && r.unit().equals(unit))
                .findFirst().orElseThrow();
    }

    @Test
    void idealAndRetryAtOnceStayWithinTheirBands() {
        for (String c : List.of(IDEAL, CAS_NB)) {
            for (String unit : List.of("Kops/s", "%")) {
                ExperimentRow r = row(c, unit);
                assertTrue(r.withinBand(), () -> r + " is outside " + r.band().describe(r.unit()) + ":\n"
                        + ExperimentReport.table(result));
            }
        }
    }

    /**
     * With backoff the simulator's 10 s run is faster than the testbed's: its steady state after the
     * backoff has adapted is faster than the testbed's (see {@link io.lockfabric.sim.SimConfig}).
     * This pins that known gap: if a model change brings the {@code cas} goodput into its band, make
     * this assert that instead.
     */
    @Test
    void onlyTheBackoffCaseGoodputIsOutsideItsBand() {
        List<String> outside = result.outsideBands().stream().map(r -> r.caseName() + " " + r.unit()).toList();
        assertEquals(List.of(CAS + " Kops/s"), outside, ExperimentReport.table(result));
    }

    @Test
    void retriesCollapseGoodputAndBackoffRecoversMostOfIt() {
        // The oracle never retries (a failed CAS throws). The share counts the window's MCAS against its
        // release CAS: on ShiftLock's testbed the 100 Gb/s link shifts when a verb is counted by a few ns, and
        // one acquisition whose release falls after the window's end shows as 1 excess MCAS in ~29 400.
        assertEquals(0.0, row(IDEAL, "%").sim(), 0.01, "the oracle never retries");
        assertTrue(row(CAS_NB, "%").sim() > 99, "almost every CAS of cas-nb is a retry");
        assertTrue(row(CAS_NB, "Kops/s").sim() < row(IDEAL, "Kops/s").sim() / 10, "retries collapse goodput");
        assertTrue(row(CAS, "Kops/s").sim() > 9 * row(CAS_NB, "Kops/s").sim(), "backoff recovers (paper: 9.1x)");
        double casShare = row(CAS, "%").sim();
        assertTrue(casShare > 50 && casShare < row(CAS_NB, "%").sim(), "most CAS are still retries: " + casShare);
    }

    /** The artifact's adaptation cadence: a storm first, then a steady state an order of magnitude faster. */
    @Test
    void backoffStormsUntilTheCapsHaveClimbed() {
        ExperimentTable profile = result.tables().getFirst();
        List<Double> goodput = profile.cells().stream().map(row -> Double.parseDouble(row.get(2))).toList();
        assertEquals(10, goodput.size());
        assertTrue(goodput.getFirst() < 2 * row(CAS_NB, "Kops/s").sim(), "the first second storms: " + goodput);
        assertTrue(goodput.getLast() > 10 * goodput.getFirst(), "the last second is steady: " + goodput);
        double mean = goodput.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        assertEquals(row(CAS, "Kops/s").sim(), mean, 0.1, "the row is the whole run's average");
        List<Double> runAverage = profile.cells().stream().map(row -> Double.parseDouble(row.get(4))).toList();
        assertEquals(goodput.getFirst(), runAverage.getFirst(), 0.05, "a run of one bin averages that bin");
        assertEquals(mean, runAverage.getLast(), 0.1, "a run of all bins is the row");
        for (int i = 1; i < runAverage.size(); i++) {
            assertTrue(runAverage.get(i) >= runAverage.get(i - 1) - 0.05, "storm first, so longer runs average more: "
                    + runAverage);
        }
    }

    @Test
    void sameSeedSameNumbers() {
        ExperimentSettings quick = ExperimentSettings.defaults().withWarmupNs(1_000_000).withDurationNs(3_000_000);
        ShiftLockRetryExperiment e = new ShiftLockRetryExperiment();
        List<Double> first = e.run(quick).rows().stream().map(ExperimentRow::sim).toList();
        List<Double> second = e.run(quick).rows().stream().map(ExperimentRow::sim).toList();
        assertEquals(first, second);
    }
}
