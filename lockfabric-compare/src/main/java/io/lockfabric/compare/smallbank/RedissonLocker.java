package io.lockfabric.compare.smallbank;

import io.lockfabric.LockInterruptedException;
import io.lockfabric.txn.Locked;
import io.lockfabric.txn.Locker;
import io.lockfabric.txn.TxnLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Redis's lock the Redisson way: each key is a Redisson {@link RLock} (a hash holding its owner and
 * a re-entry count, a lease the client's watchdog renews while the holder lives, waiters woken by a
 * pub/sub message rather than polling), taken in one global order (keys sorted, a key twice once)
 * and released in the reverse order.
 *
 * <p><b>Exclusive only</b>, like {@link RedisSetNxLocker}: a shared {@link TxnLock} is taken
 * exclusive. An {@code RLock} belongs to the thread that took it, so a {@link Locked} must be closed
 * on its thread (the {@link Locker} contract says so anyway).
 */
public final class RedissonLocker implements Locker {
    private final RedissonClient client;
    private final boolean ownsClient;
    private final String prefix;

    /**
     * A locker on {@code client}'s server.
     *
     * @param client     the Redisson client
     * @param ownsClient whether {@link #close()} shuts it down
     * @param prefix     prepended to every lock's key
     */
    public RedissonLocker(RedissonClient client, boolean ownsClient, String prefix) {
        this.client = Objects.requireNonNull(client, "client");
        this.ownsClient = ownsClient;
        this.prefix = Objects.requireNonNull(prefix, "prefix");
    }

    @Override
    public String name() {
        return "redis-rlock";
    }

    @Override
    public Locked lockAll(List<TxnLock> locks) {
        List<RLock> taken = new ArrayList<>();
        boolean done = false;
        try {
            for (String key : keys(locks)) {
                RLock l = client.getLock(key);
                l.lock();
                taken.add(l);
            }
            done = true;
            return new Held(taken);
        } finally {
            if (!done) {
                unlock(taken);
            }
        }
    }

    @Override
    public Optional<Locked> tryLockAll(List<TxnLock> locks, Duration wait) {
        long deadline = System.nanoTime() + Math.max(0, wait.toNanos());
        List<RLock> taken = new ArrayList<>();
        boolean done = false;
        try {
            for (String key : keys(locks)) {
                RLock l = client.getLock(key);
                if (!l.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    return Optional.empty();
                }
                taken.add(l);
            }
            done = true;
            return Optional.of(new Held(taken));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException("a Redisson lock");
        } finally {
            if (!done) {
                unlock(taken);
            }
        }
    }

    private List<String> keys(List<TxnLock> locks) {
        return locks.stream().map(TxnLock::key).distinct().sorted().map(k -> prefix + k).toList();
    }

    private static void unlock(List<RLock> taken) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            taken.get(i).unlock();
        }
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.shutdown();
        }
    }

    /** A set held: released once, in the reverse order. */
    private static final class Held implements Locked {
        private final List<RLock> locks;
        private boolean closed;

        Held(List<RLock> locks) {
            this.locks = locks;
        }

        @Override
        public int count() {
            return locks.size();
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                unlock(locks);
            }
        }
    }
}
