package io.lockfabric.sim;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * A named testbed profile: the simulator's hardware parameters set as one paper's testbed had them
 * ({@code --testbed NAME}). A profile sets only per-node hardware (NICs, links, cores, the memory
 * node's rpc threads); the topology (compute nodes, clients per node) stays the experiment's or the
 * command line's. Every value a profile sets comes from what the paper states about its hardware or
 * from a public datasheet or specification, never from fitting the result being reproduced; each
 * {@link Setting} names its source. A parameter no source gives keeps the simulator's default
 * ({@link SimConfig}), and the profile says so in {@link #keptDefaults()}.
 *
 * <p>The simulator's defaults themselves model ShiftLock's testbed (ConnectX-5, one InfiniBand
 * switch): the network and the same-word serialization are calibrated on ShiftLock's own §2.3
 * microbenchmark (see {@link SimConfig}); the other NIC service times are plausible values, not
 * measured ones.
 *
 * <ul>
 *   <li>{@link #SHIFTLOCK}: ShiftLock (FAST'25) §4.1: one lock server and five client machines,
 *       each with two 24-core Xeon E5-2650v4 and a ConnectX-5 100 Gb/s RNIC, a Mellanox QM8790
 *       InfiniBand switch; "a client on each core".</li>
 *   <li>{@link #DECLOCK}: DecLock (arXiv 2505.17641) §6 "Testbed": logical nodes of one CPU and one
 *       ConnectX-4 100 Gb/s RNIC each, one Mellanox 100 Gb/s switch; "each CN dedicates 16 cores to
 *       running application clients. Each core runs multiple clients as coroutines".</li>
 *   <li>{@link #CITRON}: CITRON (FAST'23) §4.1: one lock server and three client machines, each
 *       with two Xeon Gold 5220 and a ConnectX-6 RNIC on PCIe 3.0 x16, a Mellanox QM8790 switch;
 *       18 eRPC server threads for the server-CPU baselines; up to 64 client threads per machine,
 *       hyperthreading on.</li>
 * </ul>
 */
public enum Testbed {
    /**
     * ShiftLock's testbed (FAST'25 §4.1, ConnectX-5). Sets:
     * <ul>
     *   <li>{@code networkOneWayNs} = 900, {@code networkJitterNs} = 100, {@code cnMessageOneWayNs}
     *       = 900: the simulator's defaults, calibrated on ShiftLock §2.3 (240 clients, one CAS
     *       lock, the ideal case's 278.3 Kops/s), within the paper's "≤ 2 µs network RTT" (§1);
     *       CN-to-CN messages cross the same single switch (§4.1).</li>
     *   <li>{@code sameWordSerialNs} = 270: the default, calibrated on ShiftLock §2.3's CAS retried
     *       at once (15.5 Kops/s, 99.4% retries) on this ConnectX-5.</li>
     *   <li>{@code mnLinkGbps} = 100 and {@code nicNsPerByte} = 0.08: §4.1, "a Mellanox ConnectX-5
     *       100 Gbps RNIC" (100 Gb/s is the EDR data rate after 64b/66b coding).</li>
     *   <li>{@code cnCores} = 48: §4.1, "two 24-core Intel Xeon E5-2650v4 CPUs"; "each client machine
     *       runs a client on each core", so the paper's 48 clients per compute node never share a
     *       core.</li>
     * </ul>
     * Kept defaults: the compute-node NIC, the per-kind verb service times and NIC units (the paper
     * gives no per-verb rate for ConnectX-5), client CPU per verb and message, the memory node's
     * rpc cores and service time (the paper runs no server-CPU lock baseline; its Redis runs 16 I/O
     * threads, a separate server), clock drift (ShiftLock's δ = 1e-4 is already the default).
     */
    SHIFTLOCK("shiftlock", "ShiftLock (FAST'25) §4.1: ConnectX-5 100 Gb/s, one QM8790 InfiniBand switch, "
            + "2 x 24-core E5-2650v4 per machine, one client per core", List.of(
            new Setting("networkOneWayNs", "900",
                    "ShiftLock §2.3 calibration (SimConfig javadoc): ideal handover 294 vs 278.3 Kops/s; "
                            + "within §1's '<= 2 us network RTT'", b -> b.networkOneWayNs(900)),
            new Setting("networkJitterNs", "100", "ShiftLock §2.3 calibration (SimConfig javadoc)",
                    b -> b.networkJitterNs(100)),
            new Setting("cnMessageOneWayNs", "900", "ShiftLock §4.1: every machine on one QM8790 switch, "
                    + "so CN-to-CN crosses the same network as CN-to-MN", b -> b.cnMessageOneWayNs(900)),
            new Setting("sameWordSerialNs", "270", "ShiftLock §2.3 calibration on its ConnectX-5: CAS retried "
                    + "at once, 15.5 Kops/s and 99.4% retries (SimConfig javadoc: 15.4 Kops/s, 99.6%)",
                    b -> b.sameWordSerialNs(270)),
            new Setting("mnLinkGbps", "100", "ShiftLock §4.1: 'a Mellanox ConnectX-5 100 Gbps RNIC'",
                    b -> b.mnLinkGbps(100)),
            new Setting("nicNsPerByte", "0.08", "ShiftLock §4.1: 100 Gb/s RNIC = 0.08 ns per byte",
                    b -> b.nicNsPerByte(0.08)),
            new Setting("cnCores", "48", "ShiftLock §4.1: 'two 24-core Intel Xeon E5-2650v4 CPUs' per machine, "
                    + "'a client on each core'", b -> b.cnCores(48))),
            List.of("cnNicUnits", "cnNicServiceNs", "intraCnMessageNs", "nicUnits", "readServiceNs",
                    "writeServiceNs", "atomicServiceNs", "atomic128ServiceNs", "clientVerbCpuNs",
                    "clientMessageCpuNs", "mnCpuCores", "rpcServiceNs", "rpcTransport", "clockDrift")),

    /**
     * DecLock's testbed (arXiv 2505.17641 §6, ConnectX-4). Sets:
     * <ul>
     *   <li>{@code mnLinkGbps} = 100 ({@link SimConfig#DECLOCK_TESTBED_MN_LINK_GBPS}) and
     *       {@code nicNsPerByte} = 0.08: §6, "two ConnectX-4 100 Gbps RDMA NICs" per machine, one per
     *       logical node, "connected to a Mellanox 100 Gbps switch".</li>
     *   <li>{@code cnMessageOneWayNs} = {@code networkOneWayNs}: §6, all RNICs on one switch, "forming
     *       a unified network" (Appendix C's slower CN-CN network is its own experiment).</li>
     *   <li>{@code cnCores} = 16: §6, "Each CN dedicates 16 cores to running application clients.
     *       Each core runs multiple clients as coroutines": the 32 clients per CN of its experiments
     *       take turns, two per core.</li>
     * </ul>
     * Kept defaults: the network latency (the paper gives only "one RDMA READ (typically less than 3
     * µs)" ("Synchronized time"), an upper bound the default's ≈ 2.3 µs meets), the same-word serialization and the
     * per-kind verb service times and units (no ConnectX-4 atomic or verb rate in the paper or in a
     * source checked here), the compute-node NIC, client CPU per verb and message, the memory node's
     * rpc cores (DecLock runs no server-CPU baseline), clock drift.
     */
    DECLOCK("declock", "DecLock (arXiv 2505.17641) §6: ConnectX-4 100 Gb/s, one 100 Gb/s switch, "
            + "16 cores per CN running clients as coroutines", List.of(
            new Setting("cnMessageOneWayNs", String.valueOf(SimConfig.DEFAULT_NETWORK_ONE_WAY_NS),
                    "DecLock §6: all RNICs on one Mellanox switch, 'a unified network'",
                    b -> b.cnMessageOneWayNs(SimConfig.DEFAULT_NETWORK_ONE_WAY_NS)),
            new Setting("mnLinkGbps", "100", "DecLock §6: 'two ConnectX-4 100 Gbps RDMA NICs', one per logical "
                    + "node, the MN included", b -> b.mnLinkGbps(SimConfig.DECLOCK_TESTBED_MN_LINK_GBPS)),
            new Setting("nicNsPerByte", "0.08", "DecLock §6: 100 Gb/s RNIC = 0.08 ns per byte",
                    b -> b.nicNsPerByte(0.08)),
            new Setting("cnCores", "16", "DecLock §6: 'Each CN dedicates 16 cores to running application clients. "
                    + "Each core runs multiple clients as coroutines'", b -> b.cnCores(16))),
            List.of("networkOneWayNs", "networkJitterNs", "intraCnMessageNs", "cnNicUnits", "cnNicServiceNs",
                    "nicUnits", "readServiceNs", "writeServiceNs", "atomicServiceNs", "atomic128ServiceNs",
                    "sameWordSerialNs", "clientVerbCpuNs", "clientMessageCpuNs", "mnCpuCores", "rpcServiceNs",
                    "rpcTransport", "clockDrift")),

    /**
     * CITRON's testbed (FAST'23 §4.1, ConnectX-6). Sets:
     * <ul>
     *   <li>{@code mnCpuCores} = 18: §4.1, "the server machine runs 18 RPC server threads when
     *       evaluating baselines of type I".</li>
     *   <li>{@code rpcTransport} = {@link RpcTransport#ERPC}: §4.1, the type-I baselines "accept
     *       clients' requests using eRPC"; eRPC's per-message CPU from its paper (Kalia et al.,
     *       NSDI'19: "up to 10 million small RPCs per second" per core), see {@link RpcTransport#ERPC}.</li>
     *   <li>{@code mnLinkGbps} = 115 and {@code nicNsPerByte} = 8 / 115: §4.1, the ConnectX-6 sits on
     *       "PCIe 3.0 x16": 16 lanes × 8 GT/s × 128/130 = 126 Gb/s (PCIe 3.0 base specification), and
     *       each 256-byte TLP payload (the common maximum payload size) carries about 24 bytes of
     *       header, sequence number, LCRC and framing, so about 126 × 256 / 280 = 115 Gb/s of data
     *       reaches memory: below the QM8790's 200 Gb/s HDR ports (NVIDIA QM8700/QM8790 datasheet), so
     *       the bound on the memory node's bytes (the figure {@code citron-fig8} and
     *       {@code citron-table2} already use).</li>
     *   <li>{@code cnMessageOneWayNs} = {@code networkOneWayNs}: §4.1, every machine on one QM8790
     *       switch; §3 (T_wait): "the RDMA RTT is around 2 µs", which the default network meets.</li>
     *   <li>{@code cnCores} = 36: two Xeon Gold 5220 of 18 cores each (Intel's product specification;
     *       §4.1 names the CPU and its 2.20 GHz). The paper runs "up to 64 worker threads in each
     *       client machine, each thread on a separate logical core" with hyperthreading on; the
     *       simulator has no SMT model, so two hyperthreads of one physical core take turns on it (a
     *       pessimistic reading: real siblings overlap in part). Its 96 clients on 3 machines (32
     *       each) never share a core; past 108 clients they do.</li>
     * </ul>
     * Kept defaults: the per-kind verb service times, NIC units and same-word serialization (§1 quotes
     * the ConnectX-6 datasheet's 215 M packets/s, a packet rate rather than a one-sided verb service
     * rate, and no source here measures ConnectX-6 atomics), the network latency, the compute-node
     * NIC, client CPU per verb and message, the rpc service time (the paper gives no per-request CPU
     * cost of its baselines), clock drift.
     */
    CITRON("citron", "CITRON (FAST'23) §4.1: ConnectX-6 on PCIe 3.0 x16, one QM8790 switch, 18 eRPC "
            + "server threads, 2 x 18-core Xeon Gold 5220 per client machine", List.of(
            new Setting("mnCpuCores", "18", "CITRON §4.1: 'the server machine runs 18 RPC server threads'",
                    b -> b.mnCpuCores(18)),
            new Setting("rpcTransport", "erpc", "CITRON §4.1: type-I baselines use eRPC; eRPC (NSDI'19): "
                    + "10 M small RPCs/s per core, 50 ns per message", b -> b.rpcTransport(RpcTransport.ERPC)),
            new Setting("cnMessageOneWayNs", String.valueOf(SimConfig.DEFAULT_NETWORK_ONE_WAY_NS),
                    "CITRON §4.1: all machines on one QM8790 switch",
                    b -> b.cnMessageOneWayNs(SimConfig.DEFAULT_NETWORK_ONE_WAY_NS)),
            new Setting("mnLinkGbps", "115", "CITRON §4.1: ConnectX-6 'via PCIe 3.0 x16': 16 x 8 GT/s x "
                    + "128/130 = 126 Gb/s (PCIe 3.0 spec), x 256/280 for TLP overhead = 115 Gb/s of data, below "
                    + "the QM8790's 200 Gb/s HDR ports", b -> b.mnLinkGbps(Testbed.CITRON_PCIE_DATA_GBPS)),
            new Setting("nicNsPerByte", "0.0696", "the same 115 Gb/s bound: 8 / 115 ns per byte",
                    b -> b.nicNsPerByte(8 / Testbed.CITRON_PCIE_DATA_GBPS)),
            new Setting("cnCores", "36", "CITRON §4.1: two Xeon Gold 5220 per client machine, 18 cores each "
                    + "(Intel spec); hyperthread siblings modelled as taking turns (no SMT model)",
                    b -> b.cnCores(36))),
            List.of("networkOneWayNs", "networkJitterNs", "intraCnMessageNs", "cnNicUnits", "cnNicServiceNs",
                    "nicUnits", "readServiceNs", "writeServiceNs", "atomicServiceNs", "atomic128ServiceNs",
                    "sameWordSerialNs", "clientVerbCpuNs", "clientMessageCpuNs", "rpcServiceNs", "clockDrift"));

    /**
     * The data rate of CITRON's ConnectX-6 on PCIe 3.0 x16, Gb/s: 16 lanes x 8 GT/s x 128/130 = 126
     * (PCIe 3.0 base specification), x 256/280 for each 256-byte TLP's 24 bytes of overhead = 115.
     */
    public static final double CITRON_PCIE_DATA_GBPS = 115;

    /**
     * One parameter a profile sets.
     *
     * @param parameter the {@link SimConfig} component it sets
     * @param value     the value, as shown
     * @param source    where the value comes from (paper section, datasheet, specification)
     * @param apply     sets it on a builder
     */
    public record Setting(String parameter, String value, String source, Consumer<SimConfig.Builder> apply) {
        public Setting {
            Objects.requireNonNull(parameter, "parameter");
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(apply, "apply");
        }
    }

    private final String cliName;
    private final String description;
    private final List<Setting> settings;
    private final List<String> keptDefaults;

    Testbed(String cliName, String description, List<Setting> settings, List<String> keptDefaults) {
        this.cliName = cliName;
        this.description = description;
        this.settings = List.copyOf(settings);
        this.keptDefaults = List.copyOf(keptDefaults);
    }

    /** The name {@code --testbed} takes. */
    public String cliName() {
        return cliName;
    }

    /** One line: the paper, its NICs and its cores. */
    public String description() {
        return description;
    }

    /** What the profile sets, each with its source, in the order applied. */
    public List<Setting> settings() {
        return settings;
    }

    /** The {@link SimConfig} parameters no source gives: they keep the simulator's defaults. */
    public List<String> keptDefaults() {
        return keptDefaults;
    }

    /** Sets this testbed's hardware on {@code builder} (topology and seed untouched); returns it. */
    public SimConfig.Builder apply(SimConfig.Builder builder) {
        for (Setting s : settings) {
            s.apply().accept(builder);
        }
        return builder;
    }

    /** {@code config} with this testbed's hardware. */
    public SimConfig applyTo(SimConfig config) {
        return apply(config.toBuilder()).build();
    }

    /** The names {@code --testbed} takes, {@code none} first. */
    public static List<String> names() {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(NONE),
                Arrays.stream(values()).map(Testbed::cliName)).toList();
    }

    /** The name that selects no profile (the simulator's defaults). */
    public static final String NONE = "none";

    /**
     * The profile named {@code name}; empty for {@code none}.
     *
     * @throws IllegalArgumentException for any other name, listing the valid ones
     */
    public static Optional<Testbed> parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        if (n.equals(NONE)) {
            return Optional.empty();
        }
        for (Testbed t : values()) {
            if (t.cliName.equals(n)) {
                return Optional.of(t);
            }
        }
        throw new IllegalArgumentException("unknown testbed '" + name + "' (one of "
                + String.join(", ", names()) + ")");
    }

    /** Every setting as {@code parameter=value}, comma-separated (for setup lines). */
    public String summary() {
        return settings.stream().map(s -> s.parameter() + "=" + s.value()).collect(Collectors.joining(", "));
    }
}
