package io.lockfabric.bench.experiment;

import java.util.List;
import java.util.stream.Collectors;

/** The registry of named experiments, in a stable order. */
public final class Experiments {
    private static final List<Experiment> ALL = List.of(new ShiftLockRetryExperiment(),
            new ShiftLockMicrobenchExperiment(), new ShiftLockVerbsExperiment(), new ShiftLockThresholdExperiment(),
            new ShiftLockBreakdownExperiment(), new DecLockClientsExperiment(), new DecLockCriticalSectionExperiment(),
            new DecLockPolicyExperiment(), new DecLockCapacityExperiment(), new DecLockResetExperiment(),
            new CitronRangeSizeExperiment(), new CitronMixedExperiment(), new CitronFastPathExperiment(),
            new CitronScaleUpExperiment(),
            new CitronFalseConflictExperiment(), new CitronAbortRateExperiment());

    private Experiments() {
    }

    public static List<Experiment> all() {
        return ALL;
    }

    public static List<String> names() {
        return ALL.stream().map(Experiment::name).toList();
    }

    /**
     * The experiment of that name.
     *
     * @throws IllegalArgumentException naming the known experiments if there is none
     */
    public static Experiment byName(String name) {
        for (Experiment e : ALL) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown experiment '" + name + "'; known: "
                + ALL.stream().map(Experiment::name).collect(Collectors.joining(", ")));
    }
}
