/**
 * CITRON (FAST'23): the range lock of a segment tree over [0, N) and a spillover mutex for [N, inf).
 */
package io.lockfabric.lock.citron;
