/**
 * The {@code btree} workload kind: Sherman's B+-tree index with its nodes on the memory node, under
 * Sherman's workloads (Update-Only, Update-Heavy, Search-Mostly, Zipfian keys) and one node lock
 * variant per run ({@link io.lockfabric.bench.btree.BTreeWorkload}), checked after the run by a full
 * scan and the tree's structure check.
 */
package io.lockfabric.bench.btree;
