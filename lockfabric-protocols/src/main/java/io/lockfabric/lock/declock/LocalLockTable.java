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
 */
final class LocalLockTable {
    /** The local lock tables of one compute node, by lock table. */
    private static final class OfNode {
        private final Map<Key, LocalLockTable> tables = new HashMap<>();
    }

    private record Key(String table, int memoryNode, long address) {
    }

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

    synchronized LocalLock lock(long lockId) {
        return locks.computeIfAbsent(lockId, k -> new LocalLock());
    }

    /** The lock if some client of this node used it, else null. */
    synchronized LocalLock existing(long lockId) {
        return locks.get(lockId);
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
