/**
 * {@code mt}: the server-side range lock manager over a B-tree of disjoint ranges (CITRON's MT
 * baseline, in the spirit of the Linux Maple tree), run by the memory node's CPU behind an rpc.
 */
package io.lockfabric.lock.mt;
