package io.lockfabric.bench.experiment;

import io.lockfabric.bench.experiment.shiftlock.ShiftLockRetryExperiment;

import io.lockfabric.bench.MiniJson;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bands, rows and the two renderings of a result, on made-up numbers. */
@Tag("experiments")
class ExperimentReportTest {
    private static final ExperimentResult RESULT = new ExperimentResult("paper-1.1", "Paper (CONF'99) §1.1",
            "what is measured", "what ran", List.of(
                    new ExperimentRow("fast case", "goodput", 100, 110, "Kops/s", Band.relative(0.25)),
                    new ExperimentRow("fast case", "retried", 90, 80, "%", Band.absolute(5))),
            2_500_000_000L);

    @Test
    void bandsMeasureRelativeOrAbsoluteDistances() {
        Band relative = Band.relative(0.25);
        assertEquals(0.1, relative.difference(100, 110), 1e-12);
        assertTrue(relative.contains(100, 125));
        assertFalse(relative.contains(100, 125.1));
        assertTrue(relative.contains(100, 75));
        assertEquals("±25%", relative.describe("Kops/s"));
        assertEquals("+10%", relative.describeDifference(0.1, "Kops/s"));
        Band absolute = Band.absolute(5);
        assertEquals(-10, absolute.difference(90, 80), 1e-12);
        assertFalse(absolute.contains(90, 80));
        assertTrue(absolute.contains(0, 4.9));
        assertEquals("±5 pp", absolute.describe("%"));
        assertEquals("-10 pp", absolute.describeDifference(-10, "%"));
        assertEquals("±0.5 µs", Band.absolute(0.5).describe("µs"));
        assertThrows(IllegalArgumentException.class, () -> new ExperimentRow("c", "m", 0, 1, "x", relative),
                "no relative band around 0");
        assertThrows(IllegalArgumentException.class, () -> Band.relative(0));
    }

    @Test
    void tableShowsPaperAndSimulationSideBySideWithAVerdict() {
        List<String> lines = ExperimentReport.table(RESULT).lines().toList();
        assertEquals("# paper-1.1: Paper (CONF'99) §1.1", lines.get(0));
        assertTrue(lines.get(3).startsWith("case") && lines.get(3).contains("paper") && lines.get(3).contains("sim"),
                lines.get(3));
        assertTrue(lines.get(4).startsWith("fast case") && lines.get(4).contains("110.0")
                && lines.get(4).contains("+10%") && lines.get(4).endsWith("ok"), lines.get(4));
        assertTrue(lines.get(5).contains("-10 pp") && lines.get(5).endsWith("OUTSIDE"), lines.get(5));
        assertEquals("1 of 2 numbers OUTSIDE their bands (simulated in 2.5 s)", lines.get(6));
        assertEquals(7, lines.size());
    }

    @Test
    void aComputedExperimentSaysSoInsteadOfSimulated() {
        List<String> lines = ExperimentReport.table(RESULT, false).lines().toList();
        assertEquals("1 of 2 numbers OUTSIDE their bands (computed in 2.5 s)", lines.get(6));
        assertFalse(Experiments.byName("citron-fig11").simulated(), "citron-fig11 is computed from the splitter");
        assertTrue(Experiments.byName("citron-fig6").simulated());
    }

    @Test
    void jsonIsOneObjectWithTheExperimentAndItsRows() {
        String text = ExperimentReport.json(RESULT);
        assertEquals(1, text.lines().count());
        Map<String, Object> o = MiniJson.object(MiniJson.parse(text.strip()));
        assertEquals("paper-1.1", o.get("experiment"));
        assertEquals("Paper (CONF'99) §1.1", o.get("reference"));
        assertEquals(Boolean.FALSE, o.get("within_bands"));
        assertEquals(2.5, o.get("wall_seconds"));
        List<?> rows = (List<?>) o.get("rows");
        assertEquals(2, rows.size());
        Map<String, Object> first = MiniJson.object(rows.get(0));
        assertEquals("fast case", first.get("case"));
        assertEquals("goodput", first.get("metric"));
        assertEquals("Kops/s", first.get("unit"));
        assertEquals(100.0, first.get("paper"));
        assertEquals(110.0, first.get("sim"));
        assertEquals(0.1, first.get("difference"));
        assertEquals(Boolean.TRUE, first.get("within_band"));
        assertEquals(Map.of("kind", "relative", "width", 0.25), first.get("band"));
        Map<String, Object> second = MiniJson.object(rows.get(1));
        assertEquals(-10.0, second.get("difference"));
        assertEquals(Boolean.FALSE, second.get("within_band"));
    }

    @Test
    void experimentsAreFoundByNameAndAnUnknownNameListsTheKnownOnes() {
        assertEquals(ShiftLockRetryExperiment.NAME, Experiments.byName("shiftlock-2.3").name());
        assertEquals(Experiments.all().size(), Experiments.names().stream().distinct().count(), "names are unique");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Experiments.byName("nope"));
        assertEquals("unknown experiment 'nope'; known: " + String.join(", ", Experiments.names()), e.getMessage());
    }

    @Test
    void tablesOfMeasurementsComeBeforeTheComparisonsAndGoToJsonAsNumbers() {
        ExperimentTable t = new ExperimentTable.Builder("goodput, Mops/s", "protocol", "WI", "RI")
                .row("a", "1.50", "2.25").row("b", "0.75", "n/a").build();
        ExperimentResult r = new ExperimentResult("paper-1.2", "Paper (CONF'99) §1.2", "what", "ran",
                List.of(t), RESULT.rows(), "Why they differ.", 1_000_000_000L);
        String text = ExperimentReport.table(r);
        assertTrue(text.indexOf("## goodput, Mops/s") < text.indexOf("## the paper's numbers and ours"), text);
        assertTrue(text.contains("a         1.50  2.25") || text.lines().anyMatch(l -> l.matches("a\\s+1\\.50\\s+2\\.25")),
                text);
        assertTrue(text.strip().endsWith("Why they differ."), text);
        Map<String, Object> o = MiniJson.object(MiniJson.parse(ExperimentReport.json(r).strip()));
        List<?> tables = (List<?>) o.get("tables");
        Map<String, Object> first = MiniJson.object(tables.get(0));
        assertEquals("goodput, Mops/s", first.get("title"));
        assertEquals(List.of("protocol", "WI", "RI"), first.get("columns"));
        assertEquals(List.of(List.of("a", 1.5, 2.25), List.of("b", 0.75, "n/a")), first.get("rows"));
        assertEquals("Why they differ.", o.get("discussion"));
        assertThrows(IllegalArgumentException.class, () -> new ExperimentTable.Builder("t", "x", "y").row("1").build(),
                "a row must fill every column");
    }
}
