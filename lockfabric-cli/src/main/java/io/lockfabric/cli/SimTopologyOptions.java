package io.lockfabric.cli;

import io.lockfabric.sim.SimConfig;
import picocli.CommandLine.Option;

/**
 * The simulated cluster's shape, shared by the commands that run on the sim fabric: compute nodes,
 * clients per compute node and memory nodes. Clients fill compute nodes in order.
 */
final class SimTopologyOptions {
    @Option(names = "--cns", paramLabel = "N",
            description = "Simulated compute nodes (sim fabric). Default: 1 for bench.")
    Integer computeNodes;

    @Option(names = "--clients-per-cn", paramLabel = "N",
            description = "Clients on each compute node (sim fabric); the clients are then --cns x this. "
                    + "Default: --clients spread over the compute nodes.")
    Integer clientsPerComputeNode;

    @Option(names = "--mns", paramLabel = "N",
            description = "Simulated memory nodes (sim fabric). Lock tables live on node 0, the critical "
                    + "sections' data on the last one. Default: 1.")
    Integer memoryNodes;

    /** Whether any of these options was given. */
    boolean anyGiven() {
        return computeNodes != null || clientsPerComputeNode != null || memoryNodes != null;
    }

    /**
     * The cluster for {@code explicitClients} clients (null if --clients was not given; then
     * {@code defaultClients}), checking the options agree.
     */
    SimConfig cluster(Integer explicitClients, int defaultClients, int defaultComputeNodes, long seed) {
        int cns = computeNodes == null ? defaultComputeNodes : computeNodes;
        if (cns < 1) {
            throw new BadInputException("--cns must be >= 1, got " + cns);
        }
        int perCn;
        if (clientsPerComputeNode != null) {
            perCn = clientsPerComputeNode;
            if (perCn < 1) {
                throw new BadInputException("--clients-per-cn must be >= 1, got " + perCn);
            }
            if (explicitClients != null && explicitClients != (long) cns * perCn) {
                throw new BadInputException("--clients " + explicitClients + " disagrees with --cns " + cns
                        + " x --clients-per-cn " + perCn + "; give one or the other");
            }
        } else {
            int clients = explicitClients == null ? defaultClients : explicitClients;
            if (clients < 1) {
                throw new BadInputException("--clients must be >= 1, got " + clients);
            }
            if (clients % cns != 0) {
                throw new BadInputException(clients + " clients do not fill " + cns
                        + " compute nodes evenly; give --clients-per-cn");
            }
            perCn = clients / cns;
        }
        int mns = memoryNodes == null ? 1 : memoryNodes;
        if (mns < 1) {
            throw new BadInputException("--mns must be >= 1, got " + mns);
        }
        return SimConfig.builder().computeNodes(cns).clientsPerComputeNode(perCn).memoryNodes(mns).seed(seed).build();
    }

    /** The options that rebuild {@code cluster}'s shape, for a replay command. */
    static String replay(SimConfig cluster) {
        return "--cns " + cluster.computeNodes() + " --clients-per-cn " + cluster.clientsPerComputeNode()
                + " --mns " + cluster.memoryNodes();
    }
}
