package io.lockfabric.fabric;

import java.util.Arrays;
import java.util.Objects;

/**
 * What a lock table needs on a memory node: a unique name, the protocol that owns it, the number
 * of locks, its size in bytes, and its initial contents (a {@code fill} pattern repeated from
 * offset 0; empty means all zeros). The first client to open a name creates the table; a later
 * open must agree on protocol, locks and bytes.
 *
 * @param memoryNode the memory node that hosts the table
 * @param service    server-side code for rpcs on this table, created once on the memory node
 *                   when the table is created; null if the protocol needs none. Not compared.
 */
public record TableSpec(String name, String protocol, long locks, long bytes, byte[] fill, int memoryNode,
                        ServiceFactory service) {
    /** Creates the rpc handler of a table, given the table's memory region on its memory node. */
    @FunctionalInterface
    public interface ServiceFactory {
        RpcHandler create(io.lockfabric.fabric.memory.MemoryRegion region);

        /**
         * Creates the handler with access to the memory node that hosts the table, for services
         * that allocate memory on it at run time (CITRON's scale-up: new tables, zeroed and
         * registered, whose addresses the service hands out). The memory node calls this one; the
         * default ignores the node.
         */
        default RpcHandler create(io.lockfabric.fabric.memory.MemoryRegion region,
                                  io.lockfabric.fabric.memory.MemoryNode node) {
            return create(region);
        }

        /**
         * The protocol options (as {@code name=value}) the service depends on beyond the table's
         * name and lock count. A remote memory node cannot receive code: it rebuilds the service
         * from the protocol's name, the lock count and these options.
         */
        default java.util.List<String> options() {
            return java.util.List.of();
        }

        /** {@code factory}, declaring the options it depends on. */
        static ServiceFactory dependingOn(java.util.List<String> options, ServiceFactory factory) {
            java.util.List<String> copy = java.util.List.copyOf(options);
            return new ServiceFactory() {
                @Override
                public RpcHandler create(io.lockfabric.fabric.memory.MemoryRegion region) {
                    return factory.create(region);
                }

                @Override
                public RpcHandler create(io.lockfabric.fabric.memory.MemoryRegion region,
                                         io.lockfabric.fabric.memory.MemoryNode node) {
                    return factory.create(region, node);
                }

                @Override
                public java.util.List<String> options() {
                    return copy;
                }
            };
        }
    }

    public TableSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(protocol, "protocol");
        if (name.isBlank()) {
            throw new IllegalArgumentException("table name must not be blank");
        }
        if (locks < 0) {
            throw new IllegalArgumentException("locks must be >= 0, got " + locks);
        }
        if (bytes <= 0 || bytes > RemoteAddress.OFFSET_MASK) {
            throw new IllegalArgumentException("table bytes must be in (0, 2^48), got " + bytes);
        }
        fill = fill == null ? new byte[0] : fill.clone();
        if (memoryNode < 0) {
            throw new IllegalArgumentException("memory node must be >= 0");
        }
    }

    public TableSpec(String name, String protocol, long locks, long bytes) {
        this(name, protocol, locks, bytes, new byte[0], 0, null);
    }

    public TableSpec withFill(byte[] pattern) {
        return new TableSpec(name, protocol, locks, bytes, pattern, memoryNode, service);
    }

    public TableSpec withService(ServiceFactory factory) {
        return new TableSpec(name, protocol, locks, bytes, fill, memoryNode, factory);
    }

    public TableSpec onMemoryNode(int node) {
        return new TableSpec(name, protocol, locks, bytes, fill, node, service);
    }

    /** Whether {@code other} describes the same table (name, protocol, locks, bytes, fill, node). */
    public boolean sameShape(TableSpec other) {
        return name.equals(other.name) && protocol.equals(other.protocol) && locks == other.locks
                && bytes == other.bytes && Arrays.equals(fill, other.fill) && memoryNode == other.memoryNode;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableSpec t && sameShape(t);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, protocol, locks, bytes, Arrays.hashCode(fill), memoryNode);
    }

    @Override
    public String toString() {
        return "table '" + name + "' (" + protocol + ", " + locks + " locks, " + bytes + " bytes, mn " + memoryNode + ")";
    }
}
