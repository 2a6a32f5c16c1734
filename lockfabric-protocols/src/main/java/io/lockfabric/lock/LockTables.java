package io.lockfabric.lock;

import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;

/**
 * Tables of fixed-size lock entries, lock {@code i} at byte {@code i × bytesPerLock}: the layout
 * of every per-lock protocol. One place for the spec and the checked address arithmetic.
 */
public final class LockTables {
    private LockTables() {
    }

    /** The spec of a table of {@code locks} entries of {@code bytesPerLock} bytes, zero-filled. */
    public static TableSpec fixedStride(String tableName, String protocol, long locks, long bytesPerLock) {
        if (locks < 1) {
            throw new IllegalArgumentException("a table needs at least one lock, got " + locks);
        }
        return new TableSpec(tableName, protocol, locks, Math.multiplyExact(locks, bytesPerLock));
    }

    /**
     * The remote address of lock {@code lockId}'s entry.
     *
     * @throws IllegalArgumentException if {@code lockId} is not in [0, locks)
     */
    public static long entryAddress(Table table, long lockId, long bytesPerLock) {
        long locks = table.spec().locks();
        if (lockId < 0 || lockId >= locks) {
            throw new IllegalArgumentException("lock " + lockId + " outside [0, " + locks + ")");
        }
        return table.address() + lockId * bytesPerLock;
    }
}
