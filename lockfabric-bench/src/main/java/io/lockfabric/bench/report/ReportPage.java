package io.lockfabric.bench.report;

import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentTable;

import java.util.List;
import java.util.Locale;

/**
 * The reproduction report's Markdown page: a summary table (experiment, paper, numbers in band and out
 * of band, wall time, status), then per experiment its description and setup, plots, tables, the paper's
 * numbers next to ours, and its discussion. Stateless.
 */
public final class ReportPage {
    private ReportPage() {
    }

    /** The whole page for {@code entries} (in run order), run with {@code seed}, taking {@code wallNs}. */
    public static String markdown(List<ReproductionReport.Entry> entries, long seed, long wallNs) {
        StringBuilder sb = new StringBuilder();
        sb.append("# LockFabric: the papers' experiments, reproduced\n\n");
        sb.append("Written by `lockfabric reproduce --report`, seed ").append(seed)
                .append(". Numbers are simulated in virtual time (the same on every machine for a seed) unless "
                        + "an experiment says it computes them; wall times are this machine's. In the plots our "
                        + "series are solid lines (bars), the paper's dashed lines with diamond markers (markers "
                        + "on bars); each experiment's band chart shows every compared number's distance from the "
                        + "paper in units of its band (within ±1 agrees).\n\n");
        sb.append("## Summary\n\n").append(summary(entries, wallNs)).append('\n');
        for (ReproductionReport.Entry e : entries) {
            sb.append('\n').append(section(e));
        }
        return sb.toString();
    }

    /** The summary table, with a total row. */
    public static String summary(List<ReproductionReport.Entry> entries, long wallNs) {
        StringBuilder sb = new StringBuilder();
        sb.append("| experiment | paper | in band | out of band | wall time | status |\n");
        sb.append("|---|---|--:|--:|--:|---|\n");
        int in = 0;
        int out = 0;
        int failed = 0;
        for (ReproductionReport.Entry e : entries) {
            in += e.inBand();
            out += e.outOfBand();
            failed += e.failed() ? 1 : 0;
            String status = e.failed() ? "FAILED: " + cell(e.failure())
                    : e.outOfBand() == 0 ? "all within bands" : e.outOfBand() + " outside";
            sb.append("| [").append(e.name()).append("](#").append(anchor(e.name())).append(") | ")
                    .append(cell(e.reference())).append(" | ").append(e.failed() ? "-" : e.inBand()).append(" | ")
                    .append(e.failed() ? "-" : e.outOfBand()).append(" | ")
                    .append(ReproductionReport.duration(e.wallNs())).append(" | ").append(status).append(" |\n");
        }
        sb.append("| **total** (").append(entries.size()).append(" experiments) | | **").append(in).append("** | **")
                .append(out).append("** | **").append(ReproductionReport.duration(wallNs)).append("** | ")
                .append(failed == 0 ? "none failed" : failed + " FAILED").append(" |\n");
        return sb.toString();
    }

    private static String section(ReproductionReport.Entry e) {
        StringBuilder sb = new StringBuilder();
        sb.append("<a id=\"").append(anchor(e.name())).append("\"></a>\n\n");
        sb.append("## ").append(e.name()).append(": ").append(e.reference()).append("\n\n");
        if (e.failed()) {
            sb.append("**FAILED** after ").append(ReproductionReport.duration(e.wallNs())).append(": `")
                    .append(e.failure().replace('`', '\'')).append("`\n");
            return sb.toString();
        }
        ExperimentResult r = e.result();
        sb.append(r.description()).append("\n\n");
        sb.append("Setup: ").append(r.setup()).append("\n\n");
        for (String plot : e.plots()) {
            sb.append("![").append(plot).append("](").append(plot).append(")\n");
        }
        if (!e.plots().isEmpty()) {
            sb.append('\n');
        }
        for (String error : e.plotErrors()) {
            sb.append("(figure not drawn: ").append(error).append(")\n\n");
        }
        for (ExperimentTable t : r.tables()) {
            sb.append("**").append(t.title()).append("**\n\n").append(table(t.columns(), t.cells())).append('\n');
        }
        sb.append("**The paper's numbers and ours** (# as in the band chart)\n\n");
        sb.append("| # | case | metric | paper | ours | unit | diff | band | verdict |\n");
        sb.append("|--:|---|---|--:|--:|---|--:|---|---|\n");
        List<ExperimentRow> rows = r.rows();
        for (int i = 0; i < rows.size(); i++) {
            ExperimentRow row = rows.get(i);
            sb.append("| ").append(i + 1).append(" | ").append(cell(row.caseName())).append(" | ")
                    .append(cell(row.metric())).append(" | ").append(number(row.paper())).append(" | ")
                    .append(number(row.sim())).append(" | ").append(cell(row.unit())).append(" | ")
                    .append(cell(row.band().describeDifference(row.difference(), row.unit()))).append(" | ")
                    .append(cell(row.band().describe(row.unit()))).append(" | ")
                    .append(row.withinBand() ? "ok" : "**OUTSIDE**").append(" |\n");
        }
        int outside = r.outsideBands().size();
        sb.append('\n').append(outside == 0 ? "All " + rows.size() + " numbers within their bands"
                        : outside + " of " + rows.size() + " numbers OUTSIDE their bands")
                .append(" (").append(e.simulated() ? "simulated" : "computed").append(" in ")
                .append(ReproductionReport.duration(e.wallNs())).append(").\n");
        if (!r.discussion().isBlank()) {
            sb.append('\n');
            for (String line : r.discussion().strip().split("\n")) {
                // a discussion is plain text: keep a line from turning into a heading or a list
                sb.append(line.startsWith("#") || line.startsWith("- ") ? "\\" + line : line).append('\n');
            }
        }
        return sb.toString();
    }

    private static String table(List<String> columns, List<List<String>> cells) {
        StringBuilder sb = new StringBuilder("|");
        columns.forEach(c -> sb.append(' ').append(cell(c)).append(" |"));
        sb.append("\n|");
        for (int i = 0; i < columns.size(); i++) {
            sb.append(i == 0 ? "---|" : "--:|");
        }
        sb.append('\n');
        for (List<String> row : cells) {
            sb.append('|');
            row.forEach(c -> sb.append(' ').append(cell(c)).append(" |"));
            sb.append('\n');
        }
        return sb.toString();
    }

    /** An HTML id for an experiment's section: its name, dots as dashes. */
    static String anchor(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    private static String number(double v) {
        return String.format(Locale.ROOT, Math.abs(v) < 10 ? "%,.2f" : "%,.1f", v);
    }
}
