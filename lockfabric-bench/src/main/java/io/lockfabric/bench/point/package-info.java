/**
 * The mutex / reader-writer workload of the papers' microbenchmarks (ShiftLock §4.2, DecLock §6):
 * Zipf-chosen locks, a read ratio, critical sections of remote operations.
 */
package io.lockfabric.bench.point;
