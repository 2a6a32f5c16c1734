package io.lockfabric.bench;

import io.lockfabric.bench.ReportLayout.Column;

import java.util.ArrayList;
import java.util.List;

/**
 * A header line and one row per run, comma-separated (RFC 4180 quoting where needed), in the
 * columns of the runs' workload kind ({@link ReportLayout#csv()}). Runs of several kinds get a
 * header each, in the order their kinds first appear. If a run of a kind did not complete (stuck
 * clients, or interrupted: {@link RunEnd}), that kind's rows end in the columns of
 * {@link Columns#csvRunEnd()}.
 */
public final class CsvReport implements Report {
    @Override
    public String render(List<RunResult> results) {
        StringBuilder sb = new StringBuilder();
        for (List<RunResult> group : Report.byKind(results)) {
            List<Column> columns = new ArrayList<>(group.getFirst().workload().layout().csv());
            if (group.stream().anyMatch(r -> !r.runEnd().complete())) {
                columns.addAll(Columns.csvRunEnd());
            }
            sb.append(String.join(",", columns.stream().map(Column::header).toList())).append('\n');
            for (RunResult r : group) {
                sb.append(String.join(",", columns.stream().map(c -> quote(c.cell().apply(r))).toList())).append('\n');
            }
        }
        return sb.toString();
    }

    /** Quotes a field that holds a comma, quote or line break, doubling inner quotes. */
    public static String quote(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\n') < 0 && field.indexOf('\r') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }
}
