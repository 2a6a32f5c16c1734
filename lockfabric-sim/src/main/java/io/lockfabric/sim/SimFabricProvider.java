package io.lockfabric.sim;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricAddress;
import io.lockfabric.fabric.FabricProvider;

import java.util.List;
import java.util.Optional;

/**
 * Opens {@code sim[:cns=N,clients-per-cn=N,clients=N,mns=N,seed=N,mn-link-gbps=G,cn-latency-ratio=R,rpc-transport=T]}: a
 * {@link SimFabric} of {@code cns} compute nodes of {@code clients-per-cn} clients each (or
 * {@code clients} spread evenly over them), {@code mns} memory nodes, the memory nodes' link
 * bandwidth modelled at {@code mn-link-gbps} Gb/s ({@link SimConfig#mnLinkGbps()}; absent or 0:
 * not modelled), messages between compute nodes {@code cn-latency-ratio} times as slow as verbs to
 * the memory node ({@link SimConfig#cnLatencyRatio()}; absent: 1, one switch), rpcs carried by
 * {@code rpc-transport} ({@link SimConfig#rpcTransport()}: native, tcp, send-recv or erpc, the presets of
 * {@link RpcTransport}; absent: native), the hardware of testbed profile {@code testbed}
 * ({@link Testbed}; absent or {@code none}: none; {@code mn-link-gbps} and {@code cn-latency-ratio},
 * when given, override the profile's), everything else {@link SimConfig}'s defaults (the calibrated
 * testbed). As the command line builds it: one compute node of
 * {@value SimConfig#DEFAULT_CLIENTS_PER_CN} clients unless told otherwise. Found by
 * {@link io.lockfabric.fabric.Fabrics#open}.
 */
public final class SimFabricProvider implements FabricProvider {
    /** The address parameter of {@link SimConfig#mnLinkGbps()}. */
    public static final String MN_LINK_GBPS = "mn-link-gbps";
    /** The address parameter of {@link SimConfig#cnLatencyRatio()}. */
    public static final String CN_LATENCY_RATIO = "cn-latency-ratio";
    /** The address parameter of {@link SimConfig#rpcTransport()}. */
    public static final String RPC_TRANSPORT = "rpc-transport";
    /** The {@link RpcTransport} presets by name, as {@link #rpcTransport} reads them. */
    public static final List<RpcTransport> RPC_TRANSPORTS = List.of(RpcTransport.NATIVE, RpcTransport.TCP,
            RpcTransport.SEND_RECV, RpcTransport.ERPC);
    /** The address parameter naming a {@link Testbed} profile ({@code none}: the defaults). */
    public static final String TESTBED = "testbed";

    @Override
    public String scheme() {
        return "sim";
    }

    @Override
    public String usage() {
        return "sim[:cns=N,clients-per-cn=N,clients=N,mns=N,seed=N,mn-link-gbps=G,cn-latency-ratio=R,"
                + "rpc-transport=native|tcp|send-recv|erpc,testbed=NAME]";
    }

    @Override
    public List<String> parameters() {
        return List.of("cns", "clients-per-cn", "clients", "mns", "seed", MN_LINK_GBPS, CN_LATENCY_RATIO,
                RPC_TRANSPORT, TESTBED);
    }

    @Override
    public Fabric open(FabricAddress address) {
        return new SimFabric(config(address));
    }

    /** The cluster {@code address} describes (sim addresses only). */
    public SimConfig config(FabricAddress address) {
        if (!address.location().isEmpty()) {
            throw new IllegalArgumentException("fabric sim has no location: give " + usage() + ", not '" + address + "'");
        }
        address.checkParameters(parameters());
        int cns = address.intParameter("cns", SimConfig.DEFAULT_COMPUTE_NODES, 1, 1 << 16);
        int perCn;
        if (address.parameters().containsKey("clients-per-cn")) {
            perCn = address.intParameter("clients-per-cn", SimConfig.DEFAULT_CLIENTS_PER_CN, 1, 1 << 20);
            if (address.parameters().containsKey("clients")
                    && address.intParameter("clients", 0, 1, Integer.MAX_VALUE) != (long) cns * perCn) {
                throw new IllegalArgumentException("fabric sim: clients=" + address.parameter("clients", "")
                        + " disagrees with cns=" + cns + " x clients-per-cn=" + perCn + "; give one or the other");
            }
        } else if (address.parameters().containsKey("clients")) {
            int clients = address.intParameter("clients", 0, 1, Integer.MAX_VALUE);
            if (clients % cns != 0) {
                throw new IllegalArgumentException("fabric sim: " + clients + " clients do not fill " + cns
                        + " compute nodes evenly; give clients-per-cn");
            }
            perCn = clients / cns;
        } else {
            perCn = SimConfig.DEFAULT_CLIENTS_PER_CN;
        }
        SimConfig.Builder b = SimConfig.builder().computeNodes(cns).clientsPerComputeNode(perCn)
                .memoryNodes(address.intParameter("mns", 1, 1, 1024))
                .seed(address.longParameter("seed", SimConfig.defaults().seed(), Long.MIN_VALUE, Long.MAX_VALUE));
        Optional<Testbed> testbed = testbed(address.parameter(TESTBED, null), "fabric sim: " + TESTBED + "=");
        testbed.ifPresent(t -> t.apply(b));
        String link = address.parameter(MN_LINK_GBPS, null);
        if (link != null || testbed.isEmpty()) {
            b.mnLinkGbps(mnLinkGbps(link, "fabric sim: " + MN_LINK_GBPS + "="));
        }
        String ratio = address.parameter(CN_LATENCY_RATIO, null);
        if (ratio != null) {
            b.cnLatencyRatio(cnLatencyRatio(ratio, "fabric sim: " + CN_LATENCY_RATIO + "="));
        }
        String transport = address.parameter(RPC_TRANSPORT, null);
        if (transport != null) {
            b.rpcTransport(rpcTransport(transport, "fabric sim: " + RPC_TRANSPORT + "="));
        }
        return b.build();
    }

    /**
     * A testbed profile as given on a command line or in an address; empty for null (not given) and
     * {@code none}.
     *
     * @param where what an error message starts with ({@code "--testbed "})
     * @throws IllegalArgumentException naming the value and the valid names if it is no profile
     */
    public static Optional<Testbed> testbed(String text, String where) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Testbed.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + text + " is no testbed (one of "
                    + String.join(", ", Testbed.names()) + ")", e);
        }
    }

    /**
     * A memory-node link rate as given on a command line or in an address: Gb/s, a number in
     * [0, 1e6], 0 = not modelled; null = not given (0).
     *
     * @param text  the value given, or null
     * @param where what an error message starts with, before the value ({@code "--mn-link-gbps "})
     * @throws IllegalArgumentException naming the value if it is not one
     */
    public static double mnLinkGbps(String text, String where) {
        if (text == null) {
            return SimConfig.DEFAULT_MN_LINK_GBPS;
        }
        double v;
        try {
            v = Double.parseDouble(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + text + " is not a number of Gb/s", e);
        }
        if (!(v >= 0 && v <= 1e6)) {
            throw new IllegalArgumentException(where + text + " is not in [0, 1e6] Gb/s (0 = not modelled)");
        }
        return v;
    }

    /**
     * An rpc transport as given on a command line or in an address: the name of one of
     * {@link #RPC_TRANSPORTS} (native, tcp, send-recv, erpc; case and {@code _} for {@code -} do not matter).
     *
     * @param text  the value given
     * @param where what an error message starts with, before the value ({@code "--rpc-transport "})
     * @throws IllegalArgumentException naming the value and the known transports if it is not one
     */
    public static RpcTransport rpcTransport(String text, String where) {
        String name = text.strip().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        for (RpcTransport t : RPC_TRANSPORTS) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException(where + text + " is not an rpc transport; known: "
                + String.join(", ", RPC_TRANSPORTS.stream().map(RpcTransport::name).toList()));
    }

    /**
     * A CN-to-CN latency ratio as given on a command line or in an address: a number in
     * (0, {@value SimConfig#MAX_CN_LATENCY_RATIO}].
     *
     * @param text  the value given
     * @param where what an error message starts with, before the value ({@code "--cn-latency-ratio "})
     * @throws IllegalArgumentException naming the value if it is not one
     */
    public static double cnLatencyRatio(String text, String where) {
        double v;
        try {
            v = Double.parseDouble(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + text + " is not a number (CN-to-CN over CN-to-MN latency)", e);
        }
        if (!(v > 0 && v <= SimConfig.MAX_CN_LATENCY_RATIO)) {
            throw new IllegalArgumentException(where + text + " is not in (0, " + (long) SimConfig.MAX_CN_LATENCY_RATIO
                    + "] (CN-to-CN over CN-to-MN latency; 1 = one switch)");
        }
        return v;
    }
}
