package io.lockfabric.bench.report;

import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Figure;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The points of one {@link Figure} as an {@link ExperimentResult} gives them: named series of (x label, y)
 * points, ours and the paper's, and whether every x reads as a number. Pure: no drawing.
 *
 * @param figure   what was asked for
 * @param series   the series in drawing order, ours first
 * @param numericX true if every x label reads as a number ({@link #x(String)})
 */
public record FigureData(Figure figure, List<Series> series, boolean numericX) {
    private static final Pattern NUMBER = Pattern.compile("-?\\d[\\d,]*(?:\\.\\d+)?(?:[eE][-+]?\\d+)?");

    /** A range of two non-negative numbers, {@code "10-12"} or {@code "10 - 12 ms"}. */
    private static final Pattern RANGE = Pattern.compile("\\s*(\\d[\\d,]*(?:\\.\\d+)?)\\s*-\\s*\\d[\\d,]*(?:\\.\\d+)?\\D*");

    public FigureData {
        series = List.copyOf(series);
    }

    /**
     * One line (or set of bars) of a figure.
     *
     * @param paper  true for the paper's numbers
     * @param x      x labels, one per point
     * @param y      y values, one per point (no gaps: cells without a number are left out)
     * @param points true for the paper's single stated numbers ({@link Figure.PaperSeries#points}): markers
     *               alone, never a line
     */
    public record Series(String name, boolean paper, List<String> x, List<Double> y, boolean points) {
        /** A line (or bars) of ours or of the paper's. */
        public Series(String name, boolean paper, List<String> x, List<Double> y) {
            this(name, paper, x, y, false);
        }

        public Series {
            x = List.copyOf(x);
            y = List.copyOf(y);
            if (x.size() != y.size()) {
                throw new IllegalArgumentException(x.size() + " x values for " + y.size() + " y values");
            }
        }
    }

    /** True if there is nothing to draw. */
    public boolean isEmpty() {
        return series.stream().allMatch(s -> s.x().isEmpty());
    }

    /** Every x label of every series, in first-seen order. */
    public List<String> categories() {
        Set<String> all = new LinkedHashSet<>();
        series.forEach(s -> all.addAll(s.x()));
        return List.copyOf(all);
    }

    /**
     * The points {@code figure} asks for in {@code result}.
     *
     * @throws IllegalArgumentException if the figure names a table the result does not have
     */
    public static FigureData of(Figure figure, ExperimentResult result) {
        List<Series> ours = new ArrayList<>();
        List<Series> paper = new ArrayList<>();
        if (!figure.table().equals(Figure.NO_TABLE)) {
            ExperimentTable table = result.tables().stream().filter(t -> t.title().startsWith(figure.table()))
                    .findFirst().orElseThrow(() -> new IllegalArgumentException("experiment " + result.experiment()
                            + " has no table titled '" + figure.table() + "...' for figure " + figure.id()));
            Pattern only = Pattern.compile(figure.only());
            List<String> names = figure.series().isEmpty() ? sourceNames(table, figure.xInRows()).stream()
                    .filter(n -> only.matcher(n).find()).toList() : figure.series();
            for (String name : names) {
                Series s = fromTable(table, figure.xInRows(), name, name, figure.part(), false);
                if (!s.x().isEmpty() || !figure.series().isEmpty()) {
                    ours.add(s);
                    if (figure.paperPart() >= 0) {
                        paper.add(fromTable(table, figure.xInRows(), name, name, figure.paperPart(), true));
                    }
                }
            }
        }
        for (Figure.PaperSeries p : figure.paper()) {
            if (p.source() == null && p.metric() == null) {
                paper.add(new Series(p.name(), true, p.x(), p.y(), true));
            } else if (p.source() != null) {
                ExperimentTable table = result.tables().stream().filter(t -> t.title().startsWith(figure.table()))
                        .findFirst().orElseThrow();
                paper.add(fromTable(table, figure.xInRows(), p.source(), p.name(), p.part(), true));
            } else {
                Pattern caseX = Pattern.compile(p.caseX());
                List<String> xs = new ArrayList<>();
                List<Double> paperY = new ArrayList<>();
                List<Double> simY = new ArrayList<>();
                for (ExperimentRow row : result.rows()) {
                    Matcher m = caseX.matcher(row.caseName());
                    if (row.metric().equals(p.metric()) && m.matches()) {
                        xs.add(m.groupCount() >= 1 ? m.group(1) : row.caseName());
                        paperY.add(row.paper());
                        simY.add(row.sim());
                    }
                }
                paper.add(new Series(p.name(), true, xs, paperY, p.points()));
                if (p.ours()) {
                    ours.add(new Series(p.name(), false, xs, simY));
                }
            }
        }
        List<Series> all = new ArrayList<>(ours);
        all.addAll(paper);
        boolean numeric = all.stream().flatMap(s -> s.x().stream()).allMatch(x -> x(x).isPresent())
                && all.stream().anyMatch(s -> !s.x().isEmpty());
        return new FigureData(figure, all, numeric);
    }

    /**
     * The number in an x label if it has exactly one ({@code "1 s"}: 1; {@code "cs 4"}: 4; {@code "2,048"}:
     * 2048; {@code "1x8"}, {@code "inf"}: none), or the start of a range ({@code "10-12"}: 10).
     */
    public static Optional<Double> x(String label) {
        Matcher range = RANGE.matcher(label);
        if (range.matches()) {
            return Optional.of(Double.parseDouble(range.group(1).replace(",", "")));
        }
        Matcher m = NUMBER.matcher(label);
        if (!m.find()) {
            return Optional.empty();
        }
        double v = Double.parseDouble(m.group().replace(",", ""));
        return m.find() ? Optional.empty() : Optional.of(v);
    }

    /** Number {@code part} (0: the first) in a cell ({@code "12.1 / 240"}, part 1: 240), if it has one. */
    public static Optional<Double> number(String cell, int part) {
        Matcher m = NUMBER.matcher(cell);
        for (int i = 0; m.find(); i++) {
            if (i == part) {
                return Optional.of(Double.parseDouble(m.group().replace(",", "")));
            }
        }
        return Optional.empty();
    }

    private static List<String> sourceNames(ExperimentTable t, boolean xInRows) {
        if (xInRows) {
            return t.columns().subList(1, t.columns().size());
        }
        return t.cells().stream().map(row -> row.getFirst()).toList();
    }

    private static Series fromTable(ExperimentTable t, boolean xInRows, String source, String name, int part,
                                    boolean paper) {
        List<String> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        if (xInRows) {
            int col = t.columns().indexOf(source);
            if (col < 0) {
                throw new IllegalArgumentException("table '" + t.title() + "' has no column '" + source + "'; columns: "
                        + t.columns());
            }
            for (List<String> row : t.cells()) {
                number(row.get(col), part).ifPresent(y -> {
                    xs.add(row.getFirst());
                    ys.add(y);
                });
            }
        } else {
            List<String> row = t.cells().stream().filter(r -> r.getFirst().equals(source)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("table '" + t.title() + "' has no row '" + source
                            + "'"));
            for (int c = 1; c < row.size(); c++) {
                int column = c;
                number(row.get(c), part).ifPresent(y -> {
                    xs.add(t.columns().get(column));
                    ys.add(y);
                });
            }
        }
        return new Series(name, paper, xs, ys);
    }
}
