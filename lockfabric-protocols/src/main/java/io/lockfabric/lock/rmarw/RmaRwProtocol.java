package io.lockfabric.lock.rmarw;

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
 * {@code rmarw}: the RMA-RW reader-writer lock, ShiftLock's RMA-RW baseline: an MCS queue of
 * writers and arrive/depart reader counters in one 128-bit entry. No fault tolerance. See
 * {@link RmaRwClient}.
 */
public final class RmaRwProtocol implements LockProtocol {
    public static final String NAME = "rmarw";
    public static final LockOption WRITE_THRESHOLD = new LockOption("write-threshold", 16,
            "consecutive writers handed the lock before it goes to the readers (ModeChanged)");
    public static final LockOption READER_THRESHOLD = new LockOption("reader-threshold", 4000,
            "reader arrivals after which readers stay out until the counters are reset");
    public static final LockOption BACKOFF_INIT_NS = new LockOption("backoff-init-ns",
            TruncatedExponentialBackoff.DEFAULT_INIT_NS,
            "initial truncated exponential backoff of a refused reader and between polls of the entry");
    /** Leaves room in the 31-bit arrive count for refused readers' in-flight increments. */
    public static final long MAX_READER_THRESHOLD = 1L << 30;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "RMA-RW: MCS queue of writers plus arrive/depart reader counters in a 128-bit entry (read-preferring)";
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    /** Writers count grants one by one; readers take the count left by the last writer. */
    @Override
    public boolean strictFencing() {
        return true;
    }

    @Override
    public FailureModel failureModel(LockOptions options) {
        return FailureModel.NONE;
    }

    @Override
    public List<LockOption> options() {
        return List.of(WRITE_THRESHOLD, READER_THRESHOLD, BACKOFF_INIT_NS);
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        return LockTables.fixedStride(tableName, NAME, locks, RmaRwLayout.ENTRY_BYTES);
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        long writeThreshold = options.get(WRITE_THRESHOLD);
        if (writeThreshold < 1) {
            throw new IllegalArgumentException("write-threshold must be >= 1, got " + writeThreshold);
        }
        long readerThreshold = options.get(READER_THRESHOLD);
        if (readerThreshold < 1 || readerThreshold > MAX_READER_THRESHOLD) {
            throw new IllegalArgumentException("reader-threshold must be in [1, " + MAX_READER_THRESHOLD + "], got "
                    + readerThreshold);
        }
        long backoff = options.get(BACKOFF_INIT_NS);
        if (backoff < 0) {
            throw new IllegalArgumentException("backoff-init-ns must be >= 0, got " + backoff);
        }
        return new RmaRwClient(endpoint, table, writeThreshold, readerThreshold, backoff);
    }
}
