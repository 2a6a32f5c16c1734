package io.lockfabric.fabric;

import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * A client of the fabric: a queue pair to each memory node, a mailbox, a clock and a seeded random
 * generator. An endpoint and everything it hands out belong to one thread at a time.
 */
public interface Endpoint extends AutoCloseable {
    /** The fabric this endpoint belongs to. */
    Fabric fabric();

    /** This endpoint's mailbox address. */
    EndpointId id();

    /**
     * A dense number for this endpoint, unique in the fabric, in [1, 2^24): small enough for the
     * owner fields of lock words.
     */
    int ordinal();

    QueuePair queuePair(int memoryNode);

    Mailbox mailbox();

    Clock clock();

    /** A random generator seeded from the fabric's seed and this endpoint, for protocol jitter. */
    RandomGenerator random();

    /**
     * Opens the named table on its memory node, creating it if it does not exist.
     *
     * @throws TableMismatchException if it exists with another protocol, size or layout
     */
    Table openTable(TableSpec spec);

    /**
     * What protocols keep for this endpoint alone, as long as it lives (the lock inbox that sorts
     * its mailbox by channel and lock). Every lock client of the endpoint sees the same objects.
     */
    Attachments attachments();

    /**
     * What the clients of this endpoint's compute node share (DecLock's local lock table, CITRON's
     * scale-up poller): one compute node is the one node of the local fabric, one simulated compute
     * node on the simulator (the node of {@link #id()}), and one client fabric, that is one process,
     * on tcp. Endpoints of one compute node get the same object, endpoints of two never do.
     */
    Attachments computeNode();

    /** Everything this endpoint has sent: verbs by kind to all memory nodes, messages, rpcs. */
    CounterSnapshot counters();

    /**
     * Tells {@code listener} once if this endpoint loses its memory node for good, without being
     * closed: on tcp, its connection to the server dropped (the server process died or was stopped,
     * or the network failed); on RDMA, its queue pair went to the error state. Every later verb,
     * rpc and table open of the endpoint then fails with a {@link FabricException}, and so does
     * every one still waiting for its reply. The listener runs on a thread of the fabric before
     * those waiters are woken (so a client that sees its verb fail may rely on the listener having
     * run), and must be short and must not use the endpoint; if the endpoint is lost already, it
     * runs at once on the caller's thread. Closing the endpoint is not a loss. Messages between
     * live endpoints do not go through the memory node and may still arrive.
     *
     * <p>Default: nothing, for fabrics whose memory nodes cannot be lost while the fabric is open
     * ({@code local}, in this JVM; {@code sim}, whose memory-node faults are pauses). Thread-safe.
     */
    default void onMemoryNodeLost(Consumer<? super FabricException> listener) {
    }

    /**
     * The generation of memory node {@code memoryNode}: how many times it has restarted with its
     * memory lost, as the cluster's failure detector knows it (DecLock's "reliable coordinator",
     * Appendix B): it changes the moment the node fails, a local look that costs no verb. A
     * protocol that survives a memory-node restart compares it with the generation it last joined.
     * Default: 0, for fabrics whose memory nodes never restart (only the simulator's
     * {@code mn-restart} fault does).
     */
    default long memoryNodeGeneration(int memoryNode) {
        return 0;
    }

    /**
     * Reconnects this endpoint's queue pair to memory node {@code memoryNode} after it restarted
     * (its verbs failed with {@link MemoryNodeRestartedException} since): later verbs reach the
     * node of the current generation, whose memory is zeroed. Costs a round trip.
     *
     * @throws MemoryNodeRestartedException if the node is still down
     */
    default void reconnect(int memoryNode) {
    }

    /**
     * The calling thread of control takes this endpoint over, between two uses, from the one that
     * used it before: the client API's pool hands its endpoints from one application thread to the
     * next. Default: nothing, for fabrics whose endpoints serve whichever thread calls them. The
     * simulator binds an endpoint to the process that uses it (its crash kills the endpoint); this
     * binds it to the calling process instead, unless the endpoint is already dead.
     */
    default void adopt() {
    }

    /** Detaches the endpoint: later sends to it fail as to a dead peer. */
    @Override
    void close();
}
