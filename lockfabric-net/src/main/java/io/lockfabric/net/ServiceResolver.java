package io.lockfabric.net;

import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockProtocols;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds, on the memory node, the rpc service of a table a remote client opens: a service is Java
 * code and cannot travel, so the server rebuilds it from the table's protocol name through
 * {@link LockProtocols}. The protocol's {@link LockProtocol#tableSpec} is asked for a table of the
 * same name and lock count, first with default options, then with one option at a time set to a
 * small value or a power of two (a shiftlock table's {@code eras} changes its size); the first spec
 * of the same shape gives the service. Thread-safe.
 */
public interface ServiceResolver {
    /** The service factory for {@code requested}, or empty if this resolver cannot build it. */
    Optional<TableSpec.ServiceFactory> resolve(TableSpec requested);

    /** The default: services of the registered lock protocols. */
    static ServiceResolver lockProtocols() {
        return ServiceResolver::fromLockProtocols;
    }

    /** Largest option value tried one by one; beyond it only powers of two up to {@link #MAX_POWER}. */
    int MAX_SMALL_VALUE = 64;
    int MAX_POWER = 20;

    private static Optional<TableSpec.ServiceFactory> fromLockProtocols(TableSpec requested) {
        LockProtocol protocol;
        try {
            protocol = LockProtocols.byName(requested.protocol());
        } catch (IllegalArgumentException unknown) {
            return Optional.empty();
        }
        List<LockOptions> candidates = new ArrayList<>();
        candidates.add(LockOptions.DEFAULTS);
        for (LockOption o : protocol.options()) {
            for (long v = 1; v <= MAX_SMALL_VALUE; v++) {
                candidates.add(LockOptions.of(Map.of(o.name(), v)));
            }
            for (int p = 7; p <= MAX_POWER; p++) {
                candidates.add(LockOptions.of(Map.of(o.name(), 1L << p)));
            }
        }
        for (LockOptions options : candidates) {
            TableSpec spec;
            try {
                spec = protocol.tableSpec(requested.name(), requested.locks(), options);
            } catch (RuntimeException invalidOption) {
                continue;
            }
            if (spec.service() != null && spec.onMemoryNode(requested.memoryNode()).sameShape(requested)) {
                return Optional.of(spec.service());
            }
        }
        return Optional.empty();
    }
}
