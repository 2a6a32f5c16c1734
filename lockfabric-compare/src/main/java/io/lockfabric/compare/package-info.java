/**
 * {@code lockfabric compare}'s engine: one workload run against LockFabric and against its peers
 * (Redisson on Redis, Curator on ZooKeeper, Hazelcast's FencedLock), each peer's server started
 * in a process of its own on loopback and stopped after, and the results as a table, CSV, JSON and
 * a bar chart.
 */
package io.lockfabric.compare;
