/**
 * RMA-RW (HPDC'16): MCS writers and reader counters in one 128-bit entry.
 */
package io.lockfabric.lock.rmarw;
