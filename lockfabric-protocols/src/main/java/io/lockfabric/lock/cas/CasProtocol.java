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

/**
 * The CAS spinlock baseline (ShiftLock §2.2–2.3, DecLock §2.2): exclusive only. {@code cas-nb}
 * retries a failed CAS at once; {@code cas} waits SMART's truncated exponential backoff first.
 * See {@link CasClient}.
 */
public final class CasProtocol implements LockProtocol {
    public static final LockOption BACKOFF_INIT_NS = new LockOption("backoff-init-ns",
            TruncatedExponentialBackoff.DEFAULT_INIT_NS, "initial backoff of the truncated exponential backoff (cas only)");

    private final boolean backoff;

    private CasProtocol(boolean backoff) {
        this.backoff = backoff;
    }

    /** {@code cas}: with SMART truncated exponential backoff. */
    public static CasProtocol withBackoff() {
        return new CasProtocol(true);
    }

    /** {@code cas-nb}: retry at once. */
    public static CasProtocol noBackoff() {
        return new CasProtocol(false);
    }

    @Override
    public String name() {
        return backoff ? "cas" : "cas-nb";
    }

    @Override
    public String description() {
        return backoff ? "CAS spinlock with SMART truncated exponential backoff (exclusive only)"
                : "CAS spinlock, failed CAS retried at once (exclusive only)";
    }

    @Override
    public boolean supportsShared() {
        return false;
    }

    @Override
    public boolean strictFencing() {
        return true;
    }

    @Override
    public List<LockOption> options() {
        return backoff ? List.of(BACKOFF_INIT_NS) : List.of();
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        return LockTables.fixedStride(tableName, name(), locks, CasLayout.WORD_BYTES);
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        long init = backoff ? options.get(BACKOFF_INIT_NS) : 0;
        return new CasClient(endpoint, table, init);
    }
}
