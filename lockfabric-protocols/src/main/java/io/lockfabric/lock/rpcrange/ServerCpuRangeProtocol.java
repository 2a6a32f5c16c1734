package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;

import java.util.function.Function;

/**
 * A server-CPU range lock manager of this package: a table of {@value #TABLE_BYTES} bytes (the
 * exclusive-grant count, the fencing tokens) whose rpc service is the manager's server, spoken to
 * by {@link RpcRangeClient} with {@link RpcRangeFrame}s, one rpc to acquire and one to release.
 * Reader-writer, over [0, ∞), no options, strict fencing, no recovery from crashed clients. The
 * managers differ only in their server's structure ({@code rpc-range}, {@code mt}, {@code llc}).
 */
abstract class ServerCpuRangeProtocol implements RangeLockProtocol {
    /** Every server's table: the fencing count at offset 0. */
    static final int TABLE_BYTES = 8;

    private final String name;
    private final String description;
    private final Function<RegionAccess, RpcHandler> server;

    ServerCpuRangeProtocol(String name, String description, Function<RegionAccess, RpcHandler> server) {
        this.name = name;
        this.description = description;
        this.server = server;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String description() {
        return description;
    }

    @Override
    public final boolean supportsShared() {
        return true;
    }

    /** Exclusive grants are counted in the table region; the count never restarts. */
    @Override
    public final boolean strictFencing() {
        return true;
    }

    @Override
    public final FailureModel failureModel(LockOptions options) {
        return new FailureModel(false, 0, 0, "no recovery: the server cannot tell that a client crashed; a crashed"
                + " holder (or a crashed waiter, once granted) blocks its range forever");
    }

    @Override
    public final TableSpec tableSpec(String tableName, LockOptions options) {
        return new TableSpec(tableName, name, 1, TABLE_BYTES).withService(host -> server.apply(host.table()));
    }

    @Override
    public final RangeLockClient client(Endpoint endpoint, Table table, LockOptions options) {
        if (table.spec().bytes() != TABLE_BYTES || !name.equals(table.spec().protocol())) {
            throw new IllegalArgumentException("table " + table.spec() + " is not an " + name + " table");
        }
        return new RpcRangeClient(name, endpoint, table);
    }
}
