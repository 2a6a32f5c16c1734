package io.lockfabric.lock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;

import java.util.List;

/**
 * A range lock protocol: its name, the memory it needs on a memory node for one range lock over
 * [0, ∞), and per-client objects that run it. The range counterpart of {@link LockProtocol};
 * written against the fabric SPI only. Implementations are stateless and thread-safe; found by
 * name in a registry ({@code io.lockfabric.protocols.RangeLockProtocols}).
 */
public interface RangeLockProtocol {
    /** Registry name: {@code citron}, ... */
    String name();

    /** One line for listings and {@code --help}. */
    String description();

    /** False if the protocol only has exclusive locks: shared requests are then granted exclusive. */
    boolean supportsShared();

    /**
     * Whether clients opened with {@code options} grant shared requests shared (a protocol may make
     * its reader mode an option). Default: {@link #supportsShared()}.
     */
    default boolean supportsShared(LockOptions options) {
        return supportsShared();
    }

    /** True if fencing tokens follow {@link Grant}'s contract for every range; false if not checked. */
    boolean strictFencing();

    /**
     * Whether fencing tokens follow {@link Grant}'s contract for clients opened with
     * {@code options} (a protocol may make its tokens an option). Default: {@link #strictFencing()}.
     */
    default boolean strictFencing(LockOptions options) {
        return strictFencing();
    }

    /** What the protocol promises when clients crash or pause. */
    default FailureModel failureModel(LockOptions options) {
        return FailureModel.NONE;
    }

    /** The tunables this protocol reads from {@link LockOptions}. */
    default List<LockOption> options() {
        return List.of();
    }

    /** The table of one range lock (its size comes from the options). */
    TableSpec tableSpec(String tableName, LockOptions options);

    /** A client of an opened table (opened with {@link #tableSpec}). */
    RangeLockClient client(Endpoint endpoint, Table table, LockOptions options);

    /**
     * Opens (creating if needed) the named table on {@code endpoint}'s fabric and returns a client.
     * Options not bound to a timing are bound to the fabric's ({@link LockOptions#on}), so waits not
     * given take their defaults for this fabric.
     */
    default RangeLockClient open(Endpoint endpoint, String tableName, LockOptions options) {
        options.validate(name(), options());
        options = options.onUnlessBound(endpoint.fabric().timing());
        Table table = endpoint.openTable(tableSpec(tableName, options));
        return client(endpoint, table, options);
    }
}
