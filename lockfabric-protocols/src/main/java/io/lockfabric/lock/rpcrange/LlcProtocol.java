package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;

/**
 * {@code llc}: CITRON's type-I baseline "LLC" (FAST'23 Table 1: a lock-free linked list of range
 * locks, Kogan et al. EuroSys'20, run by the lock server's CPU): the list is {@link LlcList}, served
 * by {@link LlcServer} on the memory node's CPU threads with CAS only; one rpc to acquire and one
 * to release (the {@code rpc-range} client and frames). Reader-writer (readers overlap readers,
 * never writers; waiters are parked on the node that blocks them and woken by its release, no
 * fairness), over [0, ∞), no options. {@code lld} is the same list with every step a one-sided verb.
 */
public final class LlcProtocol implements RangeLockProtocol {
    public static final String NAME = "llc";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "server-side range lock manager on the memory node's CPU: lock-free linked list of ranges (CAS), "
                + "waiters woken by releases";
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
        return new TableSpec(tableName, NAME, 1, LlcServer.TABLE_BYTES).withService(host -> new LlcServer(host.table()));
    }

    @Override
    public RangeLockClient client(Endpoint endpoint, Table table, LockOptions options) {
        if (table.spec().bytes() != LlcServer.TABLE_BYTES || !NAME.equals(table.spec().protocol())) {
            throw new IllegalArgumentException("table " + table.spec() + " is not an llc table");
        }
        return new RpcRangeClient(NAME, endpoint, table);
    }
}
