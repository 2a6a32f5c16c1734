package io.lockfabric.fabric;

/**
 * A set of memory nodes and the clients that reach them: in one JVM (local), simulated (sim), or
 * over TCP. Lock protocols are written against this SPI only and never know which fabric runs them.
 */
public interface Fabric extends AutoCloseable {
    /** Short name: {@code local}, {@code sim}, {@code tcp://host:port}. */
    String name();

    int memoryNodes();

    /** Creates a client endpoint. */
    Endpoint newEndpoint();

    /**
     * A new endpoint on the same machine as {@code beside}, for a background activity of that
     * client (CITRON's scale-up poller): it shares the client's compute node and NIC. A fabric that
     * places clients by their order (the simulator) does not count it as a client, so that adding
     * a background endpoint moves no later client to another node. Default: {@link #newEndpoint()}.
     */
    default Endpoint newEndpointBeside(Endpoint beside) {
        return newEndpoint();
    }

    /**
     * Starts {@code body} as a client's thread of control: a platform thread on a real-time fabric,
     * a simulated process in virtual time on the simulator. Client code (a lock client and its
     * endpoint) must run inside such a body, never on a thread the caller made itself, so that
     * every fabric can run it. An exception thrown by the body ends that client only; the body
     * should catch and report what it needs.
     */
    ClientThread spawn(String name, Runnable body);

    /**
     * Time as an outside observer of the whole fabric sees it (true time, not a client's drifting
     * clock): what the checker records grants and releases in. A fabric whose client runtime runs in
     * real time ({@link ClientRuntime#virtualTime()} false) returns {@link System#nanoTime()}: the
     * client API takes one reading of that clock for both.
     */
    long observerNanoTime();

    /**
     * How long things take here, for protocols to size their default waits ({@link FabricTiming}).
     * Default: {@link FabricTiming#RDMA}, what the defaults are tuned for.
     */
    default FabricTiming timing() {
        return FabricTiming.RDMA;
    }

    /**
     * How code above the protocols (the client API) parks, times and starts its own work here.
     * Default: {@link ClientRuntime#REAL_TIME}; the simulator runs it in virtual time.
     */
    default ClientRuntime clientRuntime() {
        return ClientRuntime.REAL_TIME;
    }

    /** Whether all endpoints live in this JVM and may share Java objects (the {@code juc} reference). */
    boolean isInProcess();

    /**
     * What the clients of the whole fabric share, whatever their compute node (the {@code juc}
     * reference's locks, which only an in-process fabric can share). Lives as long as the fabric.
     */
    Attachments attachments();

    /**
     * Drops table {@code name} on memory node {@code memoryNode} at once, with the tables its rpc
     * service created: its memory is freed and its lock state is gone. Unless {@code force}, a
     * table that clients (other endpoints, other processes) have open is not dropped; forced, it is
     * dropped under them, and their later verbs on it fail with {@link TableDroppedException}.
     *
     * @return the bytes freed, or 0 if there is no such table
     * @throws TableInUseException           if clients have the table open and {@code force} is false
     * @throws UnsupportedOperationException if this fabric cannot drop tables (the default)
     */
    default long dropTable(int memoryNode, String name, boolean force) {
        throw new UnsupportedOperationException("the " + name() + " fabric cannot drop tables");
    }

    /**
     * Drops table {@code name} as {@link #dropTable(int, String, boolean)} does, unless an endpoint
     * other than {@code users} has it open: how a client that has the table open on endpoints of its
     * own (the client API's pool) drops it without forcing it from under anyone else. Decided by the
     * memory node at once, so no other client can open the table between the check and the drop.
     * The endpoints in {@code users} must not use the table afterwards.
     *
     * @return the bytes freed, or 0 if there is no such table
     * @throws TableInUseException           if an endpoint not in {@code users} has it open
     * @throws UnsupportedOperationException if this fabric cannot drop tables (the default)
     */
    default long dropTable(int memoryNode, String name, java.util.Collection<? extends Endpoint> users) {
        throw new UnsupportedOperationException("the " + name() + " fabric cannot drop tables");
    }

    /** Inbound counts at a memory node: every verb it served, by kind, and rpcs. */
    CounterSnapshot memoryNodeCounters(int memoryNode);

    @Override
    void close();
}
