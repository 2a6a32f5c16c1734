package io.lockfabric.fabric.memory;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RemoteAccessException;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.fabric.ServiceHost;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.Verb;

import java.lang.foreign.Arena;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The state of one memory node, whatever fabric serves it: its registered regions (one per table),
 * the directory of tables by name, and the rpc services of its CPU. Verbs are dispatched to the
 * region named by the address's region id ({@link #execute(Verb)}). Each table's service sees the
 * node only as a {@link ServiceHost}: its table's region, and allocation of more tables. Every
 * fabric (local, sim, the tcp server) holds its memory nodes as instances of this class.
 *
 * <p>Thread-safe. Region lookup on the verb path is a read of an array published with a volatile
 * write; table creation is synchronized.
 */
public final class MemoryNode implements AutoCloseable {
    /** Default capacity of a memory node: the sum of its tables' sizes may not exceed it. */
    public static final long DEFAULT_CAPACITY_BYTES = 4L << 30;

    private final int index;
    private final long capacityBytes;
    private final Arena arena = Arena.ofShared();
    private final Map<String, Table> tablesByName = new HashMap<>();
    private volatile MemoryRegion[] regions = new MemoryRegion[1]; // region 0 is never registered
    private volatile RpcHandler[] services = new RpcHandler[1];
    private long allocatedBytes;
    private boolean closed;

    public MemoryNode(int index, long capacityBytes) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("capacity must be positive");
        }
        this.index = index;
        this.capacityBytes = capacityBytes;
    }

    public int index() {
        return index;
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    public synchronized long allocatedBytes() {
        return allocatedBytes;
    }

    /**
     * Finds the table named by {@code spec}, or creates it: a new zeroed region filled with the
     * spec's pattern, and its rpc service if the spec has one.
     *
     * @throws TableMismatchException if a table of that name exists with another shape
     * @throws FabricException        if the memory node lacks the capacity
     */
    public synchronized Table openTable(TableSpec spec) {
        if (closed) {
            throw new FabricException("memory node " + index + " is closed");
        }
        if (spec.memoryNode() != index) {
            throw new IllegalArgumentException(spec + " is not for memory node " + index);
        }
        Table existing = tablesByName.get(spec.name());
        if (existing != null) {
            if (!existing.spec().sameShape(spec)) {
                throw new TableMismatchException(existing.spec(), spec);
            }
            return existing;
        }
        if (spec.bytes() > capacityBytes - allocatedBytes) {
            throw new FabricException(String.format(
                    "memory node %d cannot hold %s: %d of %d bytes are in use", index, spec, allocatedBytes, capacityBytes));
        }
        int id = regions.length;
        if (id > RemoteAddress.MAX_REGION) {
            throw new FabricException("memory node " + index + " has no free region ids");
        }
        MemoryRegion region = new MemoryRegion(id, spec.bytes(), spec.fill(), arena);
        RpcHandler handler = spec.service() == null ? null : spec.service().create(new Host(region));
        MemoryRegion[] r = java.util.Arrays.copyOf(regions, id + 1);
        r[id] = region;
        RpcHandler[] s = java.util.Arrays.copyOf(services, id + 1);
        s[id] = handler;
        services = s;
        regions = r;
        allocatedBytes += spec.bytes();
        Table table = new Table(spec, index, RemoteAddress.of(id, 0), id);
        tablesByName.put(spec.name(), table);
        return table;
    }

    /** The table of that name, or null. */
    public synchronized Table table(String name) {
        return tablesByName.get(name);
    }

    public synchronized List<Table> tables() {
        return List.copyOf(tablesByName.values());
    }

    /** The region an address points into. */
    public MemoryRegion region(long address) {
        int id = RemoteAddress.region(address);
        MemoryRegion[] r = regions;
        if (id <= 0 || id >= r.length) {
            throw new RemoteAccessException("memory node " + index + ": no region " + id + " (address "
                    + RemoteAddress.toString(address) + ")");
        }
        return r[id];
    }

    /**
     * Executes one verb on the region its address names and returns its result (see {@link Verb}).
     * What the sim and the tcp server run for every verb; the local fabric's typed verbs reach
     * {@link #region} directly, allocating nothing.
     */
    public Object execute(Verb verb) {
        return region(verb.address()).execute(verb, RemoteAddress.offset(verb.address()));
    }

    /**
     * Executes verbs in order. A verb that fails stops the batch: the verbs before it took
     * effect, it and the ones after did not (an RNIC moves its QP to the error state).
     */
    public Object[] execute(List<Verb> verbs) {
        Object[] results = new Object[verbs.size()];
        for (int i = 0; i < results.length; i++) {
            results[i] = execute(verbs.get(i));
        }
        return results;
    }

    /** Hands an rpc to its service; unknown services fail the call. */
    public void call(int service, RpcCall call) {
        RpcHandler[] s = services;
        RpcHandler handler = service > 0 && service < s.length ? s[service] : null;
        if (handler == null) {
            call.fail("memory node " + index + " has no rpc service " + service);
            return;
        }
        try {
            handler.handle(call);
        } catch (RuntimeException e) {
            call.fail("rpc service " + service + " failed: " + e);
        }
    }

    /** What the service of one table sees of this node: its region, and allocation here. */
    private final class Host implements ServiceHost {
        private final MemoryRegion region;

        Host(MemoryRegion region) {
            this.region = region;
        }

        @Override
        public int memoryNode() {
            return index;
        }

        @Override
        public RegionAccess table() {
            return region;
        }

        @Override
        public Table openTable(TableSpec spec) {
            return MemoryNode.this.openTable(spec);
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            arena.close();
        }
    }
}
