package io.lockfabric.bench.experiment;

import java.util.List;

/**
 * What one run of an {@link Experiment} found: the paper's numbers and ours, row by row.
 *
 * @param setup      one line on what ran (topology, workload, measured window, seed)
 * @param tables     the measurements in full, as tables (may be empty)
 * @param rows       the numbers the paper gives, next to ours
 * @param discussion where the simulation agrees with the paper and where not, and why (may be empty)
 * @param wallNs     how long the run took in real time
 */
public record ExperimentResult(String experiment, String reference, String description, String setup,
                               List<ExperimentTable> tables, List<ExperimentRow> rows, String discussion,
                               long wallNs) {
    public ExperimentResult {
        tables = List.copyOf(tables);
        rows = List.copyOf(rows);
        discussion = discussion == null ? "" : discussion;
    }

    /** Comparisons only, no tables of measurements and no discussion. */
    public ExperimentResult(String experiment, String reference, String description, String setup,
                            List<ExperimentRow> rows, long wallNs) {
        this(experiment, reference, description, setup, List.of(), rows, "", wallNs);
    }

    /** True if every row lies within its band. */
    public boolean withinBands() {
        return rows.stream().allMatch(ExperimentRow::withinBand);
    }

    public List<ExperimentRow> outsideBands() {
        return rows.stream().filter(r -> !r.withinBand()).toList();
    }
}
