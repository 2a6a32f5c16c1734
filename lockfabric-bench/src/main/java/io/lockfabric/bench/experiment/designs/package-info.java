/**
 * The experiments of the report {@code rdma-dlm-designs-report} ("Distributed Lock Management service
 * designs with RDMA"): its Figures 1 and 3, the server-centric lock manager over TCP/IP and over RDMA
 * SEND/RECV against the client-centric CAS/FAA design, on the simulator.
 */
package io.lockfabric.bench.experiment.designs;
