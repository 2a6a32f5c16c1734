package io.lockfabric.sim;

import java.util.Objects;

/**
 * What carries an rpc between a client and the memory node's CPU, and what that costs beyond the
 * handler ({@link SimConfig#rpcServiceNs()}): server CPU for each message the server receives or sends
 * (so two per rpc, on the core that runs the handler) and extra one-way latency on each message (the
 * client's own stack and the wire's, on top of {@link SimConfig#networkOneWayNs()}). The default,
 * {@link #NATIVE}, costs nothing extra: the simulator's rpcs as they were before this option existed,
 * so every existing run stays byte-for-byte the same. {@link #SEND_RECV} and {@link #TCP} model the
 * server-centric lock manager of the report {@code rdma-dlm-designs-report} (§3, Figures 1 and 3),
 * over two-sided RDMA and over kernel TCP/IP sockets.
 *
 * <p>Sources of the presets. The report states (§3) that "processing a message takes about 104 CPU
 * cycles" with "forty 3GHz cores", and that over TCP "more than 90% of server CPU cycles were spent on
 * message handling in kernel" (40 clients, 100 000 requests each). The text was extracted from a PDF
 * that drops superscripts (its {@code N_item} and {@code N_client} lost their subscripts too); we read
 * "104" as 10^4 cycles, the TCP server's cost per message: 10^4 cycles at 3 GHz is 3 333 ns. Neither
 * reading matches the report's own "loose upper bound" of "roughly 30M locks per second" exactly
 * (40 × 3 GHz / 10^4 = 12 M messages/s; 3 GHz / 104 = 29 M/s on one core), so this is a reading, said
 * as such. None of the values below is derived from the report's throughputs (40 880 and 1.4 M locks/s),
 * which {@code reproduce report-fig1} compares against.
 *
 * @param name                  a short name, for setup lines
 * @param serverCpuNsPerMessage server CPU per message received or sent, on top of the handler
 * @param extraOneWayNs         extra latency of each message, each way, on top of the network's
 */
public record RpcTransport(String name, long serverCpuNsPerMessage, long extraOneWayNs) {
    /** The simulator's plain rpcs: nothing on top of the handler and the network (the default). */
    public static final RpcTransport NATIVE = new RpcTransport("native", 0, 0);

    /**
     * Kernel TCP/IP sockets (the report's "TCP" series). Server CPU per message: 3 333 ns, the report's
     * 10^4 cycles per message at 3 GHz (see above), of which the report puts over 90% in the kernel.
     * Extra one-way latency: 3 333 ns, the same kernel message path run once more on the client's side
     * (the report's clients use the same sockets on the same 40-core, 3 GHz machines); an estimate by
     * symmetry, not a measurement.
     */
    public static final RpcTransport TCP = new RpcTransport("tcp", 3_333, 3_333);

    /**
     * Two-sided RDMA SEND/RECV (the report's "S/R" series). Server CPU per message: 333 ns, the share
     * of the TCP server's 3 333 ns that the report does not put in the kernel (under 10%): the kernel's
     * message handling is what the RNIC takes over (report §3: "the burden can be offloaded to network
     * hardware using RDMA send/receive verbs"), the rest (polling the completion, posting the reply,
     * the request's dispatch) stays. For comparison, eRPC (Kalia et al., NSDI'19) handles "up to 10
     * million small RPCs per second" on one core, 50 ns per message: the report's simple server is
     * taken to be slower than that optimised engine. No extra latency: a SEND crosses the same network
     * as the one-sided verbs.
     */
    public static final RpcTransport SEND_RECV = new RpcTransport("send-recv", 333, 0);

    /**
     * eRPC (Kalia et al., NSDI'19, the engine of CITRON's Figure 1(c) and its type-I baselines): "one
     * CPU core can handle up to 10 million small RPCs per second", 100 ns of server CPU per request and
     * reply, 50 ns per message; no extra latency (it runs over the RNIC, kernel-bypass).
     */
    public static final RpcTransport ERPC = new RpcTransport("erpc", 50, 0);

    public RpcTransport {
        Objects.requireNonNull(name, "name");
        if (serverCpuNsPerMessage < 0 || extraOneWayNs < 0) {
            throw new IllegalArgumentException("rpc transport costs must be >= 0, got " + serverCpuNsPerMessage
                    + " and " + extraOneWayNs);
        }
    }

    /** True for {@link #NATIVE}'s costs: nothing added. */
    public boolean isNative() {
        return serverCpuNsPerMessage == 0 && extraOneWayNs == 0;
    }
}
