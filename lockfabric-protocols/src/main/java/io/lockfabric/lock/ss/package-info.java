/**
 * Static segmentation: fixed segments, one DSLR lock each (CITRON's SS baseline).
 */
package io.lockfabric.lock.ss;
