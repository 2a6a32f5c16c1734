package io.lockfabric.sim;

/**
 * The simulated cluster: topology, network, the compute nodes' and the memory node's RNICs, the
 * memory node's CPU, client costs and clocks. All times in nanoseconds of virtual time; every value
 * is configurable.
 *
 * <p>Model ({@code spec/verbs-and-rnic.md}):
 * <ul>
 *   <li>A verb leaves its client after {@code clientVerbCpuNs}, passes its compute node's NIC (one
 *       of {@code cnNicUnits} units for {@code cnNicServiceNs}; the node's clients share them),
 *       crosses the network in {@code networkOneWayNs} + uniform [0, {@code networkJitterNs}],
 *       queues at the memory node's NIC for one of {@code nicUnits} processing units, is served for
 *       its kind's service time (plus payload at {@code nicNsPerByte}), and its reply crosses back
 *       and passes the compute node's NIC again.</li>
 *   <li>Accesses that an RNIC cannot run in parallel on one 8-byte word (atomics and writes) are
 *       serialized per word in arrival order: each holds the word for {@code sameWordSerialNs}.</li>
 *   <li>Messages between clients pass both compute nodes' NICs and take {@code cnMessageOneWayNs};
 *       between clients of one compute node, {@code intraCnMessageNs} (ShiftLock compensates
 *       intra-node messages with 1 µs).</li>
 *   <li>rpcs are served by {@code mnCpuCores} cores, {@code rpcServiceNs} each; an
 *       {@link RpcTransport} other than {@link RpcTransport#NATIVE} (the default) adds server CPU per
 *       message and latency per message (the report's TCP and SEND/RECV lock managers).</li>
 *   <li>Each client's clock runs at rate 1 + u·{@code clockDrift}, u uniform in [−1, 1].</li>
 *   <li>Bandwidth, when {@code mnLinkGbps} &gt; 0 (off by default: then only the per-byte service
 *       time above charges for bytes, on each of the {@code nicUnits} units in parallel, so the
 *       port's bandwidth is not a shared resource): the memory node's port is one link per
 *       direction at {@code mnLinkGbps}, shared by every verb and rpc. A request's bytes (a
 *       WRITE's payload, an atomic's operands, headers) cross the inbound link, in arrival order,
 *       before a unit takes the verb; a reply's bytes (a READ's data, an atomic's old value, a
 *       WRITE's acknowledgement) cross the outbound link, in completion order, after the unit
 *       served it. Each message costs its payload plus per-packet and per-message headers
 *       ({@link #MN_LINK_PACKET_HEADER_BYTES}, packets of {@link #MN_LINK_MTU_BYTES}), so large
 *       transfers queue behind each other at the link rate. Only the memory node's port: the
 *       compute nodes' NICs keep their per-pass cost, and client-to-client messages cost no
 *       bandwidth. DecLock's testbed: {@link #DECLOCK_TESTBED_MN_LINK_GBPS}.</li>
 *   <li>Compute-node cores, when {@code cnCores} &gt; 0 (off by default: every client has a core of
 *       its own): each compute node has {@code cnCores} cores, and its clients run on them as
 *       coroutines (DecLock §6: "Each core runs multiple clients as coroutines"). A client's CPU
 *       work, the {@code clientVerbCpuNs} of each verb it posts (one after another for a batch) and
 *       the {@code clientMessageCpuNs} of each message it sends, waits for the node's earliest free
 *       core and holds it; waiting (a verb in flight, a sleep or backoff, a message wait) holds none.
 *       With more clients than cores the CPU work runs in turns ({@link ComputeNodeCores}). Nothing
 *       else a client does costs CPU in the model (receiving a message, the workload's own
 *       bookkeeping, critical sections, which are remote verbs or sleeps).</li>
 *   <li>A slower CN-to-CN network (DecLock Appendix C, Fig. 18: a heterogeneous network where
 *       CN-CN communication has higher latency than CN-MN communication): {@link #cnLatencyRatio()}
 *       is {@code cnMessageOneWayNs} over {@code networkOneWayNs}, 1 by default (one switch);
 *       {@link Builder#cnLatencyRatio} sets it. Only messages between compute nodes slow down;
 *       verbs to the memory node and messages within a compute node keep their times.</li>
 * </ul>
 *
 * <p>Testbed profiles ({@link Testbed}: {@code shiftlock}, {@code declock}, {@code citron}) set the
 * hardware values each paper states on top of these defaults, each with its source.
 *
 * <p>Calibration. The defaults model the ShiftLock testbed (§4.1: ConnectX-5 100 Gb/s RNICs, one
 * InfiniBand switch) and are calibrated on its §2.3 experiment, {@code lockfabric reproduce
 * shiftlock-2.3}: 240 clients (5 compute nodes × 48) acquire and at once release one CAS lock.
 * <ul>
 *   <li>{@code networkOneWayNs} = 900 (+ up to 100 jitter), with {@code clientVerbCpuNs} = 100 and
 *       the compute-node NIC, against the ideal case with no retries, 278.3 Kops/s: a contended
 *       handover there is three one-way trips (the woken waiter's CAS out, its reply back, its
 *       release out) plus CPU, NIC and service time, ≈ 3.4 µs, so 294 Kops/s (+6%). The same values
 *       give an uncontended 16-byte masked atomic of 2.29 µs against ShiftLock Table 3's initial
 *       atomic of 2.05 µs at 5 clients (+11%), and a round trip within the paper's "≤ 2 µs network
 *       RTT" plus CPU and NIC time. CN-to-CN messages cross the same switch:
 *       {@code cnMessageOneWayNs} = {@code networkOneWayNs}.</li>
 *   <li>{@code sameWordSerialNs} = 270 (≈ 3.7 M atomics/s on one address) against CAS retried at
 *       once, 15.5 Kops/s with 99.4% of the CAS received being retries: every client keeps one CAS
 *       queued on the word, so a release waits behind the other 239, a handover costs
 *       240 × 270 ns ≈ 65 µs: 15.4 Kops/s (−1%) and 99.6% retries.</li>
 *   <li>Not calibrated, set to plausible values: the compute-node NIC ({@code cnNicUnits} = 4,
 *       {@code cnNicServiceNs} = 60 per work request or completion: tens of millions of passes a
 *       second, so it queues only when a node's clients burst), the memory node's NIC units and
 *       per-kind service times (READ &lt; WRITE &lt; atomic &lt; 16-byte atomic, 100 Gb/s payload), client
 *       CPU per verb and per message, the memory node's CPU for rpcs, clock drift (ShiftLock's
 *       δ = 1e-4).</li>
 *   <li>Known gap: CAS with SMART's truncated exponential backoff runs at ≈ 334 Kops/s with 79% of
 *       the CAS retried, against the paper's 141.4 Kops/s and 87.1%. Its steady state hardly moves
 *       with {@code sameWordSerialNs} (270–450), the jitter, the split between network and CPU
 *       time, or even an implausibly slow compute-node NIC (one unit of 800 ns: 229 Kops/s, still
 *       79%): in the model a handover with backoff costs about one round trip plus the wait for
 *       the next CAS, less than the ideal's one and a half. The paper's numbers imply a handover of
 *       7.1 µs, twice the ideal's, while its memory node serves the word at half the rate it
 *       sustains without backoff, so queueing at a shared resource cannot be the cause; the
 *       artifact's harness also adapts the backoff only once per 64 operations, so a 10 s run
 *       spends seconds in the start-up collapse (so modelled over 10 s: 202 Kops/s, 92%).</li>
 * </ul>
 */
public record SimConfig(
        int computeNodes,
        int clientsPerComputeNode,
        int memoryNodes,
        long seed,
        long networkOneWayNs,
        long networkJitterNs,
        long cnMessageOneWayNs,
        long intraCnMessageNs,
        long clientVerbCpuNs,
        long clientMessageCpuNs,
        int cnNicUnits,
        long cnNicServiceNs,
        int nicUnits,
        long readServiceNs,
        long writeServiceNs,
        long atomicServiceNs,
        long atomic128ServiceNs,
        double nicNsPerByte,
        long sameWordSerialNs,
        int mnCpuCores,
        long rpcServiceNs,
        double clockDrift,
        long memoryBytesPerNode,
        double mnLinkGbps,
        RpcTransport rpcTransport,
        int cnCores) {

    public static final int DEFAULT_COMPUTE_NODES = 1;
    public static final int DEFAULT_CLIENTS_PER_CN = 8;
    public static final long DEFAULT_NETWORK_ONE_WAY_NS = 900;
    public static final long DEFAULT_NETWORK_JITTER_NS = 100;
    public static final long DEFAULT_CN_MESSAGE_ONE_WAY_NS = DEFAULT_NETWORK_ONE_WAY_NS;
    public static final long DEFAULT_INTRA_CN_MESSAGE_NS = 1_000;
    public static final long DEFAULT_CLIENT_VERB_CPU_NS = 100;
    public static final long DEFAULT_CLIENT_MESSAGE_CPU_NS = 200;
    public static final int DEFAULT_CN_NIC_UNITS = 4;
    public static final long DEFAULT_CN_NIC_SERVICE_NS = 60;
    public static final int DEFAULT_NIC_UNITS = 16;
    public static final long DEFAULT_READ_SERVICE_NS = 60;
    public static final long DEFAULT_WRITE_SERVICE_NS = 70;
    public static final long DEFAULT_ATOMIC_SERVICE_NS = 100;
    public static final long DEFAULT_ATOMIC128_SERVICE_NS = 160;
    public static final double DEFAULT_NIC_NS_PER_BYTE = 0.08; // 100 Gb/s
    public static final long DEFAULT_SAME_WORD_SERIAL_NS = 270;
    public static final int DEFAULT_MN_CPU_CORES = 4;
    public static final long DEFAULT_RPC_SERVICE_NS = 1_500;
    public static final double DEFAULT_CLOCK_DRIFT = 1e-4;
    public static final long DEFAULT_MEMORY_BYTES_PER_NODE = 4L << 30;
    /** The memory node's link is not modelled by default ({@code mnLinkGbps} = 0): runs as before it existed. */
    public static final double DEFAULT_MN_LINK_GBPS = 0;
    /** Compute-node cores are not modelled by default ({@code cnCores} = 0): every client has a core of its own. */
    public static final int DEFAULT_CN_CORES = 0;
    /** The largest {@link Builder#cnLatencyRatio} taken. */
    public static final double MAX_CN_LATENCY_RATIO = 1000;
    /**
     * The memory node's link rate on DecLock's testbed, Gb/s: DecLock §6 ("Testbed"): "two
     * ConnectX-4 100 Gbps RDMA NICs" per machine, "connected to a Mellanox 100 Gbps switch"; each
     * logical node, the memory node included, has one RNIC. 100 Gb/s is the data rate after line
     * coding (EDR InfiniBand: 4 lanes of 25.78125 Gbaud, 64b/66b; 100 GbE the same), the rate
     * {@code mnLinkGbps} takes. The paper does not say whether the fabric is InfiniBand or RoCE;
     * the link model's per-packet headers are InfiniBand's (see {@link #MN_LINK_PACKET_HEADER_BYTES}).
     */
    public static final double DECLOCK_TESTBED_MN_LINK_GBPS = 100;
    /**
     * Bytes of payload per packet on the memory node's link: InfiniBand's largest path MTU, 4096
     * (IBTA spec vol. 1, §7.7.5; EDR fabrics run at it), so a 9 KB READ response is 3 packets.
     */
    public static final int MN_LINK_MTU_BYTES = 4096;
    /**
     * Per-packet headers on the memory node's link, bytes: InfiniBand's local route header (LRH,
     * 8), base transport header (BTH, 12), invariant CRC (4) and variant CRC (2), IBTA spec vol. 1
     * §5.2 and §9.2. Transport extension headers come on top per message: RETH (16) on a READ
     * request and a WRITE's first packet, AETH (4) on acknowledgements and READ responses,
     * AtomicETH (28) on an atomic request, AtomicAckETH (8) with its AETH on the reply. Link-level
     * flow control packets and idles (under 1% of the link) are not modelled. On RoCEv2 a packet
     * would carry 82 bytes instead (Ethernet 14 + FCS 4 + preamble 8 + inter-frame gap 12, IPv4 20,
     * UDP 8, BTH 12, ICRC 4), and commonly a 1024-byte MTU: 8% more bytes for a 9 KB READ.
     */
    public static final int MN_LINK_PACKET_HEADER_BYTES = 26;

    public SimConfig {
        positive("compute nodes", computeNodes);
        positive("clients per compute node", clientsPerComputeNode);
        positive("memory nodes", memoryNodes);
        positive("CN NIC units", cnNicUnits);
        positive("NIC units", nicUnits);
        positive("MN CPU cores", mnCpuCores);
        nonNegative("network one-way", networkOneWayNs);
        nonNegative("network jitter", networkJitterNs);
        nonNegative("CN message one-way", cnMessageOneWayNs);
        nonNegative("intra-CN message", intraCnMessageNs);
        nonNegative("client verb CPU", clientVerbCpuNs);
        nonNegative("client message CPU", clientMessageCpuNs);
        nonNegative("CN NIC service", cnNicServiceNs);
        nonNegative("read service", readServiceNs);
        nonNegative("write service", writeServiceNs);
        nonNegative("atomic service", atomicServiceNs);
        nonNegative("128-bit atomic service", atomic128ServiceNs);
        nonNegative("same-word serialization", sameWordSerialNs);
        nonNegative("rpc service", rpcServiceNs);
        nonNegative("CN cores", cnCores);
        if (!(nicNsPerByte >= 0) || !(clockDrift >= 0 && clockDrift < 0.01)) {
            throw new IllegalArgumentException("NIC ns/byte must be >= 0 and clock drift in [0, 0.01)");
        }
        if (memoryBytesPerNode <= 0) {
            throw new IllegalArgumentException("memory per node must be positive");
        }
        java.util.Objects.requireNonNull(rpcTransport, "rpcTransport");
        if (!(mnLinkGbps >= 0) || mnLinkGbps > 1e6) {
            throw new IllegalArgumentException("MN link Gb/s must be in [0, 1e6] (0 = not modelled), got " + mnLinkGbps);
        }
    }

    /**
     * The CN-to-CN network's one-way latency over the CN-to-MN one ({@code cnMessageOneWayNs} /
     * {@code networkOneWayNs}); 1 by default, and when the network takes no time.
     */
    public double cnLatencyRatio() {
        return networkOneWayNs == 0 ? 1 : (double) cnMessageOneWayNs / networkOneWayNs;
    }

    /** Whether the CN-to-CN network is slower (or faster) than the CN-to-MN one ({@link #cnLatencyRatio()} != 1). */
    public boolean cnLatencyScaled() {
        return cnMessageOneWayNs != networkOneWayNs;
    }

    /** Whether the memory node's link bandwidth is modelled ({@code mnLinkGbps} &gt; 0). */
    public boolean mnLinkModelled() {
        return mnLinkGbps > 0;
    }

    private static void positive(String what, long v) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be positive, got " + v);
        }
    }

    private static void nonNegative(String what, long v) {
        if (v < 0) {
            throw new IllegalArgumentException(what + " must be >= 0, got " + v);
        }
    }

    public static SimConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.computeNodes = computeNodes;
        b.clientsPerComputeNode = clientsPerComputeNode;
        b.memoryNodes = memoryNodes;
        b.seed = seed;
        b.networkOneWayNs = networkOneWayNs;
        b.networkJitterNs = networkJitterNs;
        b.cnMessageOneWayNs = cnMessageOneWayNs;
        b.intraCnMessageNs = intraCnMessageNs;
        b.clientVerbCpuNs = clientVerbCpuNs;
        b.clientMessageCpuNs = clientMessageCpuNs;
        b.cnNicUnits = cnNicUnits;
        b.cnNicServiceNs = cnNicServiceNs;
        b.nicUnits = nicUnits;
        b.readServiceNs = readServiceNs;
        b.writeServiceNs = writeServiceNs;
        b.atomicServiceNs = atomicServiceNs;
        b.atomic128ServiceNs = atomic128ServiceNs;
        b.nicNsPerByte = nicNsPerByte;
        b.sameWordSerialNs = sameWordSerialNs;
        b.mnCpuCores = mnCpuCores;
        b.rpcServiceNs = rpcServiceNs;
        b.clockDrift = clockDrift;
        b.memoryBytesPerNode = memoryBytesPerNode;
        b.mnLinkGbps = mnLinkGbps;
        b.rpcTransport = rpcTransport;
        b.cnCores = cnCores;
        return b;
    }

    /** Total client slots of the topology. */
    public int clients() {
        return computeNodes * clientsPerComputeNode;
    }

    /** Fluent builder; {@link #build()} validates. */
    public static final class Builder {
        private int computeNodes = DEFAULT_COMPUTE_NODES;
        private int clientsPerComputeNode = DEFAULT_CLIENTS_PER_CN;
        private int memoryNodes = 1;
        private long seed = 1;
        private long networkOneWayNs = DEFAULT_NETWORK_ONE_WAY_NS;
        private long networkJitterNs = DEFAULT_NETWORK_JITTER_NS;
        private long cnMessageOneWayNs = DEFAULT_CN_MESSAGE_ONE_WAY_NS;
        private long intraCnMessageNs = DEFAULT_INTRA_CN_MESSAGE_NS;
        private long clientVerbCpuNs = DEFAULT_CLIENT_VERB_CPU_NS;
        private long clientMessageCpuNs = DEFAULT_CLIENT_MESSAGE_CPU_NS;
        private int cnNicUnits = DEFAULT_CN_NIC_UNITS;
        private long cnNicServiceNs = DEFAULT_CN_NIC_SERVICE_NS;
        private int nicUnits = DEFAULT_NIC_UNITS;
        private long readServiceNs = DEFAULT_READ_SERVICE_NS;
        private long writeServiceNs = DEFAULT_WRITE_SERVICE_NS;
        private long atomicServiceNs = DEFAULT_ATOMIC_SERVICE_NS;
        private long atomic128ServiceNs = DEFAULT_ATOMIC128_SERVICE_NS;
        private double nicNsPerByte = DEFAULT_NIC_NS_PER_BYTE;
        private long sameWordSerialNs = DEFAULT_SAME_WORD_SERIAL_NS;
        private int mnCpuCores = DEFAULT_MN_CPU_CORES;
        private long rpcServiceNs = DEFAULT_RPC_SERVICE_NS;
        private double clockDrift = DEFAULT_CLOCK_DRIFT;
        private long memoryBytesPerNode = DEFAULT_MEMORY_BYTES_PER_NODE;
        private double mnLinkGbps = DEFAULT_MN_LINK_GBPS;
        private RpcTransport rpcTransport = RpcTransport.NATIVE;
        private int cnCores = DEFAULT_CN_CORES;
        private double cnLatencyRatio = Double.NaN;

        public Builder computeNodes(int v) { computeNodes = v; return this; }
        public Builder clientsPerComputeNode(int v) { clientsPerComputeNode = v; return this; }
        public Builder memoryNodes(int v) { memoryNodes = v; return this; }
        public Builder seed(long v) { seed = v; return this; }
        public Builder networkOneWayNs(long v) { networkOneWayNs = v; return this; }
        public Builder networkJitterNs(long v) { networkJitterNs = v; return this; }
        public Builder cnMessageOneWayNs(long v) { cnMessageOneWayNs = v; return this; }
        public Builder intraCnMessageNs(long v) { intraCnMessageNs = v; return this; }
        public Builder clientVerbCpuNs(long v) { clientVerbCpuNs = v; return this; }
        public Builder clientMessageCpuNs(long v) { clientMessageCpuNs = v; return this; }
        public Builder cnNicUnits(int v) { cnNicUnits = v; return this; }
        public Builder cnNicServiceNs(long v) { cnNicServiceNs = v; return this; }
        public Builder nicUnits(int v) { nicUnits = v; return this; }
        public Builder readServiceNs(long v) { readServiceNs = v; return this; }
        public Builder writeServiceNs(long v) { writeServiceNs = v; return this; }
        public Builder atomicServiceNs(long v) { atomicServiceNs = v; return this; }
        public Builder atomic128ServiceNs(long v) { atomic128ServiceNs = v; return this; }
        public Builder nicNsPerByte(double v) { nicNsPerByte = v; return this; }
        public Builder sameWordSerialNs(long v) { sameWordSerialNs = v; return this; }
        public Builder mnCpuCores(int v) { mnCpuCores = v; return this; }
        public Builder rpcServiceNs(long v) { rpcServiceNs = v; return this; }
        public Builder clockDrift(double v) { clockDrift = v; return this; }
        public Builder memoryBytesPerNode(long v) { memoryBytesPerNode = v; return this; }
        /** The memory node's link rate, Gb/s, each direction; 0 (the default) = not modelled. */
        public Builder mnLinkGbps(double v) { mnLinkGbps = v; return this; }
        /** What carries rpcs and its costs; {@link RpcTransport#NATIVE} (the default) adds none. */
        public Builder rpcTransport(RpcTransport v) { rpcTransport = v; return this; }
        /** Cores per compute node that its clients' CPU work shares; 0 (the default) = not modelled. */
        public Builder cnCores(int v) { cnCores = v; return this; }

        /**
         * Makes the CN-to-CN network {@code ratio} times as slow as the CN-to-MN one: at
         * {@link #build()}, {@code cnMessageOneWayNs} = round(ratio × {@code networkOneWayNs}),
         * overriding {@link #cnMessageOneWayNs(long)}. Not called: {@code cnMessageOneWayNs} as set
         * (by default, the same as the CN-to-MN network).
         *
         * @throws IllegalArgumentException unless 0 &lt; ratio &le; {@value SimConfig#MAX_CN_LATENCY_RATIO}
         */
        public Builder cnLatencyRatio(double ratio) {
            if (!(ratio > 0 && ratio <= MAX_CN_LATENCY_RATIO)) {
                throw new IllegalArgumentException("CN-to-CN latency ratio must be in (0, " + MAX_CN_LATENCY_RATIO
                        + "], got " + ratio);
            }
            cnLatencyRatio = ratio;
            return this;
        }

        public SimConfig build() {
            long cnMessageNs = Double.isNaN(cnLatencyRatio) ? cnMessageOneWayNs
                    : Math.round(cnLatencyRatio * networkOneWayNs);
            return new SimConfig(computeNodes, clientsPerComputeNode, memoryNodes, seed, networkOneWayNs,
                    networkJitterNs, cnMessageNs, intraCnMessageNs, clientVerbCpuNs, clientMessageCpuNs,
                    cnNicUnits, cnNicServiceNs, nicUnits, readServiceNs, writeServiceNs, atomicServiceNs,
                    atomic128ServiceNs, nicNsPerByte, sameWordSerialNs, mnCpuCores, rpcServiceNs, clockDrift,
                    memoryBytesPerNode, mnLinkGbps, rpcTransport, cnCores);
        }
    }
}
