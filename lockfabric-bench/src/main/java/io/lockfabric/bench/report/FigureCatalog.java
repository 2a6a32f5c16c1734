package io.lockfabric.bench.report;

import io.lockfabric.bench.experiment.Figure;

import java.util.List;

/**
 * The figures of the experiments that predate {@link io.lockfabric.bench.experiment.Experiment#figures()}:
 * per experiment name, which of its tables to draw as which of the paper's figures. A new experiment
 * declares its own figures instead.
 */
public final class FigureCatalog {
    private FigureCatalog() {
    }

    /** The figures of the experiment {@code name}; empty if the catalogue does not know it. */
    public static List<Figure> forExperiment(String name) {
        return switch (name) {
            default -> List.of();
        };
    }
}
