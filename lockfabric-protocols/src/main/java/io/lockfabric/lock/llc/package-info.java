/**
 * {@code llc}: the server-side range lock manager over a lock-free linked list of ranges (CITRON's
 * LLC baseline, after Kogan et al.), run by the memory node's CPU threads behind an rpc.
 */
package io.lockfabric.lock.llc;
