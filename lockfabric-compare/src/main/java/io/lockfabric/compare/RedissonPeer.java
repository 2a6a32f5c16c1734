package io.lockfabric.compare;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Redisson on a redis-server: {@code RLock} (lock / unlock, its watchdog lease) when every
 * acquisition is exclusive, {@code RReadWriteLock} (read lock shared, write lock exclusive) when
 * reads are in the mix. The client as configured by default but for the server's address.
 */
final class RedissonPeer implements PeerClient {
    private final RedissonClient client;
    private final boolean readWrite;
    private final AtomicReferenceArray<RLock> locks;
    private final AtomicReferenceArray<RReadWriteLock> rwLocks;

    RedissonPeer(int port, CompareWorkload w) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        this.client = Redisson.create(config);
        this.readWrite = w.reads();
        this.locks = new AtomicReferenceArray<>(w.locks());
        this.rwLocks = new AtomicReferenceArray<>(w.locks());
    }

    /** The lock the peer uses, for the report. */
    static String lockName(CompareWorkload w) {
        return w.reads() ? "RReadWriteLock" : "RLock";
    }

    @Override
    public Release acquire(int lock, boolean shared) {
        RLock l;
        if (readWrite) {
            RReadWriteLock rw = rwLocks.get(lock);
            if (rw == null) {
                rw = client.getReadWriteLock("lockfabric-compare:" + lock);
                rwLocks.set(lock, rw);
            }
            l = shared ? rw.readLock() : rw.writeLock();
        } else {
            l = locks.get(lock);
            if (l == null) {
                l = client.getLock("lockfabric-compare:" + lock);
                locks.set(lock, l);
            }
        }
        l.lock();
        return l::unlock;
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
