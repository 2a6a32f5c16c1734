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
     * Time as an outside observer of the whole fabric sees it (true time, not a client's drifting
     * clock): what the checker records grants and releases in.
     */
    long observerNanoTime();

    /** Whether all endpoints live in this JVM and may share Java objects (the {@code juc} reference). */
    boolean isInProcess();

    /** Inbound counts at a memory node: every verb it served, by kind, and rpcs. */
    CounterSnapshot memoryNodeCounters(int memoryNode);

    @Override
    void close();
}
