package io.lockfabric.lock.rpc;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.TruncatedExponentialBackoff;

import java.util.List;

/**
 * {@code rpc}: the server-side lock manager baseline. The lock logic ({@link RpcLockServer}) is
 * the table's rpc service on its memory node; clients ({@link RpcLockClient}) send one rpc to
 * acquire and one to release. By default the server queues requests FIFO and replies when it
 * grants; with {@code retry-on-fail=1} (the ShiftLock artifact's variant) it answers at once and
 * clients retry after a truncated exponential backoff.
 */
public final class RpcLockProtocol implements LockProtocol {
    public static final String NAME = "rpc";
    public static final LockOption RETRY_ON_FAIL = new LockOption("retry-on-fail", 0,
            "1: the server refuses a request it cannot grant at once and the client retries (ShiftLock's RPC"
                    + " baseline); 0: the server queues it FIFO and replies when it grants");
    public static final LockOption BACKOFF_INIT_NS = new LockOption("backoff-init-ns",
            TruncatedExponentialBackoff.DEFAULT_INIT_NS,
            "initial truncated exponential backoff between retries (retry-on-fail only; 0: retry at once)");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "server-side reader-writer lock manager on the memory node's CPU: FIFO queues, deferred replies"
                + " (retry-on-fail=1: ShiftLock's retry-on-fail RPC baseline)";
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    /** The server counts exclusive grants per lock in the table region; the count never restarts. */
    @Override
    public boolean strictFencing() {
        return true;
    }

    @Override
    public List<LockOption> options() {
        return List.of(RETRY_ON_FAIL, BACKOFF_INIT_NS);
    }

    /**
     * No recovery: the server has no way to learn that a client crashed (an rpc tells it who
     * called, not whether the caller is still alive), so a crashed holder, or a crashed waiter that
     * is granted later, blocks its lock forever.
     */
    @Override
    public FailureModel failureModel(LockOptions options) {
        return new FailureModel(false, 0, 0, "no recovery: the server cannot tell that a client crashed; a crashed"
                + " holder (or a crashed waiter, once granted) blocks its lock forever");
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        return LockTables.fixedStride(tableName, NAME, locks, RpcLockServer.FENCE_WORD_BYTES)
                .withService(host -> new RpcLockServer(host.table(), locks));
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        long retry = options.get(RETRY_ON_FAIL);
        if (retry != 0 && retry != 1) {
            throw new IllegalArgumentException("retry-on-fail must be 0 or 1, got " + retry);
        }
        long init = options.get(BACKOFF_INIT_NS);
        if (init < 0) {
            throw new IllegalArgumentException("backoff-init-ns must be >= 0, got " + init);
        }
        return new RpcLockClient(endpoint, table, retry == 1, init);
    }
}
