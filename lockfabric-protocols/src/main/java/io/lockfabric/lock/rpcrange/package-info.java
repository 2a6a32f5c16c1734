/**
 * The server-side range lock manager: an interval tree on the memory node's CPU.
 */
package io.lockfabric.lock.rpcrange;
