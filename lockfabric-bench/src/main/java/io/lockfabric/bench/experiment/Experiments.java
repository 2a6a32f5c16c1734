package io.lockfabric.bench.experiment;

import io.lockfabric.bench.experiment.shiftlock.ShiftLockBreakdownExperiment;
import io.lockfabric.bench.experiment.shiftlock.ShiftLockClientCountExperiment;
import io.lockfabric.bench.experiment.shiftlock.ShiftLockFailureExperiment;
import io.lockfabric.bench.experiment.shiftlock.ShiftLockLockCountExperiment;
import io.lockfabric.bench.experiment.shiftlock.ShiftLockMicrobenchExperiment;
import io.lockfabric.bench.experiment.shiftlock.ShiftLockRetryExperiment;
import io.lockfabric.bench.experiment.shiftlock.ShiftLockSkewExperiment;
import io.lockfabric.bench.experiment.shiftlock.ShiftLockThresholdExperiment;
import io.lockfabric.bench.experiment.shiftlock.ShiftLockTransactionsExperiment;
import io.lockfabric.bench.experiment.shiftlock.ShiftLockVerbsExperiment;
import io.lockfabric.bench.experiment.declock.DecLockCapacityExperiment;
import io.lockfabric.bench.experiment.declock.DecLockClientsExperiment;
import io.lockfabric.bench.experiment.declock.DecLockSweepExperiment;
import io.lockfabric.bench.experiment.declock.DecLockCriticalSectionExperiment;
import io.lockfabric.bench.experiment.declock.DecLockFaultTimelineExperiment;
import io.lockfabric.bench.experiment.declock.DecLockNetworkExperiment;
import io.lockfabric.bench.experiment.declock.DecLockRefetchExperiment;
import io.lockfabric.bench.experiment.declock.DecLockObjectStoreExperiment;
import io.lockfabric.bench.experiment.declock.DecLockPolicyExperiment;
import io.lockfabric.bench.experiment.declock.DecLockResetExperiment;
import io.lockfabric.bench.experiment.citron.CitronAbortRateExperiment;
import io.lockfabric.bench.experiment.citron.CitronFalseConflictExperiment;
import io.lockfabric.bench.experiment.citron.CitronFastPathExperiment;
import io.lockfabric.bench.experiment.citron.CitronFsFig8Experiment;
import io.lockfabric.bench.experiment.citron.CitronFsTable2Experiment;
import io.lockfabric.bench.experiment.citron.CitronMixedExperiment;
import io.lockfabric.bench.experiment.citron.CitronRangeSizeExperiment;
import io.lockfabric.bench.experiment.citron.CitronScaleUpExperiment;
import io.lockfabric.bench.experiment.citron.CitronRpcQueueingExperiment;
import io.lockfabric.bench.experiment.designs.DlmDesignsExperiment;

import java.util.List;
import java.util.stream.Collectors;

/** The registry of named experiments, in a stable order. */
public final class Experiments {
    private static final List<Experiment> ALL = List.of(new ShiftLockRetryExperiment(),
            new ShiftLockMicrobenchExperiment(), new ShiftLockVerbsExperiment(), new ShiftLockThresholdExperiment(),
            new ShiftLockLockCountExperiment(), new ShiftLockClientCountExperiment(), new ShiftLockSkewExperiment(),
            new ShiftLockBreakdownExperiment(), new ShiftLockTransactionsExperiment(), new ShiftLockFailureExperiment(),
            new DecLockClientsExperiment(),
            new DecLockSweepExperiment(DecLockSweepExperiment.Panel.READS),
            new DecLockSweepExperiment(DecLockSweepExperiment.Panel.LOCKS),
            new DecLockSweepExperiment(DecLockSweepExperiment.Panel.SKEW),
            new DecLockSweepExperiment(DecLockSweepExperiment.Panel.LOCALITY), new DecLockCriticalSectionExperiment(),
            new DecLockPolicyExperiment(), new DecLockRefetchExperiment(), new DecLockCapacityExperiment(), new DecLockResetExperiment(), new DecLockFaultTimelineExperiment(), new DecLockObjectStoreExperiment(),
            new DecLockNetworkExperiment(),
            new CitronRangeSizeExperiment(), new CitronMixedExperiment(), new CitronFastPathExperiment(),
            new CitronScaleUpExperiment(), new CitronFsFig8Experiment(), new CitronFsTable2Experiment(),
            new CitronFalseConflictExperiment(), new CitronAbortRateExperiment(),
            new CitronRpcQueueingExperiment(),
            new DlmDesignsExperiment(DlmDesignsExperiment.Panel.FIG1),
            new DlmDesignsExperiment(DlmDesignsExperiment.Panel.FIG3));

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
