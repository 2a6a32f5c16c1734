package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;

/**
 * {@code rpc-range}: the server-side range lock baseline (CITRON's "IT", Lustre-style): an interval
 * tree of granted ranges and a FIFO of waiting requests on the memory node's CPU
 * ({@link RpcRangeServer}), one rpc to acquire and one to release ({@link RpcRangeClient}).
 * Reader-writer, over [0, ∞), no options.
 */
public final class RpcRangeProtocol implements RangeLockProtocol {
    public static final String NAME = "rpc-range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "server-side range lock manager on the memory node's CPU: interval tree of grants, FIFO of waiters";
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    /** Exclusive grants are counted in the table region; the count never restarts. */
    @Override
    public boolean strictFencing() {
        return true;
    }

    @Override
    public FailureModel failureModel(LockOptions options) {
        return new FailureModel(false, 0, 0, "no recovery: the server cannot tell that a client crashed; a crashed"
                + " holder (or a crashed waiter, once granted) blocks its range forever");
    }

    @Override
    public TableSpec tableSpec(String tableName, LockOptions options) {
        return new TableSpec(tableName, NAME, 1, RpcRangeServer.TABLE_BYTES).withService(host -> new RpcRangeServer(host.table()));
    }

    @Override
    public RangeLockClient client(Endpoint endpoint, Table table, LockOptions options) {
        if (table.spec().bytes() != RpcRangeServer.TABLE_BYTES || !NAME.equals(table.spec().protocol())) {
            throw new IllegalArgumentException("table " + table.spec() + " is not an rpc-range table");
        }
        return new RpcRangeClient(endpoint, table);
    }
}
