package io.lockfabric.bench.experiment;

import java.util.List;

/**
 * A named experiment of a paper, reproduced on the simulator: it runs its cases and returns the
 * paper's numbers and ours side by side ({@link ExperimentResult}). Found by name in
 * {@link Experiments}; run by {@code lockfabric reproduce NAME}. Implementations are stateless;
 * runs on the simulator are deterministic for a given seed.
 */
public interface Experiment {
    /** Registry name, the paper and section: {@code shiftlock-2.3}. */
    String name();

    /** Where the paper's numbers come from: {@code ShiftLock (FAST'25) §2.3}. */
    String reference();

    /** One line: what is measured. */
    String description();

    /**
     * True if the experiment compares protocols and honours {@link ExperimentSettings#protocols()}
     * (a subset of its own list, or other registered names).
     */
    default boolean selectsProtocols() {
        return false;
    }

    /**
     * True if the experiment's numbers come from runs on the simulated cluster; false if they are
     * computed (from the protocol's arithmetic alone, where timing plays no part), which the report
     * then says instead of "simulated".
     */
    default boolean simulated() {
        return true;
    }

    /**
     * The paper's figure(s) this experiment reproduces, drawn from its result's tables by the reproduction
     * report ({@code reproduce --report}). Empty: the report's own catalogue of figures for the
     * experiments that predate this method, else the first table as it stands.
     */
    default List<Figure> figures() {
        return List.of();
    }

    /** Runs every case (on fresh simulated clusters) and compares. */
    ExperimentResult run(ExperimentSettings settings);
}
