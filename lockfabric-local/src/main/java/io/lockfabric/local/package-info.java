/**
 * The local fabric: memory nodes and clients in one JVM, verbs as VarHandle atomics on the memory
 * nodes' segments, clients as threads. Exact counters, real time.
 */
package io.lockfabric.local;
