/**
 * The sim fabric: a deterministic discrete-event simulation of an RDMA cluster (compute nodes,
 * memory nodes with an RNIC and a CPU, network, drifting clocks, faults) in virtual time. A run is
 * a pure function of its seed.
 */
package io.lockfabric.sim;
