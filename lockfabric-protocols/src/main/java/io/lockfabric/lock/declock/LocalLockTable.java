package io.lockfabric.lock.declock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.declock.CqlEngine.CqlGrant;
import io.lockfabric.lock.declock.CqlEngine.Signal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A compute node's local lock table (DecLock §5.1, Fig. 9 right): per lock, the local state that the
 * clients of one compute node share. One table per (lock table, compute node), found through
 * {@link #of} in the compute node's {@link Endpoint#computeNode() attachments}, which the fabric
 * gives out: the one node of the local fabric, a simulated compute node, one process (client
 * fabric) on tcp. Two processes on one machine are two compute nodes to it: each has its own table
 * and joins the CQL queue separately (correct, but the capacity must then count them).
 *
 * <p>Each {@link LocalLock} is mutated only inside {@code synchronized (lock)} blocks that make no
 * fabric call (so they never block, and a simulated process never yields inside one).
 *
 * <p>The table keeps the locks in use and at most {@link #KEEP_IDLE} more, not every lock the node
 * ever touched (about 265 bytes a lock, which a node going over a 4 M-slot table kept by the
 * million). A client {@link #pin}s a lock for each operation on it and {@link #unpin}s it after; the
 * last unpin of a lock left idle (no holder, no waiter, no CQL grant or acquisition or release of
 * the node's, no reset signal kept) drops it while the table holds more than {@code KEEP_IDLE}. An
 * idle lock's state is what a new one has, as far as anything reads it (the node's next CQL grant
 * sets the rest afresh), so a drop changes nothing but memory; a table of fewer locks never drops
 * one, and its hot locks are not made again and again. A lock is only ever reached pinned, so none
 * is used after its drop, and a later pin makes a new one. Lock order: the table's monitor, then a
 * lock's.
 */
final class LocalLockTable {
    /** The local lock tables of one compute node, by lock table. */
    private static final class OfNode {
        private final Map<Key, LocalLockTable> tables = new HashMap<>();
    }

    private record Key(String table, int memoryNode, long address) {
    }

    /** Idle locks the table may keep ({@link #unpin}): a table of up to this many locks drops none. */
    static final int KEEP_IDLE = 1024;

    private final Map<Long, LocalLock> locks = new HashMap<>();
    /** Clock origin of the node after the synchronization barrier, or 0 (guarded by this). */
    private long originNs;
    /** A client of this node is in the barrier now. */
    private boolean syncing;
    /** Barriers this node tried, and passed. */
    private long syncAttempts;
    private long syncs;
    /** When the node's next barrier is due, on the clock of the client that passed the last. */
    private long nextSyncNs;

    private LocalLockTable() {
    }

    /** The local lock table of {@code table} on {@code endpoint}'s compute node. */
    static LocalLockTable of(Endpoint endpoint, Table table) {
        OfNode node = endpoint.computeNode().computeIfAbsent(OfNode.class, OfNode::new);
        synchronized (node) {
            return node.tables.computeIfAbsent(new Key(table.spec().name(), table.memoryNode(), table.address()),
                    k -> new LocalLockTable());
        }
    }

    /** The local lock of {@code lockId}, made if none is in use, pinned: {@link #unpin} it after the operation. */
    synchronized LocalLock pin(long lockId) {
        LocalLock l = locks.computeIfAbsent(lockId, k -> new LocalLock());
        l.pins++;
        return l;
    }

    /** The local lock of {@code lockId} pinned if some client of this node uses it, else null (an idle lock). */
    synchronized LocalLock pinExisting(long lockId) {
        LocalLock l = locks.get(lockId);
        if (l != null) {
            l.pins++;
        }
        return l;
    }

    /**
     * Ends an operation's pin of {@code l}, the lock of {@code lockId}; the last drops it if it is
     * idle and the table holds more than {@link #KEEP_IDLE} locks.
     */
    synchronized void unpin(long lockId, LocalLock l) {
        if (--l.pins > 0 || locks.size() <= KEEP_IDLE) {
            return;
        }
        synchronized (l) {
            if (!l.idle()) {
                return;
            }
        }
        locks.remove(lockId, l);
    }

    /** Local locks in the table now (tests). */
    synchronized int size() {
        return locks.size();
    }

    /**
     * True for the one client that is to run the clock barrier for this node now: none runs it,
     * and the node never passed one or its next is due at {@code nowNs}.
     */
    synchronized boolean claimSync(long nowNs) {
        if (syncing || (syncAttempts > 0 && nowNs - nextSyncNs < 0)) {
            return false;
        }
        syncing = true;
        syncAttempts++;
        return true;
    }

    /** Barriers this node tried (including one under way). */
    synchronized long syncAttempts() {
        return syncAttempts;
    }

    /** Barriers this node passed. */
    synchronized long syncs() {
        return syncs;
    }

    /**
     * The claimed barrier ended at {@code nowNs}: passed (the node's clock origin is then
     * {@code nowNs}) or given up (the origin stays); the next is due {@code intervalNs} later.
     */
    synchronized void endSync(boolean passed, long nowNs, long intervalNs) {
        syncing = false;
        if (passed) {
            originNs = nowNs;
            syncs++;
        }
        nextSyncNs = nowNs + intervalNs;
    }

    synchronized long originNs() {
        return originNs;
    }

    /** A client waiting for the local lock. {@code state} is guarded by its lock. */
    static final class Waiter {
        static final int WAITING = 0;
        /** Granted locally: the node holds the CQL lock in a mode that covers this waiter. */
        static final int GRANTED = 1;
        /** Chosen to acquire the CQL lock for the node. */
        static final int ACQUIRE = 2;

        final EndpointId id;
        final Mode mode;
        final long timestamp;
        int state = WAITING;
        long token;

        Waiter(EndpointId id, Mode mode, long timestamp) {
            this.id = id;
            this.mode = mode;
            this.timestamp = timestamp;
        }
    }

    /** The local state of one lock (mtx = its monitor). */
    static final class LocalLock {
        /**
         * Local holders, each with the time (on the clock of whoever wrote it) it was granted or
         * confirmed its grant: a holder that died is released on its behalf by a waiter.
         */
        final Map<EndpointId, Long> holding = new LinkedHashMap<>();
        /** Mode of the local holders, or of the pending acquisition. */
        Mode mode = Mode.SHARED;
        /** The client acquiring the CQL lock for the node, or null. */
        EndpointId pendingBy;
        /** When {@link #pendingBy} was chosen. */
        long pendingSinceNs;
        /**
         * While the node's CQL lock is being released: the client releasing it, since when, and
         * the waiter chosen to acquire it next, told (state ACQUIRE) once the release is done.
         */
        EndpointId releasingBy;
        long releasingSinceNs;
        Waiter nextAcquirer;
        /** The node's CQL grant while it holds the CQL lock (cqlheld), else null. */
        CqlGrant cql;
        /** Local grants since the CQL grant: the low bits of local fencing tokens. */
        long localGrants;
        /** Consecutive local handovers (local-bound). */
        int streak;
        /** Earliest remote waiter's timestamp known, or {@link CqlEngine#NO_TIMESTAMP}. */
        long remoteTs = CqlEngine.NO_TIMESTAMP;
        final ArrayDeque<Waiter> queue = new ArrayDeque<>();
        /** Reset signals for the CQL lock the node holds, answered when it releases it. */
        List<Signal> deferred = new ArrayList<>();
        /** Operations under way on this lock ({@link LocalLockTable#pin}); guarded by the table's monitor. */
        int pins;

        /**
         * Nothing is on the lock: no holder, waiter, chosen acquirer, CQL grant, release under way or
         * kept signal. Its other fields are set afresh before they are read again (call holding it).
         */
        boolean idle() {
            return holding.isEmpty() && queue.isEmpty() && pendingBy == null && releasingBy == null
                    && nextAcquirer == null && cql == null && deferred.isEmpty();
        }

        int holders() {
            return holding.size();
        }

        boolean pending() {
            return pendingBy != null;
        }

        boolean writerWaiting() {
            return queue.stream().anyMatch(w -> w.mode == Mode.EXCLUSIVE);
        }
    }
}
