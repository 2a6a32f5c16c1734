/**
 * The lock-free list of range locks (Kogan et al., EuroSys'20) over one-sided verbs.
 */
package io.lockfabric.lock.lld;
