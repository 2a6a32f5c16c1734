package io.lockfabric.net;

import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockProtocols;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.lock.RangeLockProtocols;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Builds, on the memory node, the rpc service of a table a remote client opens. A service is Java
 * code and cannot travel, so the client sends what the service depends on instead: the table's
 * protocol name and lock count (in its shape) and the options its factory declares
 * ({@link TableSpec.ServiceFactory#options()}). The server looks the protocol name up in a
 * registry, asks that protocol for the table with those options, and uses the service only if the
 * spec it gets has exactly the shape the client asked for. Thread-safe.
 *
 * <p>The default, {@link #registered()}, looks in both registries: {@link LockProtocols} (rpc's and
 * shiftlock's services) and {@link RangeLockProtocols} (range protocols' table services), so any
 * protocol registered in either, under the name its tables carry, is served without a change
 * here.
 */
@FunctionalInterface
public interface ServiceResolver {
    /** The service factory for {@code requested} built with {@code options}, or empty if this resolver cannot. */
    Optional<TableSpec.ServiceFactory> resolve(TableSpec requested, List<String> options);

    /** This resolver's service, or else {@code other}'s. */
    default ServiceResolver orElse(ServiceResolver other) {
        return (requested, options) -> {
            Optional<TableSpec.ServiceFactory> mine = resolve(requested, options);
            return mine.isPresent() ? mine : other.resolve(requested, options);
        };
    }

    /** The default: services of the registered lock protocols, then of the registered range protocols. */
    static ServiceResolver registered() {
        return lockProtocols().orElse(rangeLockProtocols());
    }

    /** Services of the registered lock protocols ({@link LockProtocols}). */
    static ServiceResolver lockProtocols() {
        return ServiceResolver::fromLockProtocols;
    }

    /** Services of the registered range protocols ({@link RangeLockProtocols}). */
    static ServiceResolver rangeLockProtocols() {
        return rangeLockProtocols(RangeLockProtocols::byName);
    }

    /**
     * Services of the range protocols {@code byName} knows (it throws IllegalArgumentException for
     * a name it does not know). A range protocol's table is one range lock, so its shape comes
     * from the options alone.
     */
    static ServiceResolver rangeLockProtocols(Function<String, RangeLockProtocol> byName) {
        return (requested, options) -> {
            TableSpec spec;
            try {
                RangeLockProtocol protocol = byName.apply(requested.protocol());
                spec = protocol.tableSpec(requested.name(),
                        LockOptions.parse(options).validate(protocol.name(), protocol.options()));
            } catch (IllegalArgumentException unknownProtocolOrBadOptions) {
                return Optional.empty();
            }
            return serviceIfSameShape(spec, requested);
        };
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
        return serviceIfSameShape(spec, requested);
    }

    private static Optional<TableSpec.ServiceFactory> serviceIfSameShape(TableSpec built, TableSpec requested) {
        if (built.service() == null || !built.onMemoryNode(requested.memoryNode()).sameShape(requested)) {
            return Optional.empty();
        }
        return Optional.of(built.service());
    }
}
