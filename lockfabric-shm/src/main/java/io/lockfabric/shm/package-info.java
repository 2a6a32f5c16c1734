/**
 * The shared-memory fabric, {@code shm:PATH}: the memory node is a file (in {@code /dev/shm} or any
 * path) that every process on the host maps; one-sided verbs run in the client process on the
 * mapping, with no server CPU in the path; messages between clients go through per-endpoint rings in
 * the same file. See {@link io.lockfabric.shm.ShmFabric} and {@link io.lockfabric.shm.ShmLayout}.
 */
package io.lockfabric.shm;
