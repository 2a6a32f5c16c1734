package io.lockfabric.local;

import io.lockfabric.fabric.Attachments;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.memory.MemoryNode;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Memory nodes and clients in one JVM: verbs are VarHandle atomics on the memory nodes' memory,
 * clients are threads, messages are lock-free queues. Exact counters, real time. All clients are
 * on one compute node (node id 0), so they share its {@link Endpoint#computeNode() attachments}.
 *
 * <pre>{@code
 * try (LocalFabric fabric = LocalFabric.builder().seed(42).build()) {
 *     Endpoint client = fabric.newEndpoint();
 *     ...
 * }
 * }</pre>
 *
 * Thread-safe.
 */
public final class LocalFabric implements Fabric {
    public static final int DEFAULT_MEMORY_NODES = 1;
    public static final long DEFAULT_SEED = 0x10CF_AB21CL;

    private final MemoryNode[] memoryNodes;
    private final long seed;
    private final AtomicInteger nextOrdinal = new AtomicInteger(1);
    private final Map<EndpointId, LocalMailbox> mailboxes = new ConcurrentHashMap<>();
    private final List<LocalQueuePair> queuePairs = new CopyOnWriteArrayList<>();
    /** The endpoints that opened each table ({@code memoryNode/name}) and have not closed; guarded by itself. */
    private final Map<String, java.util.Set<LocalEndpoint>> openers = new java.util.HashMap<>();
    /** The fabric's one compute node: every endpoint is on it. */
    private final Attachments computeNode = new Attachments();
    private final Attachments attachments = new Attachments();
    private volatile boolean closed;

    private LocalFabric(Builder b) {
        this.seed = b.seed;
        this.memoryNodes = new MemoryNode[b.memoryNodes];
        for (int i = 0; i < memoryNodes.length; i++) {
            memoryNodes[i] = new MemoryNode(i, b.capacityBytesPerNode);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public int memoryNodes() {
        return memoryNodes.length;
    }

    public MemoryNode memoryNode(int index) {
        if (index < 0 || index >= memoryNodes.length) {
            throw new IllegalArgumentException("no memory node " + index + " (fabric has " + memoryNodes.length + ")");
        }
        return memoryNodes[index];
    }

    @Override
    public Endpoint newEndpoint() {
        if (closed) {
            throw new FabricException("fabric is closed");
        }
        int ordinal = nextOrdinal.getAndIncrement();
        if (ordinal > EndpointId.MAX_QUEUE) {
            throw new FabricException("too many endpoints");
        }
        EndpointId id = new EndpointId(0, ordinal);
        LocalQueuePair[] qps = new LocalQueuePair[memoryNodes.length];
        for (int i = 0; i < qps.length; i++) {
            qps[i] = new LocalQueuePair(memoryNodes[i], id);
            queuePairs.add(qps[i]);
        }
        LocalMailbox mailbox = new LocalMailbox(this, id);
        mailboxes.put(id, mailbox);
        return new LocalEndpoint(this, id, ordinal, qps, mailbox, seed * 0x9E3779B97F4A7C15L + ordinal, computeNode);
    }

    @Override
    public ClientThread spawn(String name, Runnable body) {
        return ClientThread.startPlatform(name, body);
    }

    LocalMailbox mailbox(EndpointId id) {
        return mailboxes.get(id);
    }

    void detach(LocalEndpoint endpoint) {
        mailboxes.remove(endpoint.id());
        synchronized (openers) {
            openers.values().forEach(users -> users.remove(endpoint));
        }
    }

    /** Records that {@code endpoint} has table {@code name} of memory node {@code mn} open, until it closes. */
    void opened(LocalEndpoint endpoint, int mn, String name) {
        synchronized (openers) {
            openers.computeIfAbsent(mn + "/" + name, k -> new java.util.HashSet<>()).add(endpoint);
        }
    }

    /**
     * Drops a table of this JVM's memory node. The endpoints that opened a table are tracked until
     * they close, so a drop that is not forced is refused while any has it open.
     */
    @Override
    public long dropTable(int memoryNode, String name, boolean force) {
        return drop(memoryNode, name, force ? null : java.util.Set.of());
    }

    @Override
    public long dropTable(int memoryNode, String name, java.util.Collection<? extends Endpoint> users) {
        return drop(memoryNode, name, java.util.Objects.requireNonNull(users, "users"));
    }

    /** Drops unless an endpoint not in {@code users} has the table open ({@code users} null: forced). */
    private long drop(int mn, String name, java.util.Collection<? extends Endpoint> users) {
        MemoryNode node = memoryNode(mn);
        synchronized (openers) {
            java.util.Set<LocalEndpoint> open = openers.getOrDefault(mn + "/" + name, java.util.Set.of());
            long others = users == null ? 0 : open.stream().filter(e -> !users.contains(e)).count();
            if (others > 0) {
                throw new io.lockfabric.fabric.TableInUseException("table '" + name + "' is open by " + others
                        + " other endpoint" + (others == 1 ? "" : "s") + " of this fabric");
            }
            openers.remove(mn + "/" + name);
            return node.dropTable(name);
        }
    }

    @Override
    public long observerNanoTime() {
        return System.nanoTime();
    }

    @Override
    public Attachments attachments() {
        return attachments;
    }

    @Override
    public boolean isInProcess() {
        return true;
    }

    @Override
    public CounterSnapshot memoryNodeCounters(int memoryNode) {
        memoryNode(memoryNode);
        CounterSnapshot total = CounterSnapshot.ZERO;
        for (LocalQueuePair qp : queuePairs) {
            if (qp.memoryNode() == memoryNode) {
                total = total.plus(qp.counters());
            }
        }
        return total;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            mailboxes.clear();
            for (MemoryNode node : memoryNodes) {
                node.close();
            }
        }
    }

    /** Configuration of a {@link LocalFabric}; validated in {@link #build()}. */
    public static final class Builder {
        private int memoryNodes = DEFAULT_MEMORY_NODES;
        private long capacityBytesPerNode = MemoryNode.DEFAULT_CAPACITY_BYTES;
        private long seed = DEFAULT_SEED;

        public Builder memoryNodes(int count) {
            this.memoryNodes = count;
            return this;
        }

        public Builder capacityBytesPerNode(long bytes) {
            this.capacityBytesPerNode = bytes;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public LocalFabric build() {
            if (memoryNodes < 1 || memoryNodes > 1024) {
                throw new IllegalArgumentException("memory nodes must be in [1, 1024], got " + memoryNodes);
            }
            if (capacityBytesPerNode <= 0) {
                throw new IllegalArgumentException("capacity must be positive, got " + capacityBytesPerNode);
            }
            return new LocalFabric(this);
        }
    }
}
