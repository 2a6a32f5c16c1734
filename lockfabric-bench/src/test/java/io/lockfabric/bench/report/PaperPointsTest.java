package io.lockfabric.bench.report;

import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Experiments;
import io.lockfabric.bench.experiment.Figure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The paper's single stated numbers ({@link Figure.PaperSeries#points}, {@link Figure.PaperSeries#point}) are
 * read from the rows (or the figure), drawn as markers alone with the legend "paper: ...", and show in the
 * PNG's plot area; the report's Figure 1 puts the report's two numbers on its clients plot.
 */
class PaperPointsTest {
    private static final String TABLE = "goodput vs clients";
    /** Our first series' colour (the plotter's palette starts with it). */
    private static final Color OURS = new Color(0x1f77b4);
    /** The next palette colour, taken by a paper series with a name of its own. */
    private static final Color PAPER = new Color(0xd62728);

    @TempDir
    Path dir;

    @Test
    void rowsGiveMarkersAloneWithTheirLegend() {
        FigureData d = FigureData.of(figure(true), result());
        FigureData.Series points = d.series().stream().filter(FigureData.Series::points).findFirst().orElseThrow();
        assertTrue(points.paper());
        assertEquals(List.of("16"), points.x());
        assertEquals(List.of(1.4), points.y());
        assertEquals("paper: stated", FigurePlotter.legend(points));

        XYChart chart = assertInstanceOf(XYChart.class, FigurePlotter.chart(d));
        XYSeries drawn = chart.getSeriesMap().get("paper: stated");
        assertEquals(XYSeries.XYSeriesRenderStyle.Scatter, drawn.getXYSeriesRenderStyle());
        assertEquals(FigurePlotter.PaperPointMarker.INSTANCE, drawn.getMarker());
        // ours keeps the chart's default, a line
        assertNotEquals(XYSeries.XYSeriesRenderStyle.Scatter,
                chart.getSeriesMap().get("ours").getXYSeriesRenderStyle());
    }

    @Test
    void thePointIsDrawnInThePlotArea() throws IOException {
        Path with = dir.resolve("with.png");
        Path without = dir.resolve("without.png");
        assertTrue(FigurePlotter.write(figure(true), result(), with));
        assertTrue(FigurePlotter.write(figure(false), result(), without));
        assertEquals(0, plotPixels(without, PAPER), "no paper colour without the point");
        assertTrue(plotPixels(without, OURS) > 0, "our line is drawn");
        assertTrue(plotPixels(with, PAPER) > 20, "the star of the paper's point is in the plot area");
    }

    @Test
    void aStatedPointOnACategoryChartIsAScatterSeries() {
        ExperimentTable t = new ExperimentTable.Builder("by protocol", "protocol", "goodput")
                .row("cas", "1.0").row("shiftlock", "2.0").build();
        ExperimentResult r = new ExperimentResult("x", "Paper §1", "d", "s", List.of(t), List.of(), "", 1L);
        Figure f = Figure.of("g", "t", "by protocol").xInRows("protocol").y("Mops/s")
                .paper(Figure.PaperSeries.points("goodput", List.of("shiftlock"), List.of(2.5))).build();
        CategoryChart chart = assertInstanceOf(CategoryChart.class, FigurePlotter.chart(FigureData.of(f, r)));
        CategorySeries s = chart.getSeriesMap().get("paper: goodput");
        assertEquals(CategorySeries.CategorySeriesRenderStyle.Scatter, s.getChartCategorySeriesRenderStyle());
        assertEquals(FigurePlotter.PaperPointMarker.INSTANCE, s.getMarker());
    }

    @Test
    void pointsNeedMatchingLabelsAndValues() {
        assertThrows(IllegalArgumentException.class,
                () -> Figure.PaperSeries.points("p", List.of("1", "2"), List.of(1.0)));
    }

    @Test
    void theReportsFigure1CarriesItsTwoStatedNumbers() {
        Figure clients = Experiments.byName("report-fig1").figures().getFirst();
        ExperimentTable t = new ExperimentTable.Builder(clients.table(), "clients", "TCP (rpc)", "S/R (rpc)")
                .row("20", "0.6", "3.5").row("40", "1.2", "6.7").build();
        ExperimentResult r = new ExperimentResult("report-fig1", "report", "d", "s", List.of(t),
                List.of(new ExperimentRow("100 items, 40 clients", "S/R throughput", 1.4, 6.7, "Mlocks/s",
                                Band.relative(0.5)),
                        new ExperimentRow("100 items, 40 clients", "TCP throughput", 0.04088, 1.2, "Mlocks/s",
                                Band.relative(0.5))), "", 1L);
        List<FigureData.Series> points = FigureData.of(clients, r).series().stream()
                .filter(FigureData.Series::points).toList();
        assertEquals(List.of("S/R (rpc)", "TCP (rpc)"), points.stream().map(FigureData.Series::name).toList());
        assertEquals(List.of(1.4), points.getFirst().y());
        assertEquals(List.of("40"), points.get(1).x());
    }

    private static Figure figure(boolean withPoint) {
        Figure.Builder b = Figure.of("g", "Fig. 1", TABLE).xInRows("clients").y("Mops/s").series("ours");
        if (withPoint) {
            b.paper(Figure.PaperSeries.points("stated", "goodput", "(\\d+) clients"));
        }
        return b.build();
    }

    private static ExperimentResult result() {
        ExperimentTable sweep = new ExperimentTable.Builder(TABLE, "clients", "ours")
                .row("8", "1.0").row("16", "2.0").row("32", "3.0").build();
        return new ExperimentResult("x", "Paper §1", "d", "s", List.of(sweep),
                List.of(new ExperimentRow("16 clients", "goodput", 1.4, 2.0, "Mops/s", Band.relative(0.25))), "",
                1L);
    }

    /** Pixels of exactly {@code colour} left of the legend (the plot area and its axes). */
    private static int plotPixels(Path png, Color colour) throws IOException {
        BufferedImage image = ImageIO.read(png.toFile());
        int rgb = colour.getRGB() & 0xffffff;
        int n = 0;
        for (int x = 0; x < image.getWidth() * 3 / 4; x++) {
            for (int y = 0; y < image.getHeight(); y++) {
                if ((image.getRGB(x, y) & 0xffffff) == rgb) {
                    n++;
                }
            }
        }
        return n;
    }
}
