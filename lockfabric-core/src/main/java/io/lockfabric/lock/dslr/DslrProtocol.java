package io.lockfabric.lock.dslr;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.TruncatedExponentialBackoff;

import java.util.List;

/** {@code dslr}: DSLR's bakery reader-writer lock. See {@link DslrClient}. */
public final class DslrProtocol implements LockProtocol {
    public static final String NAME = "dslr";
    public static final LockOption OMEGA_NS = new LockOption("omega-ns", 20_000,
            "dynamic waiting interval per holder or waiter ahead (authors: 20 us; ShiftLock artifact: 1862 ns)");
    public static final LockOption MAX_WAIT_NS = new LockOption("max-wait-ns", 1_000_000,
            "cap on one dynamic wait before a READ");
    public static final LockOption COUNT_MAX = new LockOption("count-max", DslrLayout.COUNT_MAX,
            "ticket count that triggers the overflow reset (at most 32768)");
    public static final LockOption RESET_BACKOFF_NS = new LockOption("reset-backoff-ns",
            TruncatedExponentialBackoff.DEFAULT_INIT_NS,
            "initial backoff of a client that met a reset in progress (and of the resetter's CAS)");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "DSLR bakery reader-writer lock: FAA tickets, READ polling with dynamic intervals";
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    /** Tickets restart at every overflow reset. */
    @Override
    public boolean strictFencing() {
        return false;
    }

    @Override
    public List<LockOption> options() {
        return List.of(OMEGA_NS, MAX_WAIT_NS, COUNT_MAX, RESET_BACKOFF_NS);
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        if (locks < 1) {
            throw new IllegalArgumentException("a table needs at least one lock");
        }
        return new TableSpec(tableName, NAME, locks, Math.multiplyExact(locks, DslrLayout.WORD_BYTES));
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        long countMax = options.get(COUNT_MAX);
        if (countMax < 2 || countMax > DslrLayout.COUNT_MAX) {
            throw new IllegalArgumentException("count-max must be in [2, " + DslrLayout.COUNT_MAX + "], got " + countMax);
        }
        long omega = options.get(OMEGA_NS);
        long maxWait = options.get(MAX_WAIT_NS);
        if (omega < 0 || maxWait < 0) {
            throw new IllegalArgumentException("omega-ns and max-wait-ns must be >= 0");
        }
        return new DslrClient(endpoint, table, omega, maxWait, (int) countMax, options.get(RESET_BACKOFF_NS));
    }
}
