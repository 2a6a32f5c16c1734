/**
 * The simulator's layer of the harness: {@link io.lockfabric.bench.sim.SimDriver} runs a run's
 * clients in virtual time up to a liveness bound, injects a {@link io.lockfabric.sim.FaultPlan}'s
 * faults, reads the history in the light of them ({@code FaultAnalysis}: crashes, recoveries,
 * lease hazards) and probes the memory node's NIC queueing; {@link io.lockfabric.bench.sim.SimCheck}
 * sweeps seeds of a checked, faulty workload of any kind; {@link io.lockfabric.bench.sim.FaultSummary}
 * describes what a faulty run went through. Only this package of the harness knows
 * {@link io.lockfabric.sim.SimFabric}.
 */
package io.lockfabric.bench.sim;
