package io.lockfabric.apps.btree;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.TruncatedExponentialBackoff;
import io.lockfabric.lock.cas.CasLayout;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Sherman's hierarchical on-chip lock (HOCL, SIGMOD'22 §4.2), as a {@link LockClient} over a table of
 * remote CAS lock words (the {@code cas} protocol's table and word, {@link CasLayout}): the clients
 * of one compute node first queue on a <b>local lock</b> per
 * lock id (a FIFO, kept in the compute node's {@link Endpoint#computeNode() attachments}), and only
 * the local holder competes for the remote lock. A releasing holder with local waiters <b>hands
 * the remote lock over</b> to the first of them without a memory-node operation, at most
 * {@code handoverBound} times in a row (Sherman's bound, 4 in DecLock's account of it); then it
 * releases the remote lock and the next local waiter acquires it afresh, so other compute nodes get
 * their turn. The remote lock is taken as {@code cas} takes it (a masked CAS installing the
 * acquirer's owner field, retried after a truncated exponential backoff) and released by whichever
 * local client holds it last (a CAS from the held word, owner and epoch carried in the grant, to
 * the next epoch): a grant handed over is released by a client that did not acquire it, which a
 * {@code cas} client cannot do, so this class runs the word itself.
 *
 * <p>Exclusive only (Sherman's locks are): a shared request is granted exclusive. A local waiter
 * waits through its endpoint's {@link Clock#idleStrategy()}, as the protocols' own waits do, so the
 * lock runs on every fabric, the simulator's virtual time included; the local state is only touched
 * inside {@code synchronized} blocks that make no fabric call. No crash tolerance (the remote CAS
 * lock has none either): a client that dies holding or awaiting the local lock blocks its node.
 */
public final class ShermanLock implements LockClient {
    /** Sherman's bound on consecutive local handovers. */
    public static final int DEFAULT_HANDOVER_BOUND = 4;

    private final QueuePair qp;
    private final Table table;
    private final long owner;
    private final TruncatedExponentialBackoff backoff;
    private final Clock clock;
    private final int handoverBound;
    private final LocalTable local;
    private long handovers;
    private long remoteAcquisitions;
    private long retries;

    /**
     * @param endpoint      the endpoint this client runs on (its compute node shares the local locks)
     * @param table         the opened remote lock table, of the {@code cas} protocol's layout
     * @param backoffInitNs the remote lock's initial backoff ({@code cas}'s {@code backoff-init-ns})
     * @param handoverBound consecutive local handovers allowed before the remote lock is released
     */
    public ShermanLock(Endpoint endpoint, Table table, long backoffInitNs, int handoverBound) {
        if (handoverBound < 0) {
            throw new IllegalArgumentException("handover bound must be >= 0, got " + handoverBound);
        }
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.owner = CasLayout.ownerField(endpoint.ordinal());
        this.backoff = new TruncatedExponentialBackoff(endpoint.clock(), endpoint.random(), backoffInitNs);
        this.clock = endpoint.clock();
        this.handoverBound = handoverBound;
        Tables tables = endpoint.computeNode().computeIfAbsent(Tables.class, Tables::new);
        synchronized (tables) {
            this.local = tables.byName.computeIfAbsent(table.spec().name() + "@" + table.memoryNode() + ":"
                    + table.address(), n -> new LocalTable());
        }
    }

    /** The local lock tables of one compute node, by remote table name. */
    private static final class Tables {
        final Map<String, LocalTable> byName = new HashMap<>();
    }

    private static final class LocalTable {
        final Map<Long, LocalLock> locks = new HashMap<>();

        synchronized LocalLock lock(long id) {
            return locks.computeIfAbsent(id, k -> new LocalLock());
        }
    }

    /** One lock's local state (guarded by itself). */
    private static final class LocalLock {
        /** A local client holds the local lock (with or without the remote lock yet). */
        boolean busy;
        /** Consecutive handovers of the remote grant now held. */
        int streak;
        final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    }

    private static final class Waiter {
        static final int WAITING = 0;
        static final int HANDED_OVER = 1;
        static final int ACQUIRE = 2;
        int state = WAITING;
        RemoteGrant remoteGrant;
        int streak;
    }

    /** The remote lock word as held: its epoch and the owner field of the client that acquired it. */
    private record RemoteGrant(long epoch, long owner) {
    }

    private record ShermanGrant(long lockId, long fencingToken, RemoteGrant remoteGrant, LocalLock local) implements Grant {
        @Override
        public Mode mode() {
            return Mode.EXCLUSIVE;
        }
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        LocalLock ll = local.lock(lockId);
        Waiter me = null;
        synchronized (ll) {
            if (!ll.busy) {
                ll.busy = true;
            } else {
                me = new Waiter();
                ll.queue.addLast(me);
            }
        }
        if (me != null) {
            IdleStrategy idle = clock.idleStrategy();
            while (true) {
                int state;
                synchronized (ll) {
                    state = me.state;
                }
                if (state == Waiter.HANDED_OVER) {
                    handovers++;
                    return new ShermanGrant(lockId, token(me.remoteGrant, me.streak), me.remoteGrant, ll);
                }
                if (state == Waiter.ACQUIRE) {
                    break;
                }
                idle.idle();
            }
        }
        RemoteGrant g = acquireRemote(lockId);
        remoteAcquisitions++;
        synchronized (ll) {
            ll.streak = 0;
        }
        return new ShermanGrant(lockId, token(g, 0), g, ll);
    }

    /** The remote grant's epoch, with the handover count in the low bits: increasing across handovers. */
    private static long token(RemoteGrant remote, int streak) {
        return (remote.epoch() << 8) | (streak & 0xFF);
    }

    private long address(long lockId) {
        return LockTables.entryAddress(table, lockId, CasLayout.WORD_BYTES);
    }

    /** {@code cas}'s acquisition: a masked CAS of the owner field from 0, retried after a backoff. */
    private RemoteGrant acquireRemote(long lockId) {
        long addr = address(lockId);
        for (int attempt = 0; ; attempt++) {
            long old = qp.maskedCas(addr, 0, CasLayout.OWNER_MASK, owner, CasLayout.OWNER_MASK);
            if (CasLayout.owner(old) == 0) {
                backoff.completed();
                return new RemoteGrant(CasLayout.epoch(old), owner);
            }
            retries++;
            backoff.backoff(attempt);
        }
    }

    /** Frees the word as its acquirer would: a CAS from the held word to the next epoch. */
    private void releaseRemote(long lockId, RemoteGrant g) {
        qp.cas(address(lockId), CasLayout.held(g.epoch(), g.owner()), CasLayout.releasedAfter(g.epoch()));
    }

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof ShermanGrant g)) {
            throw new IllegalArgumentException("not a grant of this sherman lock: " + grant);
        }
        LocalLock ll = g.local();
        synchronized (ll) {
            if (!ll.queue.isEmpty() && ll.streak < handoverBound) {
                Waiter next = ll.queue.pollFirst();
                ll.streak++;
                next.remoteGrant = g.remoteGrant();
                next.streak = ll.streak;
                next.state = Waiter.HANDED_OVER;
                return;
            }
        }
        releaseRemote(g.lockId(), g.remoteGrant());
        synchronized (ll) {
            ll.streak = 0;
            Waiter next = ll.queue.pollFirst();
            if (next != null) {
                next.state = Waiter.ACQUIRE;
            } else {
                ll.busy = false;
            }
        }
    }

    @Override
    public long locks() {
        return table.spec().locks();
    }

    /** Failed remote CASes as {@link LockStats#RETRIES}, local handovers as {@link LockStats#HANDOVERS}. */
    @Override
    public LockStats stats() {
        return LockStats.builder().addAll(new LockStats(retries, 0, 0)).add(LockStats.HANDOVERS, handovers).build();
    }

    /** Grants this client got by a local handover, without a memory-node operation. */
    public long handovers() {
        return handovers;
    }

    /** Grants this client got by acquiring the remote lock. */
    public long remoteAcquisitions() {
        return remoteAcquisitions;
    }

    @Override
    public Optional<String> describeAddress(long address) {
        long offset = address - table.address();
        return offset >= 0 && offset < table.spec().bytes()
                ? Optional.of("sherman lock " + offset / CasLayout.WORD_BYTES) : Optional.empty();
    }
}
