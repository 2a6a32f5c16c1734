/**
 * Named experiments of the papers reproduced on the simulator, each printing the paper's numbers
 * and ours side by side: {@link io.lockfabric.bench.experiment.Experiment}, the registry
 * {@link io.lockfabric.bench.experiment.Experiments}, results as
 * {@link io.lockfabric.bench.experiment.ExperimentRow}s with a
 * {@link io.lockfabric.bench.experiment.Band}, rendered by
 * {@link io.lockfabric.bench.experiment.ExperimentReport}; the paper's figures an experiment reproduces are
 * declared as {@link io.lockfabric.bench.experiment.Figure}s over its tables and drawn by the reproduction
 * report ({@code io.lockfabric.bench.report}). The first is
 * {@link io.lockfabric.bench.experiment.shiftlock.ShiftLockRetryExperiment} ({@code shiftlock-2.3}), against
 * which the simulator's defaults are calibrated.
 */
package io.lockfabric.bench.experiment;
