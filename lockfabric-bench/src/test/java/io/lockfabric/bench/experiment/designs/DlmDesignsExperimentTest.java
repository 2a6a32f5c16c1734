package io.lockfabric.bench.experiment.designs;

import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
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
 * The report's Figures 1 and 3 ({@code report-fig1}, {@code report-fig3}) at a reduced scale (10 clients
 * on 100 items; CR 0.5 with 40 clients), in short windows: each runs, its figures draw from its tables,
 * and the report's ordering holds: S/R above TCP, the client-centric design above both.
 */
@Tag("experiments")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DlmDesignsExperimentTest {
    private static final ExperimentSettings SHORT = ExperimentSettings.defaults().withWarmupNs(200_000)
            .withDurationNs(1_000_000);

    private static double cell(ExperimentResult r, String table, int row, String column) {
        ExperimentTable t = r.tables().stream().filter(x -> x.title().equals(table)).findFirst().orElseThrow();
        return Double.parseDouble(t.cells().get(row).get(t.columns().indexOf(column)));
    }

    private static void drawsEveryFigure(Experiment e, ExperimentResult r) {
        assertEquals(2, e.figures().size(), e.name() + " declares both panels");
        for (Figure f : e.figures()) {
            FigureData d = FigureData.of(f, r);
            assertFalse(d.isEmpty(), f.id() + " draws something");
            assertTrue(d.numericX(), f.id() + " has a numeric x");
        }
    }

    @Test
    void registered() {
        assertTrue(Experiments.names().contains("report-fig1"));
        assertTrue(Experiments.names().contains("report-fig3"));
    }

    @Test
    void clientCentricAboveSendRecvAboveTcp() {
        DlmDesignsExperiment e = new DlmDesignsExperiment(DlmDesignsExperiment.Panel.FIG3, new int[] {10},
                new double[] {0.5});
        ExperimentResult r = e.run(SHORT);
        drawsEveryFigure(e, r);
        String a = DlmDesignsExperiment.clientsTable(DlmDesignsExperiment.Panel.FIG3);
        double tcp = cell(r, a, 0, DlmDesignsExperiment.TCP.label());
        double sr = cell(r, a, 0, DlmDesignsExperiment.SEND_RECV.label());
        double backoff = cell(r, a, 0, DlmDesignsExperiment.BACKOFF.label());
        assertTrue(tcp > 0, "TCP runs");
        assertTrue(sr > 1.5 * tcp, "S/R above TCP: " + sr + " vs " + tcp);
        assertTrue(backoff > sr, "client-centric above S/R: " + backoff + " vs " + sr);
        String b = DlmDesignsExperiment.contentionTable(DlmDesignsExperiment.Panel.FIG3);
        assertEquals(20, (int) cell(r, b, 0, "items"), "CR 0.5 with 40 clients is 20 items");
        assertTrue(cell(r, b, 0, DlmDesignsExperiment.SEND_RECV.label())
                > cell(r, b, 0, DlmDesignsExperiment.TCP.label()), "S/R above TCP at CR 0.5");
        assertEquals(2, r.rows().size(), "the report's two numbers beside ours");
        assertFalse(r.discussion().isEmpty());
    }

    @Test
    void figureOneHasTheTwoServerCentricSeriesOnly() {
        DlmDesignsExperiment e = new DlmDesignsExperiment(DlmDesignsExperiment.Panel.FIG1, new int[] {5},
                new double[] {0.975});
        ExperimentResult r = e.run(SHORT);
        drawsEveryFigure(e, r);
        ExperimentTable a = r.tables().get(0);
        assertEquals(java.util.List.of("clients", "TCP (rpc)", "S/R (rpc)"), a.columns());
        String b = DlmDesignsExperiment.contentionTable(DlmDesignsExperiment.Panel.FIG1);
        assertEquals(1, (int) cell(r, b, 0, "items"), "CR 0.975 with 40 clients is one item");
        assertTrue(cell(r, b, 0, "S/R (rpc)") > cell(r, b, 0, "TCP (rpc)"), "S/R above TCP on one item");
    }
}
