package io.lockfabric.cli;

import io.lockfabric.fabric.FabricAddress;
import io.lockfabric.sim.RpcTransport;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabricProvider;
import io.lockfabric.sim.Testbed;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The simulated cluster's shape, shared by the commands that run on the sim fabric: compute nodes,
 * clients per compute node and memory nodes, and whether the memory node's link bandwidth is
 * modelled ({@code --mn-link-gbps}), how much slower the CN-to-CN network is
 * ({@code --cn-latency-ratio}), what carries the rpc protocols' messages ({@code --rpc-transport}),
 * and the hardware of a paper's testbed ({@code --testbed}, a {@link Testbed} profile;
 * {@code --mn-link-gbps} and {@code --cn-latency-ratio} override its values).
 * Clients fill compute nodes in order. The same settings may come as parameters of a
 * {@code sim:...} fabric address ({@code cns}, {@code clients-per-cn}, {@code clients}, {@code mns},
 * {@code seed}, {@code mn-link-gbps}, {@code cn-latency-ratio}, {@code rpc-transport},
 * {@code testbed}); a setting given both ways must agree.
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

    @Option(names = "--mn-link-gbps", paramLabel = "GBPS",
            description = "Model the memory node's link bandwidth (sim fabric): one link per direction at GBPS "
                    + "Gb/s shared by every verb, so large READs and WRITEs queue at the link rate "
                    + "(DecLock's testbed: 100, ConnectX-4). Only the memory node's port; the compute nodes' "
                    + "NICs keep their per-verb cost. Default: 0, not modelled (verb rates only).")
    String mnLinkGbps;

    @Option(names = "--cn-latency-ratio", paramLabel = "R",
            description = "Make messages between compute nodes R times as slow as verbs to the memory node "
                    + "(sim fabric; one way over the network, DecLock Fig. 18's heterogeneous network). Messages "
                    + "within a compute node keep their time. Default: 1 (one switch).")
    String cnLatencyRatio;

    @Option(names = "--rpc-transport", paramLabel = "T",
            description = "What carries every rpc to the memory node's CPU on the sim fabric (the server-CPU "
                    + "protocols rpc, rpc-range, mt and llc, and any rpc another protocol makes), and its cost on top "
                    + "of the handler: native (default: nothing added, the "
                    + "simulator's plain rpcs); tcp (kernel TCP/IP sockets: 3333 ns of server CPU per message and "
                    + "3333 ns extra one way, from the rdma-dlm-designs report's 10^4 cycles per message at 3 GHz); "
                    + "send-recv (two-sided RDMA SEND/RECV: 333 ns of server CPU per message, the report's share "
                    + "outside the kernel); erpc (eRPC, NSDI'19, CITRON's RPC baseline: 50 ns per message, 10 M "
                    + "rpcs/s per core). One-sided verbs are not affected. Unknown values are an error.")
    String rpcTransport;

    @Option(names = "--testbed", paramLabel = "NAME",
            description = "Simulate a paper's testbed hardware (sim fabric): shiftlock (ConnectX-5, 100 Gb/s), "
                    + "declock (ConnectX-4, 100 Gb/s, 16 cores per compute node), citron (ConnectX-6 on PCIe 3.0 x16, "
                    + "18 eRPC threads on the memory node), or none. Each profile's values and their sources: the "
                    + "README's \"Testbed profiles\". The topology stays the command's. Default: none (the simulator's "
                    + "defaults).")
    String testbed;

    /**
     * The error for these options and {@code more} (the command's own sim-only options, e.g.
     * {@code --virtual-duration}) given on a fabric other than sim.
     */
    static BadInputException simOnly(String... more) {
        List<String> all = new ArrayList<>(List.of("--cns", "--clients-per-cn", "--mns", "--mn-link-gbps",
                "--cn-latency-ratio", "--rpc-transport", "--testbed"));
        all.addAll(List.of(more));
        return new BadInputException(String.join(", ", all.subList(0, all.size() - 1)) + " and " + all.getLast()
                + " apply to --fabric sim only");
    }

    /** Whether any of these options was given. */
    boolean anyGiven() {
        return computeNodes != null || clientsPerComputeNode != null || memoryNodes != null || mnLinkGbps != null
                || cnLatencyRatio != null || rpcTransport != null
                || testbed != null;
    }

    /**
     * The testbed of --testbed and of the address's {@code testbed}, which must agree; empty if
     * neither gives one, or {@code none}.
     */
    Optional<Testbed> testbed(FabricAddress address) {
        String fromAddress = address == null ? null : address.parameter(SimFabricProvider.TESTBED, null);
        try {
            Optional<Testbed> flag = SimFabricProvider.testbed(testbed, "--testbed ");
            if (fromAddress == null) {
                return flag;
            }
            Optional<Testbed> given = SimFabricProvider.testbed(fromAddress, "fabric sim: " + SimFabricProvider.TESTBED
                    + "=");
            if (testbed != null && !flag.equals(given)) {
                throw new BadInputException("--testbed " + testbed + " disagrees with " + SimFabricProvider.TESTBED + "="
                        + fromAddress + " in --fabric " + address.text() + "; give one or the other");
            }
            return given;
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /**
     * The cluster for {@code explicitClients} clients (null if --clients was not given; then
     * {@code defaultClients}), checking the options agree.
     */
    SimConfig cluster(Integer explicitClients, int defaultClients, int defaultComputeNodes, long seed) {
        return cluster(null, explicitClients, defaultClients, defaultComputeNodes, seed);
    }

    /**
     * The cluster of these options and of the parameters of {@code address} (a {@code sim:...}
     * address, or null), for {@code explicitClients} clients (null if --clients was not given;
     * then the address's {@code clients}, or {@code defaultClients}), checking they agree. The
     * cluster's seed is the address's {@code seed}, or {@code seed}.
     */
    SimConfig cluster(FabricAddress address, Integer explicitClients, int defaultClients, int defaultComputeNodes,
                      long seed) {
        Setting cnsGiven = Setting.of("--cns", computeNodes, address, "cns");
        Setting perCnGiven = Setting.of("--clients-per-cn", clientsPerComputeNode, address, "clients-per-cn");
        Setting clientsGiven = Setting.of("--clients", explicitClients, address, "clients");
        Setting mnsGiven = Setting.of("--mns", memoryNodes, address, "mns");
        int cns = cnsGiven.value() == null ? defaultComputeNodes : cnsGiven.value();
        if (cns < 1) {
            throw new BadInputException(cnsGiven.label() + " must be >= 1, got " + cns);
        }
        int perCn;
        if (perCnGiven.value() != null) {
            perCn = perCnGiven.value();
            if (perCn < 1) {
                throw new BadInputException(perCnGiven.label() + " must be >= 1, got " + perCn);
            }
            if (clientsGiven.value() != null && clientsGiven.value() != (long) cns * perCn) {
                throw new BadInputException(clientsGiven.label() + " " + clientsGiven.value() + " disagrees with "
                        + cnsGiven.label() + " " + cns + " x " + perCnGiven.label() + " " + perCn
                        + "; give one or the other");
            }
        } else {
            int clients = clientsGiven.value() == null ? defaultClients : clientsGiven.value();
            if (clients < 1) {
                throw new BadInputException(clientsGiven.label() + " must be >= 1, got " + clients);
            }
            if (clients % cns != 0) {
                throw new BadInputException(clients + " clients do not fill " + cns
                        + " compute nodes evenly; give " + perCnGiven.label());
            }
            perCn = clients / cns;
        }
        int mns = mnsGiven.value() == null ? 1 : mnsGiven.value();
        if (mns < 1) {
            throw new BadInputException(mnsGiven.label() + " must be >= 1, got " + mns);
        }
        long clusterSeed = seed;
        if (address != null) {
            try {
                clusterSeed = address.longParameter("seed", seed, Long.MIN_VALUE, Long.MAX_VALUE);
            } catch (IllegalArgumentException e) {
                throw new BadInputException(e.getMessage());
            }
        }
        SimConfig.Builder b = SimConfig.builder().computeNodes(cns).clientsPerComputeNode(perCn).memoryNodes(mns)
                .seed(clusterSeed);
        Optional<Testbed> profile = testbed(address);
        profile.ifPresent(t -> t.apply(b));
        boolean linkGiven = mnLinkGbps != null
                || (address != null && address.parameter(SimFabricProvider.MN_LINK_GBPS, null) != null);
        if (linkGiven || profile.isEmpty()) {
            b.mnLinkGbps(linkGbps(address));
        }
        Double ratio = latencyRatio(address);
        if (ratio != null) {
            b.cnLatencyRatio(ratio);
        }
        RpcTransport transport = transport(address);
        if (transport != null) {
            b.rpcTransport(transport);
        }
        return b.build();
    }

    /** The ratio of --cn-latency-ratio and of the address's {@code cn-latency-ratio}, which must agree; null if neither. */
    private Double latencyRatio(FabricAddress address) {
        String key = SimFabricProvider.CN_LATENCY_RATIO;
        String fromAddress = address == null ? null : address.parameter(key, null);
        try {
            Double flag = cnLatencyRatio == null ? null
                    : SimFabricProvider.cnLatencyRatio(cnLatencyRatio, "--cn-latency-ratio ");
            if (fromAddress == null) {
                return flag;
            }
            double given = SimFabricProvider.cnLatencyRatio(fromAddress, "fabric sim: " + key + "=");
            if (flag != null && flag != given) {
                throw new BadInputException("--cn-latency-ratio " + cnLatencyRatio + " disagrees with " + key + "="
                        + fromAddress + " in --fabric " + address.text() + "; give one or the other");
            }
            return given;
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /** The transport of --rpc-transport and of the address's {@code rpc-transport}, which must agree; null if neither. */
    private RpcTransport transport(FabricAddress address) {
        String key = SimFabricProvider.RPC_TRANSPORT;
        String fromAddress = address == null ? null : address.parameter(key, null);
        try {
            RpcTransport flag = rpcTransport == null ? null
                    : SimFabricProvider.rpcTransport(rpcTransport, "--rpc-transport ");
            if (fromAddress == null) {
                return flag;
            }
            RpcTransport given = SimFabricProvider.rpcTransport(fromAddress, "fabric sim: " + key + "=");
            if (flag != null && !flag.equals(given)) {
                throw new BadInputException("--rpc-transport " + rpcTransport + " disagrees with " + key + "="
                        + fromAddress + " in --fabric " + address.text() + "; give one or the other");
            }
            return given;
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /** The memory node's link rate of --mn-link-gbps and of the address's {@code mn-link-gbps}, which must agree. */
    private double linkGbps(FabricAddress address) {
        String fromAddress = address == null ? null : address.parameter(SimFabricProvider.MN_LINK_GBPS, null);
        try {
            double flag = SimFabricProvider.mnLinkGbps(mnLinkGbps, "--mn-link-gbps ");
            if (fromAddress == null) {
                return flag;
            }
            double given = SimFabricProvider.mnLinkGbps(fromAddress, "fabric sim: " + SimFabricProvider.MN_LINK_GBPS + "=");
            if (mnLinkGbps != null && flag != given) {
                throw new BadInputException("--mn-link-gbps " + mnLinkGbps + " disagrees with "
                        + SimFabricProvider.MN_LINK_GBPS + "=" + fromAddress + " in --fabric " + address.text()
                        + "; give one or the other");
            }
            return given;
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /**
     * The parameters of a sim address that give {@code cluster}, for {@link FabricChoice#open}: what
     * the address does not say itself comes from them, so the fabric opened is {@code cluster}.
     */
    static Map<String, String> parameters(SimConfig cluster) {
        return parameters(cluster, Optional.empty());
    }

    /** As {@link #parameters(SimConfig)}, with {@code testbed}'s hardware under the cluster's own values. */
    static Map<String, String> parameters(SimConfig cluster, Optional<Testbed> testbed) {
        Map<String, String> p = new LinkedHashMap<>();
        testbed.ifPresent(t -> p.put(SimFabricProvider.TESTBED, t.cliName()));
        p.put("cns", Integer.toString(cluster.computeNodes()));
        p.put("clients-per-cn", Integer.toString(cluster.clientsPerComputeNode()));
        p.put("mns", Integer.toString(cluster.memoryNodes()));
        p.put("seed", Long.toString(cluster.seed()));
        if (cluster.mnLinkModelled()) {
            p.put(SimFabricProvider.MN_LINK_GBPS, Double.toString(cluster.mnLinkGbps()));
        }
        if (cluster.cnLatencyScaled()) {
            p.put(SimFabricProvider.CN_LATENCY_RATIO, Double.toString(cluster.cnLatencyRatio()));
        }
        if (!cluster.rpcTransport().equals(RpcTransport.NATIVE)) {
            p.put(SimFabricProvider.RPC_TRANSPORT, cluster.rpcTransport().name());
        }
        return p;
    }

    /**
     * A setting given by a flag, by the fabric address's parameter, or by neither (null); its label
     * names where it came from, for errors.
     */
    private record Setting(String label, Integer value) {
        static Setting of(String flag, Integer flagValue, FabricAddress address, String parameter) {
            if (address == null || !address.parameters().containsKey(parameter)) {
                return new Setting(flag, flagValue);
            }
            int fromAddress;
            try {
                fromAddress = address.intParameter(parameter, 0, Integer.MIN_VALUE, Integer.MAX_VALUE);
            } catch (IllegalArgumentException e) {
                throw new BadInputException(e.getMessage());
            }
            if (flagValue != null && flagValue != fromAddress) {
                throw new BadInputException(flag + " " + flagValue + " disagrees with " + parameter + "=" + fromAddress
                        + " in --fabric " + address.text() + "; give one or the other");
            }
            return new Setting(parameter + " (in --fabric " + address.text() + ")", fromAddress);
        }
    }

    /** {@code " --testbed NAME"} for a replay command, or nothing. */
    static String replayTestbed(Optional<Testbed> testbed) {
        return testbed.map(t -> " --testbed " + t.cliName()).orElse("");
    }

    /** {@code ", testbed NAME"} for a report's setup line, or nothing. */
    static String testbedNote(Optional<Testbed> testbed) {
        return testbed.map(t -> ", testbed " + t.cliName()).orElse("");
    }

    /** The options that rebuild {@code cluster}'s shape, for a replay command. */
    static String replay(SimConfig cluster) {
        return "--cns " + cluster.computeNodes() + " --clients-per-cn " + cluster.clientsPerComputeNode()
                + " --mns " + cluster.memoryNodes()
                + (cluster.mnLinkModelled() ? " --mn-link-gbps " + linkText(cluster.mnLinkGbps()) : "")
                + (cluster.cnLatencyScaled() ? " --cn-latency-ratio " + linkText(cluster.cnLatencyRatio()) : "")
                + (cluster.rpcTransport().equals(RpcTransport.NATIVE) ? ""
                        : " --rpc-transport " + cluster.rpcTransport().name());
    }

    /**
     * For a report's setup line: {@code ", MN link 100 Gb/s"} when the link is modelled, and
     * {@code ", CN-to-CN latency 4x"} when that is scaled, and {@code ", rpcs over tcp"} for an rpc
     * transport other than native; else nothing.
     */
    static String linkNote(SimConfig cluster) {
        return (cluster.mnLinkModelled() ? ", MN link " + linkText(cluster.mnLinkGbps()) + " Gb/s" : "")
                + (cluster.cnLatencyScaled() ? ", CN-to-CN latency " + linkText(cluster.cnLatencyRatio()) + "x" : "")
                + (cluster.rpcTransport().equals(RpcTransport.NATIVE) ? ""
                        : ", rpcs over " + cluster.rpcTransport().name());
    }

    /** A link rate as a replay command gives it: 100, not 100.0. */
    private static String linkText(double gbps) {
        return gbps == Math.rint(gbps) && Math.abs(gbps) < 1e15 ? Long.toString((long) gbps) : Double.toString(gbps);
    }
}
