package io.lockfabric.compare;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;

import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Hazelcast's {@code FencedLock} (the CP subsystem's lock) through a Hazelcast client connected to
 * the members, which run in processes of their own. FencedLock has no shared mode: a read takes it
 * exclusive.
 */
final class HazelcastPeer implements PeerClient {
    private final HazelcastInstance client;
    private final AtomicReferenceArray<FencedLock> locks;

    HazelcastPeer(String cluster, List<Integer> ports, CompareWorkload w) {
        ClientConfig config = new ClientConfig();
        config.setClusterName(cluster);
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        for (int p : ports) {
            config.getNetworkConfig().addAddress("127.0.0.1:" + p);
        }
        this.client = HazelcastClient.newHazelcastClient(config);
        this.locks = new AtomicReferenceArray<>(w.locks());
        // the first FencedLock creates the CP group its locks live in (a Raft group, with a CP group of
        // members) and the client's CP session: done here, before the warm-up, not by the measured threads
        FencedLock first = client.getCPSubsystem().getLock(name(0));
        first.lock();
        first.unlock();
    }

    private static String name(int lock) {
        return "lockfabric-compare-" + lock;
    }

    @Override
    public Release acquire(int lock, boolean shared) {
        FencedLock l = locks.get(lock);
        if (l == null) {
            l = client.getCPSubsystem().getLock(name(lock));
            locks.set(lock, l);
        }
        l.lock();
        return l::unlock;
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
