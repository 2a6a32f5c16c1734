package io.lockfabric.fabric.memory;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RemoteAccessException;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.fabric.ServiceHost;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableDroppedException;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.fabric.TableRefusedException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.Verb;

import java.lang.foreign.Arena;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The state of one memory node, whatever fabric serves it: its registered regions (one per table),
 * the directory of tables by name, and the rpc services of its CPU. Verbs are dispatched to the
 * region named by the address's region id ({@link #execute(Verb)}). Each table's service sees the
 * node only as a {@link ServiceHost}: its table's region, and allocation of more tables. Every
 * fabric (local, sim, the tcp server) holds its memory nodes as instances of this class.
 *
 * <p>Tables can be dropped ({@link #dropTable}): the table and the tables its service created go,
 * their memory is freed at once (each table's region lives in an arena of its own) and credited
 * back to the capacity, and a later verb or rpc on them fails with {@link TableDroppedException}.
 * Region ids are handed out fresh until {@link RemoteAddress#MAX_REGION}, and only then are the
 * longest-freed ids reused, so a client's stale address of a dropped table keeps failing for as
 * long as possible instead of reaching a newer table. A verb that runs while its table is dropped
 * either takes effect before the drop or fails; it never touches freed memory.
 *
 * <p>Thread-safe. Region lookup on the verb path is a read of an array published with a volatile
 * write; table creation and dropping are synchronized.
 */
public final class MemoryNode implements AutoCloseable {
    /** Default capacity of a memory node: the sum of its tables' sizes may not exceed it. */
    public static final long DEFAULT_CAPACITY_BYTES = 4L << 30;

    private final int index;
    private final long capacityBytes;
    private final Map<String, Table> tablesByName = new LinkedHashMap<>();
    /** Each live region's arena, by region id: closing it frees the region's memory. */
    private final Map<Integer, Arena> arenas = new HashMap<>();
    /** The tables a table's service created (CITRON's expansions), by the creating table's name. */
    private final Map<String, List<String>> childrenByName = new HashMap<>();
    private final Map<String, String> parentByName = new HashMap<>();
    /** The names of dropped tables by the region id they had, until the id is reused. */
    private final Map<Integer, String> droppedByRegion = new HashMap<>();
    /** Tables whose service is being created (it may create tables of its own then). */
    private final java.util.Set<String> creating = new java.util.HashSet<>();
    /** Region ids freed by drops, oldest first; reused only once no fresh id is left. */
    private final ArrayDeque<Integer> freedRegions = new ArrayDeque<>();
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
     * @throws TableRefusedException  if the memory node lacks the capacity or a free region id
     */
    public synchronized Table openTable(TableSpec spec) {
        return openTable(spec, null);
    }

    private synchronized Table openTable(TableSpec spec, String parent) {
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
        if (parent != null && !tablesByName.containsKey(parent) && !creating.contains(parent)) {
            throw new TableDroppedException("memory node " + index + ": table '" + parent + "' was dropped");
        }
        if (spec.bytes() > capacityBytes - allocatedBytes) {
            throw new TableRefusedException(String.format(
                    "memory node %d cannot hold %s: %d of %d bytes are in use", index, spec, allocatedBytes, capacityBytes));
        }
        int id = regions.length <= RemoteAddress.MAX_REGION ? regions.length
                : freedRegions.isEmpty() ? -1 : freedRegions.peekFirst();
        if (id < 0) {
            throw new TableRefusedException("memory node " + index + " has no free region ids ("
                    + RemoteAddress.MAX_REGION + " tables)");
        }
        Arena arena = Arena.ofShared();
        MemoryRegion region;
        try {
            region = new MemoryRegion(id, spec.bytes(), spec.fill(), arena);
        } catch (RuntimeException | OutOfMemoryError e) {
            arena.close();
            throw e;
        }
        // the region is registered before its service is made, which may create tables of its own
        if (id < regions.length) {
            freedRegions.removeFirst();
            droppedByRegion.remove(id);
        }
        MemoryRegion[] r = java.util.Arrays.copyOf(regions, Math.max(regions.length, id + 1));
        r[id] = region;
        regions = r;
        arenas.put(id, arena);
        allocatedBytes += spec.bytes();
        RpcHandler handler = null;
        if (spec.service() != null) {
            creating.add(spec.name());
            try {
                handler = spec.service().create(new Host(region, spec.name()));
            } catch (RuntimeException e) {
                for (String child : childrenByName.getOrDefault(spec.name(), List.of())) {
                    drop(child);
                }
                childrenByName.remove(spec.name());
                unregister(id, spec.bytes());
                droppedByRegion.remove(id);
                throw e;
            } finally {
                creating.remove(spec.name());
            }
        }
        RpcHandler[] s = java.util.Arrays.copyOf(services, Math.max(services.length, id + 1));
        s[id] = handler;
        services = s;
        Table table = new Table(spec, index, RemoteAddress.of(id, 0), id);
        tablesByName.put(spec.name(), table);
        if (parent != null) {
            childrenByName.computeIfAbsent(parent, p -> new ArrayList<>()).add(spec.name());
            parentByName.put(spec.name(), parent);
        }
        return table;
    }

    /**
     * Drops the table of that name and the tables its service created: their regions are freed and
     * their bytes credited back, and later verbs and rpcs on them fail with
     * {@link TableDroppedException}. Lock state in them is gone.
     *
     * @return the bytes freed, or 0 if there is no such table
     * @throws IllegalArgumentException if the table was created by another table's service (drop that one)
     */
    public synchronized long dropTable(String name) {
        if (closed) {
            return 0;
        }
        String parent = parentByName.get(name);
        if (parent != null) {
            throw new IllegalArgumentException("table '" + name + "' belongs to table '" + parent + "'; drop that one");
        }
        return tablesByName.containsKey(name) ? drop(name) : 0;
    }

    private long drop(String name) {
        long freed = 0;
        for (String child : childrenByName.getOrDefault(name, List.of())) {
            freed += drop(child);
        }
        childrenByName.remove(name);
        parentByName.remove(name);
        Table t = tablesByName.remove(name);
        int id = RemoteAddress.region(t.address());
        droppedByRegion.put(id, name);
        unregister(id, t.spec().bytes());
        return freed + t.spec().bytes();
    }

    /** Unpublishes region {@code id} and its service, frees its memory and credits its bytes back. */
    private void unregister(int id, long bytes) {
        MemoryRegion[] r = regions.clone();
        r[id] = null;
        regions = r;
        if (id < services.length) {
            RpcHandler[] s = services.clone();
            s[id] = null;
            services = s;
        }
        freedRegions.addLast(id);
        allocatedBytes -= bytes;
        closeArena(arenas.remove(id));
    }

    /**
     * Frees a dropped region's memory. The region is unpublished first; a verb that read the old
     * array may still be inside an access, which the JDK makes fail rather than touch freed memory
     * (and a close that meets one is retried).
     */
    private static void closeArena(Arena arena) {
        for (int attempt = 0; ; attempt++) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException busy) {
                if (attempt >= 10_000) {
                    throw busy;
                }
                Thread.yield();
            }
        }
    }

    /** The bytes of the table of that name and of the tables its service created; 0 if there is no such table. */
    public synchronized long footprintBytes(String name) {
        Table t = tablesByName.get(name);
        if (t == null) {
            return 0;
        }
        long bytes = t.spec().bytes();
        for (String child : childrenByName.getOrDefault(name, List.of())) {
            bytes += footprintBytes(child);
        }
        return bytes;
    }

    /** The table whose service created table {@code name}, or null if a client created it (or there is none). */
    public synchronized String parentOf(String name) {
        return parentByName.get(name);
    }

    /** The table of that name, or null. */
    public synchronized Table table(String name) {
        return tablesByName.get(name);
    }

    public synchronized List<Table> tables() {
        return List.copyOf(tablesByName.values());
    }

    /**
     * The region an address points into.
     *
     * @throws TableDroppedException if it was a dropped table's
     * @throws RemoteAccessException if there is no such region
     */
    public MemoryRegion region(long address) {
        int id = RemoteAddress.region(address);
        MemoryRegion[] r = regions;
        MemoryRegion region = id > 0 && id < r.length ? r[id] : null;
        if (region == null) {
            throw noRegion(id, address);
        }
        return region;
    }

    private RuntimeException noRegion(int id, long address) {
        String dropped;
        synchronized (this) {
            dropped = droppedByRegion.get(id);
        }
        if (dropped != null) {
            return new TableDroppedException("memory node " + index + ": table '" + dropped + "' was dropped (address "
                    + RemoteAddress.toString(address) + ")");
        }
        return new RemoteAccessException("memory node " + index + ": no region " + id + " (address "
                + RemoteAddress.toString(address) + ")");
    }

    /**
     * Executes one verb on the region its address names and returns its result (see {@link Verb}).
     * What the sim and the tcp server run for every verb; the local fabric's typed verbs reach
     * {@link #region} directly, allocating nothing.
     */
    public Object execute(Verb verb) {
        MemoryRegion region = region(verb.address());
        try {
            return region.execute(verb, RemoteAddress.offset(verb.address()));
        } catch (IllegalStateException closed) {
            // the region's arena closed under the verb: its table was dropped meanwhile
            throw noRegion(region.id(), verb.address());
        }
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
            String dropped;
            synchronized (this) {
                dropped = droppedByRegion.get(service);
            }
            call.fail(dropped != null ? "memory node " + index + ": table '" + dropped + "' was dropped"
                    : "memory node " + index + " has no rpc service " + service);
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
        private final String tableName;

        Host(MemoryRegion region, String tableName) {
            this.region = region;
            this.tableName = tableName;
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
            return MemoryNode.this.openTable(spec, tableName);
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            for (Arena a : arenas.values()) {
                closeArena(a);
            }
            arenas.clear();
        }
    }
}
