package io.lockfabric.compare;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Curator on a ZooKeeper server: {@code InterProcessMutex} when every acquisition is exclusive,
 * {@code InterProcessReadWriteLock} when reads are in the mix; one lock object per lock, shared by
 * the threads (Curator keeps each thread's hold apart), one client connection.
 */
final class CuratorPeer implements PeerClient {
    private final CuratorFramework client;
    private final boolean readWrite;
    private final AtomicReferenceArray<InterProcessMutex> mutexes;
    private final AtomicReferenceArray<InterProcessReadWriteLock> rwLocks;

    CuratorPeer(int port, CompareWorkload w) throws InterruptedException {
        this.client = CuratorFrameworkFactory.newClient("127.0.0.1:" + port, new ExponentialBackoffRetry(100, 5));
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            client.close();
            throw new PeerUnavailableException("curator: no connection to ZooKeeper on 127.0.0.1:" + port + " in 30 s");
        }
        this.readWrite = w.reads();
        this.mutexes = new AtomicReferenceArray<>(w.locks());
        this.rwLocks = new AtomicReferenceArray<>(w.locks());
    }

    /** The lock the peer uses, for the report. */
    static String lockName(CompareWorkload w) {
        return w.reads() ? "InterProcessReadWriteLock" : "InterProcessMutex";
    }

    @Override
    public Release acquire(int lock, boolean shared) throws Exception {
        InterProcessLock l;
        String path = "/lockfabric-compare/" + lock;
        if (readWrite) {
            InterProcessReadWriteLock rw = rwLocks.get(lock);
            if (rw == null) {
                rwLocks.compareAndSet(lock, null, new InterProcessReadWriteLock(client, path));
                rw = rwLocks.get(lock);
            }
            l = shared ? rw.readLock() : rw.writeLock();
        } else {
            InterProcessMutex m = mutexes.get(lock);
            if (m == null) {
                mutexes.compareAndSet(lock, null, new InterProcessMutex(client, path));
                m = mutexes.get(lock);
            }
            l = m;
        }
        l.acquire();
        return l::release;
    }

    @Override
    public void close() {
        client.close();
    }
}
