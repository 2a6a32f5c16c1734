package io.lockfabric.bench;

import io.lockfabric.bench.ReportLayout.Column;

import java.util.List;

/**
 * An aligned table for people, one row per run, in the columns of the runs' workload kind
 * ({@link ReportLayout#table()}): numbers right-aligned, text left-aligned. Runs of several kinds
 * get a table each, in the order their kinds first appear. Below a table, {@code #} lines say how
 * each of its runs that did not complete ended ({@link RunEnd#describe}): stuck clients, or
 * interrupted and so partial.
 */
public final class TableReport implements Report {
    @Override
    public String render(List<RunResult> results) {
        StringBuilder sb = new StringBuilder();
        for (List<RunResult> group : Report.byKind(results)) {
            List<Column> columns = group.getFirst().workload().layout().table();
            String[] header = new String[columns.size()];
            boolean[] numeric = new boolean[columns.size()];
            for (int i = 0; i < header.length; i++) {
                header[i] = columns.get(i).header();
                numeric[i] = columns.get(i).numeric();
            }
            TextTable table = new TextTable(header, numeric);
            for (RunResult r : group) {
                table.row(columns.stream().map(c -> c.cell().apply(r)).toArray(String[]::new));
            }
            sb.append(table.render());
            for (RunResult r : group) {
                sb.append(r.runEnd().describe(r.protocol()));
            }
        }
        return sb.toString();
    }
}
