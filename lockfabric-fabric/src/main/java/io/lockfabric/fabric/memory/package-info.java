/**
 * The memory node every fabric serves: its registered regions, whose
 * {@link io.lockfabric.fabric.memory.MemoryRegion} is the one executor of verb semantics, its table
 * directory and its rpc services.
 */
package io.lockfabric.fabric.memory;
