/**
 * One benchmark harness: workloads, the runner, results and reports.
 *
 * <p>A {@link io.lockfabric.bench.Workload} is a kind of session of lock operations each client
 * runs ({@link io.lockfabric.bench.point.PointWorkload}: mutex / reader-writer locks;
 * {@link io.lockfabric.bench.range.RangeWorkload}: ranges), with its {@link io.lockfabric.bench.Phases}.
 * The {@link io.lockfabric.bench.Runner} runs any workload for one protocol on a fabric, through a
 * {@link io.lockfabric.bench.RunDriver} that runs the client threads to their end (on a real-time
 * fabric, {@link io.lockfabric.bench.RealTimeDriver}: joins them up to the run's deadline, ends its
 * stuck clients, stops early on a {@link io.lockfabric.bench.StopRequest}; on the simulator,
 * {@link io.lockfabric.bench.sim.SimDriver} with its faults and liveness bound), and returns a
 * {@link io.lockfabric.bench.RunResult} (with its {@link io.lockfabric.bench.RunEnd}); a
 * {@link io.lockfabric.bench.Report}
 * ({@link io.lockfabric.bench.ReportFormat}: table, CSV, JSON Lines) renders results in the columns
 * their workload's {@link io.lockfabric.bench.ReportLayout} gives. Nothing here is
 * protocol-specific: every registered protocol runs the same way and is reported with whatever
 * statistics it keeps.
 */
package io.lockfabric.bench;
