package io.lockfabric.lock.juc;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.Mode;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The "ideal" reference (DecLock Fig. 1): every client is a thread of one JVM and a lock is a
 * {@link ReentrantReadWriteLock} in that JVM's heap, created on first use. No remote operation at
 * all: the throughput a lock manager can at best approach. Runs only on an in-process fabric.
 *
 * <p>The fencing token is a per-lock count of exclusive grants, kept under the lock itself.
 */
public final class JucProtocol implements LockProtocol {
    public static final String NAME = "juc";

    /** The lock arrays of one fabric's tables, by name: kept in the fabric's attachments, they go with it. */
    private static final class Tables {
        private final Map<String, LockArray> byName = new HashMap<>();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "ideal reference: java.util.concurrent reader-writer locks shared by threads of one JVM (local only)";
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
    public boolean requiresInProcessFabric() {
        return true;
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        if (locks < 1 || locks > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("juc supports 1 .. 2^31 - 9 locks, got " + locks);
        }
        // The memory node holds a placeholder word: the locks themselves live in this JVM's heap.
        return new TableSpec(tableName, NAME, locks, 8);
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        Tables tables = endpoint.fabric().attachments().computeIfAbsent(Tables.class, Tables::new);
        LockArray locks;
        synchronized (tables) {
            locks = tables.byName.computeIfAbsent(table.spec().name(), n -> new LockArray((int) table.spec().locks()));
        }
        return new Client(locks);
    }

    private static final class LockArray {
        final AtomicReferenceArray<ReentrantReadWriteLock> locks;
        final long[] exclusiveGrants; // guarded by the write lock of the same index

        LockArray(int n) {
            locks = new AtomicReferenceArray<>(n);
            exclusiveGrants = new long[n];
        }

        ReentrantReadWriteLock lock(int i) {
            ReentrantReadWriteLock l = locks.get(i);
            if (l == null) {
                ReentrantReadWriteLock fresh = new ReentrantReadWriteLock();
                l = locks.compareAndExchange(i, null, fresh);
                if (l == null) {
                    l = fresh;
                }
            }
            return l;
        }
    }

    private record JucGrant(long lockId, Mode mode, long fencingToken) implements Grant {
    }

    private static final class Client implements LockClient {
        private final LockArray table;

        Client(LockArray table) {
            this.table = table;
        }

        @Override
        public Grant acquire(long lockId, Mode mode) {
            int i = index(lockId);
            ReentrantReadWriteLock l = table.lock(i);
            if (mode == Mode.EXCLUSIVE) {
                l.writeLock().lock();
                return new JucGrant(lockId, mode, ++table.exclusiveGrants[i]);
            }
            l.readLock().lock();
            return new JucGrant(lockId, mode, table.exclusiveGrants[i]);
        }

        @Override
        public void release(Grant grant) {
            ReentrantReadWriteLock l = table.lock(index(grant.lockId()));
            if (grant.mode() == Mode.EXCLUSIVE) {
                l.writeLock().unlock();
            } else {
                l.readLock().unlock();
            }
        }

        @Override
        public long locks() {
            return table.exclusiveGrants.length;
        }

        private int index(long lockId) {
            if (lockId < 0 || lockId >= table.exclusiveGrants.length) {
                throw new IllegalArgumentException("lock " + lockId + " outside [0, " + table.exclusiveGrants.length + ")");
            }
            return (int) lockId;
        }
    }
}
