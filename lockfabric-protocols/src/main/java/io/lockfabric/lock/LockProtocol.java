package io.lockfabric.lock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;

import java.util.List;

/**
 * A lock protocol: its name, the memory it needs on a memory node for a table of {@code n} locks,
 * and per-client objects that run it. Written against the fabric SPI only. Implementations are
 * stateless and thread-safe; found by name in a registry ({@code io.lockfabric.protocols.LockProtocols}).
 */
public interface LockProtocol {
    /** Registry name: {@code cas}, {@code cas-nb}, {@code dslr}, ... */
    String name();

    /** One line for listings and {@code --help}. */
    String description();

    /** False if the protocol only has exclusive locks: shared requests are then granted exclusive. */
    boolean supportsShared();

    /**
     * True if fencing tokens follow {@link Grant}'s contract across the lock's whole life; false if
     * they restart (the checker then does not check them).
     */
    boolean strictFencing();

    /** True if every client must be in one JVM (the {@code juc} reference). */
    default boolean requiresInProcessFabric() {
        return false;
    }

    /** What the protocol promises when clients crash or pause (its options may set the lease). */
    default FailureModel failureModel(LockOptions options) {
        return FailureModel.NONE;
    }

    /** The tunables this protocol reads from {@link LockOptions}. */
    default List<LockOption> options() {
        return List.of();
    }

    /** The table this protocol needs for {@code locks} locks. */
    TableSpec tableSpec(String tableName, long locks, LockOptions options);

    /** A client of an opened table (opened with {@link #tableSpec}). */
    LockClient client(Endpoint endpoint, Table table, LockOptions options);

    /**
     * Opens (creating if needed) the named table on {@code endpoint}'s fabric and returns a client.
     * Options not bound to a timing are bound to the fabric's ({@link LockOptions#on}), so waits not
     * given take their defaults for this fabric.
     */
    default LockClient open(Endpoint endpoint, String tableName, long locks, LockOptions options) {
        options.validate(name(), options());
        options = options.onUnlessBound(endpoint.fabric().timing());
        if (requiresInProcessFabric() && !endpoint.fabric().isInProcess()) {
            throw new IllegalArgumentException("protocol " + name() + " runs only on an in-process fabric, not on "
                    + endpoint.fabric().name());
        }
        Table table = endpoint.openTable(tableSpec(tableName, locks, options));
        return client(endpoint, table, options);
    }
}
