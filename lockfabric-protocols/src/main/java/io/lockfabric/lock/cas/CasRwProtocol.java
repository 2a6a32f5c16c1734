package io.lockfabric.lock.cas;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.TruncatedExponentialBackoff;

import java.util.List;

/** {@code cas-rw}: the owner | shared-count reader-writer word. See {@link CasRwClient}. */
public final class CasRwProtocol implements LockProtocol {
    public static final String NAME = "cas-rw";
    public static final LockOption BACKOFF_INIT_NS = new LockOption("backoff-init-ns",
            TruncatedExponentialBackoff.DEFAULT_INIT_NS,
            "initial truncated exponential backoff between a writer's failed CAS (0 = retry at once)");
    public static final LockOption POLL_INTERVAL_NS = new LockOption("poll-interval-ns", 0,
            "wait between a waiting reader's READs (0 = READ again at once, as the report's best setting)");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "CAS/FAA reader-writer word (DecLock's CASLock, the report's client-centric design)";
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    @Override
    public boolean strictFencing() {
        return true;
    }

    @Override
    public List<LockOption> options() {
        return List.of(BACKOFF_INIT_NS, POLL_INTERVAL_NS);
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        return LockTables.fixedStride(tableName, NAME, locks, CasRwLayout.WORD_BYTES);
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        return new CasRwClient(endpoint, table, options.get(BACKOFF_INIT_NS), options.get(POLL_INTERVAL_NS));
    }
}
