package io.lockfabric.bench.experiment;

import java.util.List;

/**
 * What one run of an {@link Experiment} found: the paper's numbers and ours, row by row.
 *
 * @param setup    one line on what ran (topology, workload, measured window, seed)
 * @param wallNs   how long the run took in real time
 */
public record ExperimentResult(String experiment, String reference, String description, String setup,
                               List<ExperimentRow> rows, long wallNs) {
    public ExperimentResult {
        rows = List.copyOf(rows);
    }

    /** True if every row lies within its band. */
    public boolean withinBands() {
        return rows.stream().allMatch(ExperimentRow::withinBand);
    }

    public List<ExperimentRow> outsideBands() {
        return rows.stream().filter(r -> !r.withinBand()).toList();
    }
}
