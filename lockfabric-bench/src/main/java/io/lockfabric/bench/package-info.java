/**
 * Workloads, the runner, metrics and reports.
 *
 * <p>{@link io.lockfabric.bench.MicroBenchConfig} describes the mutex / reader-writer
 * microbenchmark, {@link io.lockfabric.bench.Runner} runs it for one protocol on a fabric and
 * returns a {@link io.lockfabric.bench.RunResult}, and a {@link io.lockfabric.bench.Report}
 * ({@link io.lockfabric.bench.ReportFormat}: table, CSV, JSON Lines) renders results. Lock choice is
 * {@link io.lockfabric.bench.ZipfGenerator}. Nothing here is protocol-specific: every protocol of
 * {@link io.lockfabric.protocols.LockProtocols} runs the same way.
 */
package io.lockfabric.bench;
