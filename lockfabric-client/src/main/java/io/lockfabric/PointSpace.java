package io.lockfabric;

import io.lockfabric.client.EndpointPool;
import io.lockfabric.client.KeyHash;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.Mode;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * A {@link LockSpace}: a table of {@code slots} locks of one protocol, opened on each endpoint of the
 * pool as it first serves the space, and the thread ownership of its {@code java.util.concurrent}
 * views.
 */
final class PointSpace extends SpaceCore implements LockSpace {
    /** The protocol client of this space on one endpoint. */
    private record Client(LockClient client, StatsCell cell) implements AutoCloseable {
        @Override
        public void close() {
            if (cell.behind()) {
                cell.publish(client.stats()); // on the endpoint's thread: what it counted is not lost
            }
            client.close();
        }
    }

    /** A thread's holds of one key through the j.u.c views. */
    private record Owner(Thread thread, String key) {
    }

    /** Counts of one thread's read and write holds of a key, and the grant under them. Touched by that thread only. */
    private static final class Ownership {
        int writes;
        int reads;
        final PooledHold hold;

        Ownership(PooledHold hold) {
            this.hold = hold;
        }
    }

    private final LockProtocol protocol;
    private final LockOptions lockOptions;
    private final long slots;
    /** Where a space's table is on the memory node: this prefix and the space's name. */
    static final String TABLE_PREFIX = "lockspace/";
    private final String tableName;
    private final ConcurrentHashMap<Owner, Ownership> owned = new ConcurrentHashMap<>();
    /** Opens this space's client on an endpoint (made once: a lambda made per request cost an allocation). */
    private final java.util.function.Function<io.lockfabric.fabric.Endpoint, Client> openClient;

    PointSpace(LockFabric fabric, String name, LockProtocol protocol, LockOptions lockOptions, long slots) {
        // bound once to the fabric's timing: the failure model's lease depends on it, and open() gets the same
        LockOptions bound = lockOptions.onUnlessBound(fabric.timing());
        super(fabric, name, protocol.name(), protocol.failureModel(bound));
        this.protocol = protocol;
        this.lockOptions = bound;
        this.slots = slots;
        this.tableName = TABLE_PREFIX + name;
        this.openClient = ep -> {
            LockClient client = protocol.open(ep, tableName, slots, this.lockOptions);
            if (client.answersWhileIdle()) {
                fabric.answerWhileIdle();
            }
            return new Client(client, newCell());
        };
    }

    private Client clientOn(EndpointPool.Worker worker) {
        return worker.client(this, Client.class, openClient);
    }

    @Override
    String tableName() {
        return tableName;
    }

    @Override
    void openOn(EndpointPool.Worker worker) {
        clientOn(worker);
    }

    @Override
    Grant acquireOn(EndpointPool.Worker worker, Request request) {
        return clientOn(worker).client().acquire(request.slot(), request.mode());
    }

    @Override
    void publishStatsOn(EndpointPool.Worker idle) {
        Client c = idle.existingClient(this, Client.class);
        if (c != null && c.cell().behind()) {
            c.cell().publish(c.client().stats());
        }
    }

    @Override
    void answerOn(EndpointPool.Worker idle) {
        Client c = idle.existingClient(this, Client.class);
        if (c != null) { // a client that answers nothing does nothing here (LockClient's default)
            try {
                c.client().whileIdle();
            } catch (RuntimeException e) {
                // the endpoint's next operation meets the same failure (a lost memory node, a closed fabric) and reports it
            }
        }
    }

    @Override
    long retriesOn(EndpointPool.Worker worker) {
        return clientOn(worker).client().stats().retries();
    }

    @Override
    void releaseOn(EndpointPool.Worker worker, Grant grant) {
        Client c = clientOn(worker);
        c.client().release(grant);
        if (c.cell().released()) {
            c.cell().publish(c.client().stats());
        }
    }

    @Override
    public long slots() {
        return slots;
    }

    @Override
    public boolean strictFencing() {
        return protocol.strictFencing() && fabric.localHandovers() == 0; // holders that share a grant share its token
    }

    @Override
    public long slotOf(String key) {
        return KeyHash.slot(Objects.requireNonNull(key, "key"), slots);
    }

    private Request request(String key, Mode mode) {
        return Request.point(key, slotOf(key), Objects.requireNonNull(mode, "mode"));
    }

    @Override
    public Held acquire(String key, Mode mode) {
        return acquireHere(request(key, mode));
    }

    @Override
    public Optional<Held> tryAcquire(String key, Mode mode, Duration wait) {
        return Optional.ofNullable(awaitUnchecked(submit(request(key, mode), 0), tryWaitNs(wait)));
    }

    @Override
    public Optional<Held> tryAcquire(String key, Mode mode, Duration wait, Duration leaseTime) {
        long autoNs = leaseTime.toNanos();
        if (autoNs <= 0) {
            throw new IllegalArgumentException("a lease time must be positive, got " + leaseTime);
        }
        return Optional.ofNullable(awaitUnchecked(submit(request(key, mode), autoNs), tryWaitNs(wait)));
    }

    @Override
    public CompletableFuture<Held> acquireAsync(String key, Mode mode) {
        return async(request(key, mode));
    }

    @Override
    public LockSession session() {
        return new EndpointSession(this, fabric.nextSequence());
    }

    /** A request of {@code key} in {@code mode} (for sessions). */
    Request requestOf(String key, Mode mode) {
        return request(key, mode);
    }

    @Override
    public Lock lock(String key) {
        return new OwnedLock(Objects.requireNonNull(key, "key"), true);
    }

    @Override
    public ReadWriteLock readWriteLock(String key) {
        Objects.requireNonNull(key, "key");
        Lock read = new OwnedLock(key, false);
        Lock write = new OwnedLock(key, true);
        return new ReadWriteLock() {
            @Override
            public Lock readLock() {
                return read;
            }

            @Override
            public Lock writeLock() {
                return write;
            }
        };
    }

    @Override
    public String toString() {
        return "LockSpace[" + name() + ", " + protocol() + ", " + slots + " slots]";
    }

    /**
     * The read or write lock of a key, owned by threads as {@code ReentrantReadWriteLock}'s are. A
     * thread's holds of a key live in {@link #owned} under (thread, key), which only that thread
     * reads or changes; the first hold takes a grant, the last unlock releases it.
     */
    private final class OwnedLock implements Lock {
        private final String key;
        private final boolean write;

        OwnedLock(String key, boolean write) {
            this.key = key;
            this.write = write;
        }

        private Owner me() {
            return new Owner(Thread.currentThread(), key);
        }

        /** Takes a nested hold if this thread already holds the key; false if it must ask the memory node. */
        private boolean reenter() {
            Ownership o = owned.get(me());
            if (o == null) {
                return false;
            }
            if (!write) {
                o.reads++;
                return true;
            }
            if (o.writes > 0) {
                o.writes++;
                return true;
            }
            throw new IllegalStateException("thread " + Thread.currentThread().getName() + " holds the read lock of "
                    + key + " and asks for its write lock: release the read lock first (upgrading would deadlock)");
        }

        private void install(PooledHold h) {
            Ownership o = new Ownership(h);
            if (write) {
                o.writes = 1;
            } else {
                o.reads = 1;
            }
            owned.put(me(), o);
        }

        private Request mine() {
            return request(key, write ? Mode.EXCLUSIVE : Mode.SHARED);
        }

        private PooledHold submitMine() {
            return submit(mine(), 0);
        }

        @Override
        public void lock() {
            if (!reenter()) {
                install(acquireHere(mine()));
            }
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (!reenter()) {
                install(await(submitMine(), -1));
            }
        }

        @Override
        public boolean tryLock() {
            if (reenter()) {
                return true;
            }
            PooledHold h = awaitUnchecked(submitMine(), fabric.tryLockGraceNs());
            if (h == null) {
                return false;
            }
            install(h);
            return true;
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (reenter()) {
                return true;
            }
            PooledHold h = await(submitMine(), Math.max(unit.toNanos(time), fabric.tryLockGraceNs()));
            if (h == null) {
                return false;
            }
            install(h);
            return true;
        }

        @Override
        public void unlock() {
            Owner me = me();
            Ownership o = owned.get(me);
            if (o == null || (write ? o.writes : o.reads) == 0) {
                throw new IllegalMonitorStateException("thread " + Thread.currentThread().getName() + " does not hold the "
                        + (write ? "write" : "read") + " lock of " + key + " in space '" + name() + "'");
            }
            if (write) {
                o.writes--;
            } else {
                o.reads--;
            }
            if (o.writes == 0 && o.reads == 0) {
                owned.remove(me);
                o.hold.close();
            }
        }

        /** @throws UnsupportedOperationException always: a condition would need notifications between processes */
        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException("lock space locks have no conditions: waking a waiter in another "
                    + "process would need a notification the protocols do not have");
        }

        @Override
        public String toString() {
            return (write ? "WriteLock[" : "ReadLock[") + name() + " " + key + "]";
        }
    }
}
