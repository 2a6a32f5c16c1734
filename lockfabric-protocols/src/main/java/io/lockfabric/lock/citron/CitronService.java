package io.lockfabric.lock.citron;

import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.fabric.ServiceHost;
import io.lockfabric.fabric.TableSpec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

/**
 * The rpc service of a CITRON table, run by the memory node's CPU (FAST'23 §3.9.1: "the server
 * runs one eRPC thread to serve lock tree metadata queries and memory allocation requests"). Two
 * calls, neither on the lock path:
 * <ul>
 * <li>{@code ALLOCATE(levels, bases)}: Algorithm 4 line 3. Registers a fresh zeroed region on the
 * memory node for the nodes generation g = levels.length − 1 adds (the old tree stays where it is)
 * and records the configuration it completes (levels, the caller's bases and the new one) as
 * generation g's. Returns the new region's address. Every call allocates anew (a region freed by
 * a scale-down is not reused: a paused client of the dropped tree could still touch it).</li>
 * <li>{@code LOOKUP(g)}: the metadata query: the levels and bases last recorded for generation g,
 * published or not. Clients that see the configuration word change fetch the bases here; a
 * releaser whose node was carried by a scale-up not yet published finds the new ancestors here
 * (the scaler allocates before it marks anything).</li>
 * </ul>
 * Thread-safe (the memory node may call it from several threads).
 */
final class CitronService implements RpcHandler {
    static final byte ALLOCATE = 1;
    static final byte LOOKUP = 2;

    private final String tableName;
    private final ServiceHost node;
    private final Map<Integer, long[][]> configs = new HashMap<>();
    private int allocations;

    private CitronService(String tableName, ServiceHost node) {
        this.tableName = tableName;
        this.node = node;
    }

    /** Builds the service of table {@code tableName}, which allocates on the memory node that hosts it. */
    static TableSpec.ServiceFactory factory(String tableName) {
        return host -> new CitronService(tableName, host);
    }

    @Override
    public void handle(RpcCall call) {
        ByteBuffer in = ByteBuffer.wrap(call.request()).order(ByteOrder.LITTLE_ENDIAN);
        byte op = in.get();
        switch (op) {
            case ALLOCATE -> {
                int n = in.getInt();
                int[] levels = new int[n];
                long[] bases = new long[n];
                for (int i = 0; i < n; i++) {
                    levels[i] = in.getInt();
                }
                for (int i = 0; i < n - 1; i++) {
                    bases[i] = in.getLong();
                }
                bases[n - 1] = allocate(levels);
                record(levels, bases);
                call.reply(ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(bases[n - 1]).array());
            }
            case LOOKUP -> {
                long[][] c;
                int g = in.getInt();
                synchronized (this) {
                    c = configs.get(g);
                }
                if (c == null) {
                    call.fail("citron table '" + tableName + "' has no generation " + g);
                    return;
                }
                call.reply(encodeConfig(c[0], c[1]));
            }
            default -> call.fail("citron service: unknown call " + op);
        }
    }

    private long allocate(int[] levels) {
        int g = levels.length - 1;
        new CitronTree(levels, new long[levels.length]); // validates the heights
        if (g < 1) {
            throw new IllegalArgumentException("citron allocation needs a generation >= 1");
        }
        String name;
        synchronized (this) {
            name = tableName + "/citron-exp-" + (++allocations) + "-g" + g + "-" + levels[g - 1] + "-" + levels[g];
        }
        var spec = new TableSpec(name, CitronProtocol.NAME, CitronTree.unitsOf(levels[g]),
                CitronTree.storedNodes(levels, g) * CitronLayout.WORD_BYTES).onMemoryNode(node.memoryNode());
        return node.openTable(spec).address();
    }

    /** Records the configuration an allocation completes (called with the new base in place). */
    private synchronized void record(int[] levels, long[] bases) {
        configs.put(levels.length - 1, new long[][] {java.util.Arrays.stream(levels).asLongStream().toArray(), bases});
    }

    // ------------------------------------------------------------------ client side

    /** Algorithm 4 line 3: the address of a fresh zeroed region for generation {@code levels.length − 1}. */
    static byte[] allocateRequest(int[] levels, long[] oldBases) {
        ByteBuffer b = ByteBuffer.allocate(1 + Integer.BYTES * (1 + levels.length) + Long.BYTES * oldBases.length)
                .order(ByteOrder.LITTLE_ENDIAN);
        b.put(ALLOCATE).putInt(levels.length);
        for (int l : levels) {
            b.putInt(l);
        }
        for (long a : oldBases) {
            b.putLong(a);
        }
        return b.array();
    }

    static long allocated(byte[] reply) {
        return ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    static byte[] lookupRequest(int generation) {
        return ByteBuffer.allocate(1 + Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).put(LOOKUP).putInt(generation)
                .array();
    }

    private static byte[] encodeConfig(long[] levels, long[] bases) {
        ByteBuffer b = ByteBuffer.allocate(Integer.BYTES + Long.BYTES * 2 * levels.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(levels.length);
        for (long l : levels) {
            b.putLong(l);
        }
        for (long a : bases) {
            b.putLong(a);
        }
        return b.array();
    }

    /** The configuration a LOOKUP reply describes. */
    static CitronTree decodeConfig(byte[] reply) {
        ByteBuffer b = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN);
        int n = b.getInt();
        int[] levels = new int[n];
        long[] bases = new long[n];
        for (int i = 0; i < n; i++) {
            levels[i] = Math.toIntExact(b.getLong());
        }
        for (int i = 0; i < n; i++) {
            bases[i] = b.getLong();
        }
        return new CitronTree(levels, bases);
    }
}
