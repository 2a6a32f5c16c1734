package io.lockfabric.bench.experiment.citron;

import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.Experiments;
import io.lockfabric.bench.experiment.Figure;
import io.lockfabric.bench.report.FigureData;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code citron-fig1} at a reduced scale (1 and 32 clients, short windows): it runs, its figures draw,
 * and the paper's point holds: with one server thread the queueing grows with the clients, to
 * microseconds at 32, and 18 threads queue far less.
 */
@Tag("experiments")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CitronRpcQueueingExperimentTest {
    @Test
    void queueingGrowsWithClientsOnOneServerThread() {
        CitronRpcQueueingExperiment e = new CitronRpcQueueingExperiment(new int[] {1, 32});
        ExperimentResult r = e.run(ExperimentSettings.defaults().withWarmupNs(100_000).withDurationNs(500_000));
        assertTrue(Experiments.names().contains(CitronRpcQueueingExperiment.NAME));
        for (Figure f : e.figures()) {
            FigureData d = FigureData.of(f, r);
            assertFalse(d.isEmpty(), f.id() + " draws something");
        }
        var cells = r.tables().get(0).cells();
        double oneClient = Double.parseDouble(cells.get(0).get(1).split(" / ")[0]);
        double many = Double.parseDouble(cells.get(1).get(1).split(" / ")[0]);
        double manyP99 = Double.parseDouble(cells.get(1).get(1).split(" / ")[1]);
        double manyThreads = Double.parseDouble(cells.get(1).get(2).split(" / ")[0]);
        assertTrue(oneClient < 0.1, "one client does not queue: " + oneClient);
        assertTrue(many > 2, "32 clients queue microseconds on one thread: " + many);
        assertTrue(manyP99 >= many, "p99 at least the mean");
        assertTrue(manyThreads < many / 4, "18 threads queue far less: " + manyThreads + " vs " + many);
        assertEquals(2, r.rows().size());
    }
}
