package io.lockfabric.bench.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How to draw one of an experiment's {@link ExperimentTable}s the way the paper draws its figure: which
 * table, which way its x values run, the axes' names and scales, and which columns (or rows) are the
 * series. Declarative: a figure names parts of the result and holds no numbers of its own, so an
 * experiment describes its figures without touching how it runs; the report
 * ({@code io.lockfabric.bench.report}) draws them. Our series are solid lines (bars on a categorical x),
 * the paper's dashed lines with markers.
 *
 * <p>Cells are read as the {@code part}-th number in them (0: the first), so a cell {@code "12.1 / 240"}
 * (p50 / p99) gives 12.1 as part 0 and 240 as part 1; a cell with no such number ({@code "-"}) is a gap.
 * An x label with exactly one number in it ({@code "3 clients"}, {@code "cs 4"}, {@code "2,048"}; not
 * {@code "1x8"} or {@code "inf"}) reads as that number; if every x label does, the x axis is numeric (log
 * if asked), else the x labels are categories in table order.
 *
 * @param id     file name part: the plot is written as {@code <experiment>-<id>.png}
 * @param title  the chart's title (the paper's figure and panel, say)
 * @param table  a table whose title starts with this, the first such table; {@link #NO_TABLE} for a figure
 *               of the rows' numbers only ({@link PaperSeries#fromRows} with {@code ours})
 * @param xInRows true: x values are the first column (one row per x), series are columns; false: x values
 *               are the column headers after the first, series are rows named by their first cell
 * @param xAxis  the x axis's title
 * @param yAxis  the y axis's title
 * @param series our series, in order: column headers (or row labels) to plot; empty: every one that holds
 *               a number and matches {@code only}
 * @param only   with {@code series} empty: a pattern the series' names must match (find); "" for all
 * @param part   which number of a cell to plot for {@code series}
 * @param logX   logarithmic x axis (numeric x only)
 * @param logY   logarithmic y axis (non-positive values are left out)
 * @param lines  on a categorical x, our series as lines (a sweep) rather than bars
 * @param paperPart for cells that hold the paper's number and ours ({@code "paper / sim"}): which number of a
 *               cell is the paper's, drawn as the paper's series beside each of ours; -1 if none does
 * @param paper  more of the paper's series, drawn dashed with markers, or its single stated numbers
 *               ({@link PaperSeries#points}, {@link PaperSeries#point}), drawn as markers alone
 */
public record Figure(String id, String title, String table, boolean xInRows, String xAxis, String yAxis,
                     List<String> series, String only, int part, boolean logX, boolean logY, boolean lines,
                     int paperPart, List<PaperSeries> paper) {
    /** {@link #table()} of a figure drawn from the rows only. */
    public static final String NO_TABLE = "";
    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]*");

    public Figure {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(xAxis, "xAxis");
        Objects.requireNonNull(yAxis, "yAxis");
        Objects.requireNonNull(only, "only");
        Pattern.compile(only); // fails now, not when drawn
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("figure id must be lower-case letters, digits and dashes: '" + id + "'");
        }
        if (part < 0 || paperPart < -1) {
            throw new IllegalArgumentException("part must be >= 0 and paperPart >= -1, got " + part + ", " + paperPart);
        }
        series = List.copyOf(series);
        paper = List.copyOf(paper);
        if (table.equals(NO_TABLE) && (!series.isEmpty() || paperPart >= 0
                || paper.stream().anyMatch(p -> p.source() != null))) {
            throw new IllegalArgumentException("figure " + id + " has no table: its series come from the rows only");
        }
    }

    /**
     * The paper's numbers for one series of the figure, from the same table (a column or row with the
     * paper's cells, or the paper's part of "paper / sim" cells), from the experiment's
     * {@link ExperimentRow}s (one point per row whose metric is {@code metric} and whose case matches
     * {@code caseX}; its group 1 is the x value), or one number the paper states ({@link #point}).
     *
     * <p>A series of {@link #points} is the paper's single stated numbers rather than a curve: drawn as
     * markers alone, never joined by a line (joining two stated values would invent the curve between
     * them), with a marker of their own and the legend "paper: name".
     *
     * @param name    legend name (" (paper)" is added, or "paper: " before it for {@code points})
     * @param source  a column header (or row label) of the figure's table; null to take rows
     * @param part    which number of the source's cells
     * @param metric  with {@code source} null: the rows' metric
     * @param caseX   with {@code source} null: a pattern over the rows' case, group 1 the x value
     * @param ours    with {@code source} null: also draw the rows' simulated values, as our series {@code name}
     * @param points  the paper's single numbers: markers alone
     * @param x       with {@code source} and {@code metric} null: the x labels of the stated points
     * @param y       with {@code x}: their y values
     */
    public record PaperSeries(String name, String source, int part, String metric, String caseX, boolean ours,
                              boolean points, List<String> x, List<Double> y) {
        public PaperSeries {
            Objects.requireNonNull(name, "name");
            x = List.copyOf(x);
            y = List.copyOf(y);
            if (x.size() != y.size()) {
                throw new IllegalArgumentException(x.size() + " x labels for " + y.size() + " values");
            }
            if (source == null && (metric == null || caseX == null) && x.isEmpty()) {
                throw new IllegalArgumentException("a paper series needs a source, a metric and a case pattern, or "
                        + "a point");
            }
            if (caseX != null) {
                Pattern.compile(caseX); // fails now, not when drawn
            }
        }

        /** A series of the table or the rows, drawn as a dashed line with markers. */
        public PaperSeries(String name, String source, int part, String metric, String caseX, boolean ours) {
            this(name, source, part, metric, caseX, ours, false, List.of(), List.of());
        }

        /** From the figure's table: {@code source}'s cells, number {@code part}. */
        public static PaperSeries fromTable(String name, String source, int part) {
            return new PaperSeries(name, source, part, null, null, false);
        }

        /** From the rows of {@code metric}, x from group 1 of {@code caseX} over the row's case. */
        public static PaperSeries fromRows(String name, String metric, String caseX) {
            return new PaperSeries(name, null, 0, metric, caseX, false);
        }

        /** As {@link #fromRows}, and the rows' simulated values as our series of the same name. */
        public static PaperSeries fromRowsWithOurs(String name, String metric, String caseX) {
            return new PaperSeries(name, null, 0, metric, caseX, true);
        }

        /**
         * The paper's single numbers the rows compare against (metric {@code metric}, case matching
         * {@code caseX}, group 1 the x value), drawn as markers alone; {@code name} is best the name of our
         * series they belong to, whose colour they take.
         */
        public static PaperSeries points(String name, String metric, String caseX) {
            return new PaperSeries(name, null, 0, metric, caseX, false, true, List.of(), List.of());
        }

        /**
         * One number the paper states that no row carries as it is drawn (a bound, say): the point
         * ({@code x}, {@code y}), {@code x} an x label as the figure's table has them, drawn as a marker.
         */
        public static PaperSeries point(String name, String x, double y) {
            return new PaperSeries(name, null, 0, null, null, false, true, List.of(x), List.of(y));
        }

        /** As {@link #point}, several stated numbers in one series: {@code x.get(i)} with {@code y.get(i)}. */
        public static PaperSeries points(String name, List<String> x, List<Double> y) {
            return new PaperSeries(name, null, 0, null, null, false, true, x, y);
        }
    }

    /** Starts a figure drawn from the table whose title starts with {@code table}. */
    public static Builder of(String id, String title, String table) {
        return new Builder(id, title, table);
    }

    /** Builds a {@link Figure}; defaults: x in rows, every numeric series, part 0, linear axes, no paper series. */
    public static final class Builder {
        private final String id;
        private final String title;
        private final String table;
        private boolean xInRows = true;
        private String xAxis = "";
        private String yAxis = "";
        private final List<String> series = new ArrayList<>();
        private String only = "";
        private int part;
        private boolean logX;
        private boolean logY;
        private boolean lines;
        private int paperPart = -1;
        private final List<PaperSeries> paper = new ArrayList<>();

        private Builder(String id, String title, String table) {
            this.id = id;
            this.title = title;
            this.table = table;
        }

        /** x values are the first column; series are columns. */
        public Builder xInRows(String axis) {
            xInRows = true;
            xAxis = axis;
            return this;
        }

        /** x values are the column headers after the first; series are rows. */
        public Builder xInColumns(String axis) {
            xInRows = false;
            xAxis = axis;
            return this;
        }

        public Builder y(String axis) {
            yAxis = axis;
            return this;
        }

        /** Only these series (column headers or row labels), in this order. */
        public Builder series(String... names) {
            series.addAll(List.of(names));
            return this;
        }

        /** Every series whose name matches {@code pattern} (find), instead of every series. */
        public Builder only(String pattern) {
            only = pattern;
            return this;
        }

        /** On a categorical x, draw our series as lines, not bars. */
        public Builder lines() {
            lines = true;
            return this;
        }

        /** Plot number {@code index} of each cell (0: the first). */
        public Builder part(int index) {
            part = index;
            return this;
        }

        public Builder logX() {
            logX = true;
            return this;
        }

        public Builder logY() {
            logY = true;
            return this;
        }

        /** Number {@code index} of each plotted cell is the paper's: drawn beside each of our series. */
        public Builder paperPart(int index) {
            paperPart = index;
            return this;
        }

        public Builder paper(PaperSeries s) {
            paper.add(s);
            return this;
        }

        public Figure build() {
            return new Figure(id, title, table, xInRows, xAxis, yAxis, series, only, part, logX, logY, lines, paperPart,
                    paper);
        }
    }
}
