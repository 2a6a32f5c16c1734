package io.lockfabric.compare;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * etcd's lock service (v3lock, {@code Lock} / {@code Unlock}) through jetcd, one client (one gRPC
 * channel) shared by the threads.
 *
 * <p><b>Leases.</b> etcd's lock is owned by a lease: its key is the lock's name and the lease id, so
 * two acquisitions under one lease are the same owner and would both "hold" it. Each client thread
 * therefore has a lease of its own, granted on its first acquisition with a TTL of {@value #LEASE_TTL_S}
 * s and kept alive by jetcd ({@code Lease.keepAlive}: one keep-alive stream, renewing each lease once
 * a third of its TTL has passed), revoked on {@link #close()}. A client that dies lets its locks go
 * when its lease expires.
 *
 * <p>etcd has no reader-writer lock: a read takes the lock exclusive.
 */
final class EtcdPeer implements PeerClient {
    /** The TTL of each thread's lease, in seconds. */
    static final long LEASE_TTL_S = 10;

    private final Client client;
    private final Lock locks;
    private final Lease leases;
    private final ByteSequence[] names;
    private final ThreadLocal<Long> lease = new ThreadLocal<>();
    private final List<Long> granted = new ArrayList<>();
    private final List<CloseableClient> keepAlives = new ArrayList<>();

    /**
     * Connects to the etcd server on 127.0.0.1:{@code port} and waits at most {@code seconds} until
     * it serves (a single member answers once it has elected itself leader).
     */
    EtcdPeer(int port, CompareWorkload w, long seconds) throws InterruptedException {
        this.client = Client.builder().endpoints("http://127.0.0.1:" + port).build();
        this.locks = client.getLockClient();
        this.leases = client.getLeaseClient();
        this.names = new ByteSequence[w.locks()];
        for (int i = 0; i < names.length; i++) {
            names[i] = ByteSequence.from("lockfabric-compare/" + i, StandardCharsets.UTF_8);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        ByteSequence probe = ByteSequence.from("lockfabric-compare-ready", StandardCharsets.UTF_8);
        while (true) {
            try {
                client.getKVClient().get(probe).get(2, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    client.close();
                    throw new PeerUnavailableException("etcd: no answer from 127.0.0.1:" + port + " in " + seconds + " s: " + e, e);
                }
                Thread.sleep(100);
            }
        }
    }

    /** The lock the peer uses, for the report. */
    static String lockName(CompareWorkload w) {
        return w.reads() ? "Lock (reads take it exclusive)" : "Lock";
    }

    private long lease() throws ExecutionException, InterruptedException {
        Long id = lease.get();
        if (id == null) {
            id = leases.grant(LEASE_TTL_S).get().getID();
            CloseableClient keepAlive = leases.keepAlive(id, new StreamObserver<>() {
                @Override
                public void onNext(LeaseKeepAliveResponse value) {
                    // renewed
                }

                @Override
                public void onError(Throwable t) {
                    // the lease expires: the next acquisition under it fails, and the run counts the error
                }

                @Override
                public void onCompleted() {
                    // closed
                }
            });
            synchronized (granted) {
                granted.add(id);
                keepAlives.add(keepAlive);
            }
            lease.set(id);
        }
        return id;
    }

    @Override
    public Release acquire(int lock, boolean shared) throws Exception {
        ByteSequence key = locks.lock(names[lock], lease()).get().getKey();
        return () -> locks.unlock(key).get();
    }

    @Override
    public void close() {
        synchronized (granted) {
            keepAlives.forEach(CloseableClient::close);
            for (long id : granted) {
                try {
                    leases.revoke(id).get(2, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    // the server stops right after: the lease goes with it
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        client.close();
    }
}
