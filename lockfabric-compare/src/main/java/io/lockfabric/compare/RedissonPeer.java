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
    private final long watchdogMs;

    RedissonPeer(int port, CompareWorkload w) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        this.watchdogMs = config.getLockWatchdogTimeout();
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

    /**
     * The watchdog timeout (30 s by default) and ten seconds more: a waiter that misses the unlock
     * message on its pub/sub channel tries again only when the lease it saw runs out (Redisson
     * issue 5761), so under load a waiter may be late by up to a lease without being stuck.
     */
    @Override
    public long stopGraceNs() {
        return java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(watchdogMs) + PeerClient.super.stopGraceNs();
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
