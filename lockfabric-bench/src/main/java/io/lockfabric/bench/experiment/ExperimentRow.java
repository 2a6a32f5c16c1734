package io.lockfabric.bench.experiment;

import java.util.Objects;

/**
 * One number of a paper next to ours: in case {@code caseName} (a configuration of the
 * experiment), the paper measured {@code paper} of {@code metric} and the simulation gave
 * {@code sim}, both in {@code unit}; they agree if {@code band} contains the difference.
 */
public record ExperimentRow(String caseName, String metric, double paper, double sim, String unit, Band band) {
    public ExperimentRow {
        Objects.requireNonNull(caseName, "caseName");
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(band, "band");
        band.difference(paper, paper); // rejects a relative band around 0 now, not when printed
    }

    /** {@code sim − paper}, relative to the paper's value for a relative band. */
    public double difference() {
        return band.difference(paper, sim);
    }

    public boolean withinBand() {
        return band.contains(paper, sim);
    }
}
