package io.lockfabric.fabric;

/**
 * What a memory node gives the rpc service of one of its tables: the service's view of the node
 * it runs on. Its table's memory, reached by the node's CPU ({@link #table()}), and allocation of
 * more tables on the same node ({@link #openTable}: CITRON's scale-up registers fresh zeroed
 * regions for new tree levels and hands their addresses out). Every fabric's memory node
 * implements it, so a protocol's server half is written once, against this interface only, and
 * never sees how a fabric keeps its memory.
 *
 * <p>Thread-safe: a service may be called from several threads at once.
 */
public interface ServiceHost {
    /** The index of the memory node the service runs on. */
    int memoryNode();

    /** The region of the table whose service this is. */
    RegionAccess table();

    /**
     * Finds the table named by {@code spec} on this memory node, or creates it (zeroed, filled
     * with the spec's pattern, with its own service if it has one), exactly as a client's
     * {@link Endpoint#openTable} would.
     *
     * @throws IllegalArgumentException if {@code spec} is for another memory node
     * @throws TableMismatchException   if a table of that name exists with another shape
     * @throws FabricException          if the memory node lacks the capacity
     */
    Table openTable(TableSpec spec);
}
