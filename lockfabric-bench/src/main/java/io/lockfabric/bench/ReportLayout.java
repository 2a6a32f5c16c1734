package io.lockfabric.bench;

import java.util.List;
import java.util.function.Function;

/**
 * How one workload kind's results are reported: its table columns, its CSV columns and its JSON
 * fields. The reports ({@link TableReport}, {@link CsvReport}, {@link JsonReport}) do the rest
 * (alignment, quoting, one JSON object per line) for every kind alike; {@link Columns} holds the
 * columns kinds share. Implementations are stateless.
 */
public interface ReportLayout {
    /**
     * A column: its header, whether its cells are numbers (right-aligned in a table) and the cell
     * of a result.
     */
    record Column(String header, boolean numeric, Function<RunResult, String> cell) {
        /** A left-aligned column. */
        public static Column text(String header, Function<RunResult, String> cell) {
            return new Column(header, false, cell);
        }

        /** A right-aligned column. */
        public static Column number(String header, Function<RunResult, String> cell) {
            return new Column(header, true, cell);
        }
    }

    /** The columns of the aligned table for people. */
    List<Column> table();

    /** The columns of a CSV row. */
    List<Column> csv();

    /** Writes {@code r}'s fields, name by name, into the JSON object {@code json} has open. */
    void json(JsonWriter json, RunResult r);
}
