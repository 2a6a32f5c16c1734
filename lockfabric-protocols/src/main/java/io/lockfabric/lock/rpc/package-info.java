/**
 * The server-side lock manager on the memory node's CPU.
 */
package io.lockfabric.lock.rpc;
