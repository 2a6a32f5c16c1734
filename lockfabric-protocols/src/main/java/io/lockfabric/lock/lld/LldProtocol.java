package io.lockfabric.lock.lld;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;

import java.util.List;

/**
 * {@code lld}: Kogan et al.'s lock-free list of range locks (EuroSys'20) driven with one-sided
 * verbs, CITRON's LLD baseline (FAST'23 §4.1). The list lives in a table of fixed entries
 * ({@link LldLayout}); each client reserves a pool of entries when it opens the table. See
 * {@link LldClient}. Exclusive only: shared requests are granted exclusive. Covers [0, ∞) with no
 * size parameter.
 */
public final class LldProtocol implements RangeLockProtocol {
    public static final String NAME = "lld";
    public static final LockOption MAX_CLIENTS = new LockOption("max-clients", 1024,
            "clients that may ever open one table (each reserves a pool of entries)");
    public static final LockOption POOL = new LockOption("pool", 4,
            "entries per client: ranges it may hold or have released but not yet seen unlinked");
    public static final LockOption POLL_NS = new LockOption("poll-ns", 1_000,
            "wait between two READs of an overlapping entry's link");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "lock-free sorted linked list of range entries (Kogan et al.) walked with one-sided READ/CAS";
    }

    @Override
    public boolean supportsShared() {
        return false;
    }

    /** The token is the entry's incarnation, not an ordered count. */
    @Override
    public boolean strictFencing() {
        return false;
    }

    @Override
    public List<LockOption> options() {
        return List.of(MAX_CLIENTS, POOL, POLL_NS);
    }

    private static void check(LockOptions options) {
        long clients = options.get(MAX_CLIENTS);
        long pool = options.get(POOL);
        if (clients < 1 || pool < 1 || pool > LldLayout.MAX_INDEX) {
            throw new IllegalArgumentException("lld needs max-clients >= 1 and pool in [1, " + LldLayout.MAX_INDEX
                    + "], got " + clients + " and " + pool);
        }
        if (clients > LldLayout.MAX_INDEX / pool) {
            throw new IllegalArgumentException("lld: max-clients x pool = " + clients + " x " + pool
                    + " exceeds the " + LldLayout.MAX_INDEX + " entries a 20-bit index can name");
        }
        if (options.get(POLL_NS) < 0) {
            throw new IllegalArgumentException("poll-ns must be >= 0, got " + options.get(POLL_NS));
        }
    }

    @Override
    public TableSpec tableSpec(String tableName, LockOptions options) {
        check(options);
        return new TableSpec(tableName, NAME, 1, LldLayout.tableBytes(options.get(MAX_CLIENTS), options.get(POOL)));
    }

    @Override
    public RangeLockClient client(Endpoint endpoint, Table table, LockOptions options) {
        check(options);
        long bytes = LldLayout.tableBytes(options.get(MAX_CLIENTS), options.get(POOL));
        if (table.spec().bytes() != bytes) {
            throw new IllegalArgumentException("table " + table.spec() + " is not an lld table of " + bytes + " bytes");
        }
        return new LldClient(endpoint, table, options.get(MAX_CLIENTS), (int) options.get(POOL), options.get(POLL_NS));
    }
}
