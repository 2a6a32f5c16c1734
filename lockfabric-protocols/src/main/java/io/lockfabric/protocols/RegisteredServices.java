package io.lockfabric.protocols;

import io.lockfabric.fabric.ServiceResolver;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.RangeLockProtocol;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The {@link ServiceResolver} of the registered protocols, installed as a {@link
 * java.util.ServiceLoader} provider: a remote memory node rebuilds a table's rpc service from the
 * protocol name its tables carry, looking in both registries: {@link LockProtocols} (rpc's and
 * shiftlock's services) and {@link RangeLockProtocols} (range protocols' table services). Any
 * protocol registered in either is served without a change in the fabric. Thread-safe.
 */
public final class RegisteredServices implements ServiceResolver {
    private final ServiceResolver both = lockProtocols().orElse(rangeLockProtocols());

    /** The resolver of both registries (the {@link java.util.ServiceLoader} provider constructor). */
    public RegisteredServices() {
    }

    @Override
    public Optional<TableSpec.ServiceFactory> resolve(TableSpec requested, List<String> options) {
        return both.resolve(requested, options);
    }

    /** Services of the registered lock protocols ({@link LockProtocols}). */
    public static ServiceResolver lockProtocols() {
        return RegisteredServices::fromLockProtocols;
    }

    /** Services of the registered range protocols ({@link RangeLockProtocols}). */
    public static ServiceResolver rangeLockProtocols() {
        return rangeLockProtocols(RangeLockProtocols::byName);
    }

    /**
     * Services of the range protocols {@code byName} knows (it throws IllegalArgumentException for
     * a name it does not know). A range protocol's table is one range lock, so its shape comes
     * from the options alone.
     */
    public static ServiceResolver rangeLockProtocols(Function<String, RangeLockProtocol> byName) {
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
