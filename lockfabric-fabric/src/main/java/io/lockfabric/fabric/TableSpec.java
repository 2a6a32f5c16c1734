package io.lockfabric.fabric;

import java.util.Arrays;
import java.util.List;
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
    /**
     * Creates the rpc handler of a table once, when its memory node creates the table. The
     * handler reaches its table and its node only through the {@link ServiceHost} it is given.
     */
    @FunctionalInterface
    public interface ServiceFactory {
        /** The handler of the table that {@code host} created: {@link ServiceHost#table()} is its region. */
        RpcHandler create(ServiceHost host);

        /**
         * The protocol options (as {@code name=value}) the service depends on beyond the table's
         * name and lock count. A remote memory node cannot receive code: it rebuilds the service
         * from the protocol's name, the lock count and these options.
         */
        default List<String> options() {
            return List.of();
        }

        /** {@code factory}, declaring the options it depends on. */
        static ServiceFactory dependingOn(List<String> options, ServiceFactory factory) {
            List<String> copy = List.copyOf(options);
            return new ServiceFactory() {
                @Override
                public RpcHandler create(ServiceHost host) {
                    return factory.create(host);
                }

                @Override
                public List<String> options() {
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
