package io.lockfabric.bench.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A table of measured values an experiment prints besides its comparisons with the paper: the
 * figure's data as the simulation gives it (goodput of each protocol on each workload, say), or the
 * paper's cells next to ours where a comparison per cell would bury the reader in rows. Cells are
 * text, formatted by the experiment; the first column is a label, the others numbers unless
 * {@code textColumns} says otherwise.
 */
public record ExperimentTable(String title, List<String> columns, List<List<String>> cells) {
    public ExperimentTable {
        Objects.requireNonNull(title, "title");
        columns = List.copyOf(columns);
        cells = cells.stream().map(List::copyOf).toList();
        for (List<String> row : cells) {
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("row " + row + " has " + row.size() + " cells for "
                        + columns.size() + " columns");
            }
        }
    }

    /** Builds a table row by row. */
    public static final class Builder {
        private final String title;
        private final List<String> columns;
        private final List<List<String>> cells = new ArrayList<>();

        public Builder(String title, String... columns) {
            this.title = title;
            this.columns = List.of(columns);
        }

        public Builder row(String... values) {
            cells.add(List.of(values));
            return this;
        }

        public ExperimentTable build() {
            return new ExperimentTable(title, columns, cells);
        }
    }
}
