package io.lockfabric.net;

import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockProtocols;

import java.util.List;
import java.util.Optional;

/**
 * Builds, on the memory node, the rpc service of a table a remote client opens. A service is Java
 * code and cannot travel, so the client sends what the service depends on instead: the table's
 * protocol name and lock count (in its shape) and the options its factory declares
 * ({@link TableSpec.ServiceFactory#options()}). The server asks that protocol of
 * {@link LockProtocols} for the table with those options, and uses the service only if the spec it
 * gets has exactly the shape the client asked for. Thread-safe.
 */
@FunctionalInterface
public interface ServiceResolver {
    /** The service factory for {@code requested} built with {@code options}, or empty if this resolver cannot. */
    Optional<TableSpec.ServiceFactory> resolve(TableSpec requested, List<String> options);

    /** The default: services of the registered lock protocols. */
    static ServiceResolver lockProtocols() {
        return ServiceResolver::fromLockProtocols;
    }

    private static Optional<TableSpec.ServiceFactory> fromLockProtocols(TableSpec requested, List<String> options) {
        TableSpec spec;
        try {
            LockProtocol protocol = LockProtocols.byName(requested.protocol());
            spec = protocol.tableSpec(requested.name(), requested.locks(),
                    LockOptions.parse(options).validate(protocol.name(), protocol.options()));
        } catch (IllegalArgumentException unknownProtocolOrBadOptions) {
            return Optional.empty();
        }
        if (spec.service() == null || !spec.onMemoryNode(requested.memoryNode()).sameShape(requested)) {
            return Optional.empty();
        }
        return Optional.of(spec.service());
    }
}
