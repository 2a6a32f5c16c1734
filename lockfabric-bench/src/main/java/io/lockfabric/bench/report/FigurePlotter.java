package io.lockfabric.bench.report;

import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.Figure;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.Stroke;
import java.awt.geom.Path2D;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Draws {@link Figure}s as PNG files with XChart, headless (it sets {@code java.awt.headless} unless the
 * JVM was told otherwise). A numeric x gives a line chart, a categorical x a bar chart. Our series are
 * solid lines (bars), the paper's dashed lines with diamond markers (markers alone on bars), a paper
 * series in the colour of our series of the same name. The paper's single stated numbers
 * ({@link Figure.PaperSeries#points}) are markers alone, a large outlined star in that colour, legend
 * "paper: name". Every experiment also gets a band chart: each
 * compared number's difference from the paper in units of its band, so that bars inside ±1 agree.
 * Stateless; one chart at a time per thread.
 */
public final class FigurePlotter {
    /** Width of every plot, in pixels. */
    public static final int WIDTH = 900;
    /** Height of every plot, in pixels. */
    public static final int HEIGHT = 540;
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
            new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
            new Color(0xbcbd22), new Color(0x17becf)};
    private static final BasicStroke SOLID = new BasicStroke(2f);
    private static final BasicStroke DASHED = new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
            new float[]{7f, 5f}, 0f);
    private static final String PAPER_SUFFIX = " (paper)";
    private static final String POINTS_PREFIX = "paper: ";

    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    private FigurePlotter() {
    }

    /**
     * Writes {@code figure} of {@code result} to {@code file}.
     *
     * @return false if the figure had no points (nothing written)
     * @throws IllegalArgumentException if the figure names a table, column or row the result lacks
     */
    public static boolean write(Figure figure, ExperimentResult result, Path file) throws IOException {
        FigureData data = FigureData.of(figure, result);
        if (data.isEmpty()) {
            return false;
        }
        save(chart(data), file);
        return true;
    }

    /** The chart of {@code data}, not yet drawn: an XY chart on a numeric x, else a category chart. */
    static Chart<?, ?> chart(FigureData data) {
        return data.numericX() ? xy(data) : category(data);
    }

    /**
     * Writes the band chart of {@code result}: one bar per compared number (labelled #1, #2, ... in the
     * order of its rows), its difference from the paper divided by its band's width.
     *
     * @return false if the result compares no numbers (nothing written)
     */
    public static boolean writeBands(ExperimentResult result, Path file) throws IOException {
        List<ExperimentRow> rows = result.rows();
        if (rows.isEmpty()) {
            return false;
        }
        CategoryChart chart = new CategoryChart(WIDTH, HEIGHT);
        style(chart.getStyler());
        chart.setTitle(result.experiment() + ": difference from the paper, in bands (|x| <= 1 agrees)");
        chart.setXAxisTitle("compared number (# in the table)");
        chart.setYAxisTitle("(ours - paper) / band width");
        List<String> labels = new ArrayList<>();
        List<Double> inside = new ArrayList<>();
        List<Double> outside = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            ExperimentRow r = rows.get(i);
            double d = r.difference() / r.band().width();
            // far outliers would flatten the rest: cut at ±5 bands (the table has the number)
            double shown = Math.max(-5, Math.min(5, d));
            labels.add("#" + (i + 1));
            inside.add(r.withinBand() ? shown : 0.0);
            outside.add(r.withinBand() ? 0.0 : shown);
        }
        chart.getStyler().setOverlapped(true);
        chart.getStyler().setYAxisMin(-5.0);
        chart.getStyler().setYAxisMax(5.0);
        CategorySeries in = chart.addSeries("within band", labels, inside);
        in.setFillColor(new Color(0x2ca02c));
        CategorySeries out = chart.addSeries("outside band (cut at ±5)", labels, outside);
        out.setFillColor(new Color(0xd62728));
        for (double edge : new double[]{1, -1}) {
            CategorySeries s = chart.addSeries(edge > 0 ? "band" : " ", labels,
                    labels.stream().map(l -> edge).toList());
            s.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
            s.setLineColor(Color.DARK_GRAY);
            s.setLineStyle(DASHED);
            s.setMarker(SeriesMarkers.NONE);
            s.setShowInLegend(edge > 0);
        }
        save(chart, file);
        return true;
    }

    private static XYChart xy(FigureData data) {
        Figure f = data.figure();
        XYChart chart = new XYChart(WIDTH, HEIGHT);
        style(chart.getStyler());
        chart.setTitle(f.title());
        chart.setXAxisTitle(f.xAxis());
        chart.setYAxisTitle(f.yAxis());
        chart.getStyler().setXAxisLogarithmic(f.logX());
        chart.getStyler().setXAxisLogarithmicDecadeOnly(false);
        chart.getStyler().setYAxisLogarithmicDecadeOnly(false);
        chart.getStyler().setYAxisLogarithmic(f.logY());
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        Map<String, Color> colours = new HashMap<>();
        for (FigureData.Series s : data.series()) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (int i = 0; i < s.x().size(); i++) {
                double x = FigureData.x(s.x().get(i)).orElseThrow();
                double y = s.y().get(i);
                if ((f.logX() && x <= 0) || (f.logY() && y <= 0)) {
                    continue; // a log axis has no place for it
                }
                xs.add(x);
                ys.add(y);
            }
            if (xs.isEmpty()) {
                continue;
            }
            XYSeries series = chart.addSeries(legend(s), xs, ys);
            Color c = colour(colours, s.name());
            series.setLineColor(c);
            series.setMarkerColor(c);
            if (s.points()) {
                series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
                series.setMarker(PaperPointMarker.INSTANCE);
                continue;
            }
            series.setLineStyle(s.paper() ? DASHED : SOLID);
            series.setMarker(s.paper() ? SeriesMarkers.DIAMOND : SeriesMarkers.CIRCLE);
        }
        return chart;
    }

    private static CategoryChart category(FigureData data) {
        Figure f = data.figure();
        CategoryChart chart = new CategoryChart(WIDTH, HEIGHT);
        style(chart.getStyler());
        chart.setTitle(f.title());
        chart.setXAxisTitle(f.xAxis());
        chart.setYAxisTitle(f.yAxis());
        chart.getStyler().setYAxisLogarithmic(f.logY());
        // a sweep's lines meet their categories' centres; bars stand side by side
        chart.getStyler().setOverlapped(f.lines());
        if (f.logY()) {
            // bars start at zero unless told otherwise, and a log axis has no zero: start at the decade below
            data.series().stream().flatMap(s -> s.y().stream()).filter(y -> y > 0).min(Double::compare)
                    .ifPresent(min -> chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min)))));
        }
        List<String> categories = data.categories();
        Map<String, Color> colours = new HashMap<>();
        for (FigureData.Series s : data.series()) {
            List<Double> ys = new ArrayList<>();
            for (String c : categories) {
                int i = s.x().indexOf(c);
                Double y = i < 0 ? null : s.y().get(i);
                ys.add(y == null || (f.logY() && !(y > 0)) ? null : y); // null: no bar (a gap)
            }
            if (ys.stream().allMatch(y -> y == null)) {
                continue;
            }
            CategorySeries series = chart.addSeries(legend(s), categories, ys);
            Color c = colour(colours, s.name());
            if (s.points()) {
                series.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
                series.setMarker(PaperPointMarker.INSTANCE);
                series.setMarkerColor(c);
            } else if (s.paper()) {
                series.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
                series.setMarker(SeriesMarkers.DIAMOND);
                series.setMarkerColor(c.darker());
            } else if (f.lines()) {
                series.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
                series.setLineColor(c);
                series.setMarkerColor(c);
                series.setLineStyle(SOLID);
                series.setMarker(SeriesMarkers.CIRCLE);
            } else {
                series.setFillColor(c);
            }
        }
        return chart;
    }

    /** The legend of a series: the paper's lines get " (paper)", its single numbers "paper: " before. */
    static String legend(FigureData.Series s) {
        if (s.points()) {
            return POINTS_PREFIX + s.name();
        }
        return s.paper() ? s.name() + PAPER_SUFFIX : s.name();
    }

    private static Color colour(Map<String, Color> colours, String name) {
        return colours.computeIfAbsent(name, n -> PALETTE[colours.size() % PALETTE.length]);
    }

    private static void style(Styler styler) {
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setLegendPosition(Styler.LegendPosition.OutsideE);
        styler.setChartTitleFont(styler.getChartTitleFont().deriveFont(15f));
        styler.setAntiAlias(true);
    }

    /**
     * The marker of the paper's single numbers: a five-pointed star half again as large as the other
     * markers, filled in the series' colour and outlined in black, so that it stands out on a line of ours.
     */
    static final class PaperPointMarker extends Marker {
        static final PaperPointMarker INSTANCE = new PaperPointMarker();
        private static final BasicStroke OUTLINE = new BasicStroke(1.2f);

        private PaperPointMarker() {
        }

        @Override
        public void paint(Graphics2D g, double x, double y, int markerSize) {
            double outer = markerSize * 0.95;
            double inner = outer * 0.45;
            Path2D.Double star = new Path2D.Double();
            for (int i = 0; i < 10; i++) {
                double r = i % 2 == 0 ? outer : inner;
                double a = -Math.PI / 2 + i * Math.PI / 5;
                double px = x + r * Math.cos(a);
                double py = y + r * Math.sin(a);
                if (i == 0) {
                    star.moveTo(px, py);
                } else {
                    star.lineTo(px, py);
                }
            }
            star.closePath();
            g.fill(star);
            Paint fill = g.getPaint();
            Stroke stroke = g.getStroke();
            g.setPaint(Color.BLACK);
            g.setStroke(OUTLINE);
            g.draw(star);
            g.setPaint(fill);
            g.setStroke(stroke);
        }
    }

    private static void save(Chart<?, ?> chart, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
