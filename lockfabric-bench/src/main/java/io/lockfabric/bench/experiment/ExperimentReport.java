package io.lockfabric.bench.experiment;

import io.lockfabric.bench.JsonWriter;
import io.lockfabric.bench.TextTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders an {@link ExperimentResult}: an aligned table of the paper's numbers and ours side by
 * side (difference, band, verdict), or one JSON object. Stateless.
 */
public final class ExperimentReport {
    private static final String[] HEADER = {"case", "metric", "paper", "sim", "unit", "diff", "band", "verdict"};
    private static final boolean[] NUMERIC = {false, false, true, true, false, true, false, false};
    private static final double NANOS_PER_SECOND = 1e9;

    private ExperimentReport() {
    }

    /**
     * Heading, the tables of measurements, one row per number the paper gives, a summary line and
     * the discussion; ends with a newline. The summary line says how long the simulation took.
     */
    public static String table(ExperimentResult r) {
        return table(r, true);
    }

    /**
     * As {@link #table(ExperimentResult)}; the summary line says the numbers were {@code simulated}
     * or, if false, computed ({@link Experiment#simulated()}).
     */
    public static String table(ExperimentResult r, boolean simulated) {
        TextTable table = new TextTable(HEADER, NUMERIC);
        for (ExperimentRow row : r.rows()) {
            table.row(row.caseName(), row.metric(), number(row.paper()), number(row.sim()), row.unit(),
                    row.band().describeDifference(row.difference(), row.unit()), row.band().describe(row.unit()),
                    row.withinBand() ? "ok" : "OUTSIDE");
        }
        StringBuilder sb = new StringBuilder();
        sb.append("# ").append(r.experiment()).append(": ").append(r.reference()).append('\n');
        sb.append("# ").append(r.description()).append('\n');
        sb.append("# ").append(r.setup()).append('\n');
        for (ExperimentTable t : r.tables()) {
            sb.append('\n').append("## ").append(t.title()).append('\n').append(render(t));
        }
        if (!r.tables().isEmpty()) {
            sb.append('\n').append("## the paper's numbers and ours").append('\n');
        }
        sb.append(table.render());
        int outside = r.outsideBands().size();
        sb.append(outside == 0
                ? String.format(Locale.ROOT, "all %d numbers within their bands", r.rows().size())
                : String.format(Locale.ROOT, "%d of %d numbers OUTSIDE their bands", outside, r.rows().size()));
        sb.append(String.format(Locale.ROOT, " (%s in %.1f s)%n", simulated ? "simulated" : "computed",
                r.wallNs() / NANOS_PER_SECOND));
        if (!r.discussion().isEmpty()) {
            sb.append('\n').append(r.discussion().strip()).append('\n');
        }
        return sb.toString();
    }

    private static String render(ExperimentTable t) {
        String[] header = t.columns().toArray(String[]::new);
        boolean[] numeric = new boolean[header.length];
        for (int i = 1; i < numeric.length; i++) {
            numeric[i] = true;
        }
        TextTable out = new TextTable(header, numeric);
        for (List<String> row : t.cells()) {
            out.row(row.toArray(String[]::new));
        }
        return out.render();
    }

    /**
     * One JSON object, one line: the experiment, whether all rows are within their bands, and the
     * rows ({@code difference} relative to the paper for a relative band, in the unit otherwise).
     */
    public static String json(ExperimentResult r) {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = new JsonWriter(sb);
        w.beginObject();
        w.name("experiment").value(r.experiment());
        w.name("reference").value(r.reference());
        w.name("description").value(r.description());
        w.name("setup").value(r.setup());
        w.name("within_bands").value(r.withinBands());
        w.name("tables").beginArray();
        for (ExperimentTable t : r.tables()) {
            w.beginObject();
            w.name("title").value(t.title());
            w.name("columns").beginArray();
            for (String c : t.columns()) {
                w.value(c);
            }
            w.endArray();
            w.name("rows").beginArray();
            for (List<String> row : t.cells()) {
                w.beginArray();
                for (String cell : row) {
                    cell(w, cell);
                }
                w.endArray();
            }
            w.endArray();
            w.endObject();
        }
        w.endArray();
        w.name("rows").beginArray();
        for (ExperimentRow row : r.rows()) {
            w.beginObject();
            w.name("case").value(row.caseName());
            w.name("metric").value(row.metric());
            w.name("unit").value(row.unit());
            w.name("paper").value(row.paper());
            w.name("sim").value(round(row.sim()));
            w.name("difference").value(round(row.difference()));
            w.name("band").beginObject();
            w.name("kind").value(row.band().kind().name().toLowerCase(Locale.ROOT));
            w.name("width").value(row.band().width());
            w.endObject();
            w.name("within_band").value(row.withinBand());
            w.endObject();
        }
        w.endArray();
        w.name("discussion").value(r.discussion());
        w.name("wall_seconds").value(round(r.wallNs() / NANOS_PER_SECOND));
        w.endObject();
        return sb.append('\n').toString();
    }

    /** A cell that reads as a plain number goes out as a JSON number, anything else as a string. */
    private static void cell(JsonWriter w, String cell) {
        if (cell.matches("-?\\d+(\\.\\d+)?")) {
            w.value(Double.parseDouble(cell));
        } else {
            w.value(cell);
        }
    }

    /** One decimal, or two below 10 (verbs per cycle, ratios, microseconds). */
    private static String number(double v) {
        return String.format(Locale.ROOT, Math.abs(v) < 10 ? "%,.2f" : "%,.1f", v);
    }

    /** Four significant decimals are plenty for a comparison with a paper. */
    private static double round(double v) {
        return Math.round(v * 1e4) / 1e4;
    }
}
