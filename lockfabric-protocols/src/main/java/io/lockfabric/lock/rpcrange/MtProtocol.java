package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;

/**
 * {@code mt}: CITRON's type-I baseline "MT" (FAST'23 Table 1: "Maple tree", ported from Oracle
 * Linux UEK): a B-tree of disjoint held ranges on the memory node's CPU ({@link MtServer},
 * {@link RangeBTree}), one rpc to acquire and one to release (the {@code rpc-range} client and
 * frames). Reader-writer (readers overlap readers, never writers; waiters are queued and woken by
 * releases, FIFO among overlapping requests), over [0, ∞), no options.
 */
public final class MtProtocol implements RangeLockProtocol {
    public static final String NAME = "mt";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "server-side range lock manager on the memory node's CPU: B-tree of disjoint held ranges "
                + "(Maple-tree style), FIFO of waiters";
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
        return new TableSpec(tableName, NAME, 1, MtServer.TABLE_BYTES).withService(host -> new MtServer(host.table()));
    }

    @Override
    public RangeLockClient client(Endpoint endpoint, Table table, LockOptions options) {
        if (table.spec().bytes() != MtServer.TABLE_BYTES || !NAME.equals(table.spec().protocol())) {
            throw new IllegalArgumentException("table " + table.spec() + " is not an mt table");
        }
        return new RpcRangeClient(NAME, endpoint, table);
    }
}
