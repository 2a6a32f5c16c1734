/**
 * Applications on disaggregated memory (DecLock §6; Sherman, SIGMOD'22): their data lives in
 * memory-node tables and is read and written with one-sided verbs, on the same endpoint as their
 * locks, so the locks compete with the data for the memory node's NIC.
 *
 * <p>Each application has two layers. A per-endpoint client on the fabric SPI and the lock SPI
 * ({@code Endpoint}, {@code QueuePair}, {@code Table}, {@code LockClient}) holds the logic; the
 * bench runs it in its sessions on every fabric, the simulator included. A facade on the client
 * API ({@code ObjectStore.open(lockFabric, name)}, {@code BTreeIndex.open(lockFabric, name)}) runs
 * the same client on an endpoint of the {@code LockFabric}'s pool per call
 * ({@link io.lockfabric.LockFabric#withEndpoint}). Sub-packages: {@code objstore} (the object
 * store), {@code btree} (the B+-tree index).
 */
package io.lockfabric.apps;
