/**
 * The {@code fs} kind of benchmark workload: CitronFS ({@code io.lockfabric.apps.fs}, CITRON §4.3)
 * under BT-IO class D, Filebench OLTP and IO500 hard-write, our own generators ({@link io.lockfabric.bench.fs.FsTrace}),
 * run by the bench's runner on every fabric, with every read checked.
 */
package io.lockfabric.bench.fs;
