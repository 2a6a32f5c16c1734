package io.lockfabric.bench.report;

import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Experiments;
import io.lockfabric.bench.experiment.Figure;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reproduction report: two real experiments at tiny windows give their plots (decodable PNGs of the
 * report's size) and a page with their tables, comparisons and discussion; a failing experiment is
 * reported in the page and the summary and the next one still runs.
 */
@Tag("experiments")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReproductionReportTest {
    /** 0.3 ms of warmup and 1 ms measured, virtual. */
    private static final ExperimentSettings TINY = ExperimentSettings.defaults().withWarmupNs(300_000L)
            .withDurationNs(1_000_000L);

    @TempDir
    Path dir;

    @Test
    void twoExperimentsGiveTheirPlotsAndThePage() throws IOException {
        List<Experiment> two = List.of(Experiments.byName("shiftlock-2.3"), Experiments.byName("citron-fig10"));
        StringWriter progress = new StringWriter();
        ReproductionReport.Summary s = ReproductionReport.run(two, TINY, dir, new PrintWriter(progress, true),
                System::nanoTime);

        assertEquals(2, s.entries().size());
        assertEquals(0, s.failed());
        for (ReproductionReport.Entry e : s.entries()) {
            assertTrue(e.plotErrors().isEmpty(), e.name() + ": " + e.plotErrors());
            assertTrue(e.plots().size() >= 2, e.name() + " drew " + e.plots() + ": the paper's figure and the bands");
            assertTrue(e.plots().contains(e.name() + "-bands.png"));
            for (String plot : e.plots()) {
                assertPng(dir.resolve(plot));
            }
            assertTrue(Files.isRegularFile(dir.resolve(e.name() + ".json")));
        }
        String page = Files.readString(dir.resolve(ReproductionReport.PAGE));
        for (ReproductionReport.Entry e : s.entries()) {
            ExperimentResult r = e.result();
            assertTrue(page.contains("## " + e.name() + ": " + r.reference()), "section of " + e.name());
            assertTrue(page.contains("| [" + e.name() + "](#"), "summary row of " + e.name());
            for (String plot : e.plots()) {
                assertTrue(page.contains("![" + plot + "](" + plot + ")"), plot + " on the page");
            }
            for (ExperimentTable t : r.tables()) {
                assertTrue(page.contains("**" + t.title() + "**"), "table " + t.title());
            }
            String firstLine = r.discussion().strip().lines().findFirst().orElse("");
            assertTrue(page.contains(firstLine), "discussion of " + e.name());
            assertTrue(page.contains("| " + e.inBand() + " | " + e.outOfBand() + " | "), "counts of " + e.name());
        }
        String lines = progress.toString();
        assertTrue(lines.contains("[1/2] shiftlock-2.3: running") && lines.contains("[2/2] citron-fig10: running"),
                lines);
    }

    @Test
    void aFailingExperimentIsReportedAndTheOthersStillWritten() throws IOException {
        Experiment broken = new Fixed("broken-exp", null);
        Experiment fine = new Fixed("fine-exp", result("fine-exp"));
        AtomicLong clock = new AtomicLong();
        ReproductionReport.Summary s = ReproductionReport.run(List.of(broken, fine), ExperimentSettings.defaults(), dir,
                new PrintWriter(new StringWriter()), () -> clock.addAndGet(1_000_000_000L));

        assertEquals(1, s.failed());
        assertFalse(s.allWithinBands());
        ReproductionReport.Entry failed = s.entries().getFirst();
        assertTrue(failed.failed());
        assertEquals("IllegalStateException: the simulated cluster fell over", failed.failure());
        ReproductionReport.Entry ok = s.entries().get(1);
        assertFalse(ok.failed());
        assertTrue(ok.plotErrors().isEmpty(), ok.plotErrors().toString());
        assertEquals(List.of("fine-exp-goodput.png", "fine-exp-latency.png", "fine-exp-bands.png"), ok.plots());
        ok.plots().forEach(p -> assertPng(dir.resolve(p)));
        assertEquals(2, ok.inBand());
        assertEquals(1, ok.outOfBand());

        String page = Files.readString(dir.resolve(ReproductionReport.PAGE));
        assertTrue(page.contains("FAILED: IllegalStateException: the simulated cluster fell over"), page);
        assertTrue(page.contains("**FAILED**"), page);
        assertTrue(page.contains("| [fine-exp](#fine-exp) | Paper §1 | 2 | 1 |"), page);
        assertTrue(page.contains("| **total** (2 experiments) | | **2** | **1** |"), page);
        assertTrue(page.contains("1 FAILED"), page);
    }

    @Test
    void everyRegisteredExperimentHasFigures() {
        for (Experiment e : Experiments.all()) {
            assertFalse(e.figures().isEmpty() && FigureCatalog.forExperiment(e.name()).isEmpty(),
                    e.name() + " declares no figure and the catalogue has none");
        }
    }

    @Test
    void figureDataReadsPartsOfCellsAndBothLayouts() {
        ExperimentResult r = result("x");
        Figure byColumns = Figure.of("p99", "t", "latency").xInColumns("workload").y("us").part(1).build();
        FigureData d = FigureData.of(byColumns, r);
        assertFalse(d.numericX());
        assertEquals(List.of("WO", "WI"), d.series().getFirst().x());
        FigureData rows = FigureData.of(Figure.of("g", "t", "goodput").xInRows("clients").build(), r);
        assertTrue(rows.numericX());
        assertEquals(List.of(3.0, 2.0), rows.series().getFirst().y());
        assertEquals(240.0, FigureData.number("12.1 / 240", 1).orElseThrow());
        assertEquals(2048.0, FigureData.x("2,048 clients").orElseThrow());
        assertTrue(FigureData.number("-", 0).isEmpty());
        assertEquals(10.0, FigureData.x("10-12").orElseThrow());
        assertTrue(FigureData.x("1x8").isEmpty() && FigureData.x("inf").isEmpty() && FigureData.x("2^10").isEmpty());
    }

    private static void assertPng(Path file) {
        try {
            BufferedImage image = ImageIO.read(file.toFile());
            assertNotNull(image, file + " is not an image ImageIO reads");
            assertEquals(FigurePlotter.WIDTH, image.getWidth(), file + " width");
            assertEquals(FigurePlotter.HEIGHT, image.getHeight(), file + " height");
        } catch (IOException e) {
            throw new AssertionError(file + ": " + e, e);
        }
    }

    /** A result with a clients sweep (numeric x) and a workload table of "p50 / p99" cells. */
    private static ExperimentResult result(String name) {
        ExperimentTable sweep = new ExperimentTable.Builder("goodput vs clients", "clients", "ours", "paper")
                .row("8", "3", "2.5").row("16", "2", "2.2").row("32", "-", "1.9").build();
        ExperimentTable latency = new ExperimentTable.Builder("latency p50 / p99, us", "protocol", "WO", "WI")
                .row("cas", "1.5 / 10", "2 / 20").row("shiftlock", "1.2 / 4", "1.8 / 6").build();
        return new ExperimentResult(name, "Paper §1", "what it measures", "setup", List.of(sweep, latency),
                List.of(new ExperimentRow("8 clients", "goodput", 2.5, 3, "Mops/s", Band.relative(0.25)),
                        new ExperimentRow("16 clients", "goodput", 2.2, 2, "Mops/s", Band.relative(0.25)),
                        new ExperimentRow("all", "p99", 4, 40, "us", Band.absolute(2))),
                "It agrees where it should.\n# not a heading", 5_000_000L);
    }

    /** An experiment that returns a fixed result, or throws if it has none. */
    private record Fixed(String name, ExperimentResult result) implements Experiment {
        @Override
        public String reference() {
            return "Paper §1";
        }

        @Override
        public String description() {
            return "fixed";
        }

        @Override
        public List<Figure> figures() {
            return List.of(Figure.of("goodput", "Fig. 1: goodput", "goodput vs clients").xInRows("clients")
                            .y("Mops/s").series("ours").logX()
                            .paper(Figure.PaperSeries.fromTable("ours", "paper", 0)).build(),
                    Figure.of("latency", "Fig. 2: p99", "latency").xInColumns("workload").y("p99, us").part(1).logY()
                            .paper(Figure.PaperSeries.fromRows("cas", "p99", "(all)")).build());
        }

        @Override
        public ExperimentResult run(ExperimentSettings settings) {
            if (result == null) {
                throw new IllegalStateException("the simulated cluster fell over\nsecond line");
            }
            return result;
        }
    }
}
