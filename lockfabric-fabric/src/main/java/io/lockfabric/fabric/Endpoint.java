package io.lockfabric.fabric;

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

    /** Detaches the endpoint: later sends to it fail as to a dead peer. */
    @Override
    void close();
}
