package io.lockfabric.sim;

/**
 * The simulated cluster: topology, network, the memory node's RNIC and CPU, client costs and
 * clocks. All times in nanoseconds of virtual time. Defaults are calibrated against the ShiftLock
 * §2.3 experiment (see {@code lockfabric reproduce shiftlock-2.3}); every value is configurable.
 *
 * <p>Model ({@code spec/verbs-and-rnic.md}):
 * <ul>
 *   <li>A verb leaves its client after {@code clientVerbCpuNs}, crosses the network in
 *       {@code networkOneWayNs} + uniform jitter, queues at the memory node's NIC for one of
 *       {@code nicUnits} processing units, is served for its kind's service time (plus payload at
 *       {@code nicNsPerByte}), and its reply crosses back.</li>
 *   <li>Accesses that an RNIC cannot run in parallel on one 8-byte word (atomics and writes) are
 *       serialized per word: each holds the word for {@code sameWordSerialNs}.</li>
 *   <li>Messages between clients take {@code cnMessageOneWayNs}; between clients of one compute
 *       node, {@code intraCnMessageNs} (ShiftLock compensates intra-CN messages with 1 µs).</li>
 *   <li>rpcs are served by {@code mnCpuCores} cores, {@code rpcServiceNs} each.</li>
 *   <li>Each client's clock runs at rate 1 + u·{@code clockDrift}, u uniform in [−1, 1].</li>
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
        long memoryBytesPerNode) {

    public static final int DEFAULT_COMPUTE_NODES = 1;
    public static final int DEFAULT_CLIENTS_PER_CN = 8;
    public static final long DEFAULT_NETWORK_ONE_WAY_NS = 1_000;
    public static final long DEFAULT_NETWORK_JITTER_NS = 100;
    public static final long DEFAULT_CN_MESSAGE_ONE_WAY_NS = 1_000;
    public static final long DEFAULT_INTRA_CN_MESSAGE_NS = 1_000;
    public static final long DEFAULT_CLIENT_VERB_CPU_NS = 100;
    public static final long DEFAULT_CLIENT_MESSAGE_CPU_NS = 200;
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

    public SimConfig {
        positive("compute nodes", computeNodes);
        positive("clients per compute node", clientsPerComputeNode);
        positive("memory nodes", memoryNodes);
        positive("NIC units", nicUnits);
        positive("MN CPU cores", mnCpuCores);
        nonNegative("network one-way", networkOneWayNs);
        nonNegative("network jitter", networkJitterNs);
        nonNegative("CN message one-way", cnMessageOneWayNs);
        nonNegative("intra-CN message", intraCnMessageNs);
        nonNegative("client verb CPU", clientVerbCpuNs);
        nonNegative("client message CPU", clientMessageCpuNs);
        nonNegative("read service", readServiceNs);
        nonNegative("write service", writeServiceNs);
        nonNegative("atomic service", atomicServiceNs);
        nonNegative("128-bit atomic service", atomic128ServiceNs);
        nonNegative("same-word serialization", sameWordSerialNs);
        nonNegative("rpc service", rpcServiceNs);
        if (!(nicNsPerByte >= 0) || !(clockDrift >= 0 && clockDrift < 0.01)) {
            throw new IllegalArgumentException("NIC ns/byte must be >= 0 and clock drift in [0, 0.01)");
        }
        if (memoryBytesPerNode <= 0) {
            throw new IllegalArgumentException("memory per node must be positive");
        }
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

        public SimConfig build() {
            return new SimConfig(computeNodes, clientsPerComputeNode, memoryNodes, seed, networkOneWayNs, networkJitterNs,
                    cnMessageOneWayNs, intraCnMessageNs, clientVerbCpuNs, clientMessageCpuNs, nicUnits, readServiceNs,
                    writeServiceNs, atomicServiceNs, atomic128ServiceNs, nicNsPerByte, sameWordSerialNs, mnCpuCores,
                    rpcServiceNs, clockDrift, memoryBytesPerNode);
        }
    }
}
