package io.lockfabric.lock.declock;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.MemoryNodeRestartedException;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.declock.CqlEngine.CqlGrant;
import io.lockfabric.lock.declock.CqlEngine.Signal;
import io.lockfabric.lock.declock.LocalLockTable.LocalLock;
import io.lockfabric.lock.declock.LocalLockTable.Waiter;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * DecLock with timestamp-based hierarchical locking (Zhang, Cheng, Chen, Wei and Chen, "DecLock: A
 * Case of Decoupled Locking for Disaggregated Memory", arXiv 2505.17641, 2025; §5, Fig. 10): the
 * clients of one compute node (same {@link EndpointId#node()}) share a local lock per lock
 * ({@link LocalLockTable}), and only one of them at a time — the node's representative — takes
 * part in the CQL queue on the memory node ({@link CqlEngine}), so the queue needs one entry per
 * node.
 *
 * <p><b>Acquire.</b> Under the local lock's monitor: a reader joins at once if the node holds the
 * lock shared locally and no writer waits locally (and no reset is pending); if the local lock is
 * idle the client becomes the representative and acquires the CQL lock itself; otherwise it joins
 * the local FIFO with its timestamp and, if no remote timestamp is known, prefetches the CQL queue
 * (one READ) for the earliest remote waiter's timestamp. It then waits for an intra-node LOCAL
 * message (and looks at its state at least every {@code signal-poll-ns}, answering reset signals
 * meanwhile): granted locally, or chosen to acquire the CQL lock for the node. (Joining at once
 * also needs the CQL grant within its local budget, below, or, past it, one READ of the lock's
 * header showing that no one waits behind the node at the memory node (no writer queued, no reset:
 * the reader then delays no waiter; without that look a reader arriving while a reader held past
 * the budget waited for every holder to release, readers did not share), and, task-fair, no known
 * remote waiter earlier; phase-fair readers join whatever the remote waiters, as the paper's
 * Fig. 10 Lines 4-5.) A representative
 * granted the CQL lock records it, takes the earliest remote timestamp from the grant message, and
 * if it is a reader shares with waiting readers: task-fair ({@code declock-tf}) the adjacent readers
 * at the head of the local queue that are earlier than the remote waiters; phase-fair
 * ({@code declock-pf}) every waiting reader.
 *
 * <p><b>Release.</b> The last local holder picks the first local waiter. It hands the lock over
 * locally (no memory-node operation) when the node's CQL mode covers the waiter (exclusive covers
 * all; shared covers readers), no reset signal is pending, fewer than 127 local grants were made
 * under this CQL grant (the fencing token's low bits), the CQL grant is younger than
 * {@code min(lease, timeout) / 4} (remote waiters the node does not know of wait at most that),
 * and the policy agrees: {@code timestamp}
 * (default) if no remote waiter is known or the local waiter is earlier; {@code remote-prefer} only
 * if no remote waiter is known; {@code local-prefer} always; {@code local-bound} at most 4 times in
 * a row. Otherwise it releases the CQL lock (batched FAA + READ, with handover to remote waiters)
 * and then wakes one local waiter to acquire it again: the first waiter (task-fair), or after a
 * writer the first waiting reader (phase-fair).
 *
 * <p><b>Resets.</b> A reset signal for a lock the node holds is kept in the local lock and answered
 * by whichever client releases the node's CQL grant (the release then skips its FAA); so the node
 * answers "after releasing" whichever of its clients received the signal. Every client looks at
 * its signals before it takes a local grant, and once one is kept no local grant is made under
 * that CQL grant; a local handover made just before the signal came is given back and the
 * acquisition restarts (bounded by {@code max-restarts}). The representative of
 * the moment runs the CQL acquisition with its aborts, retries and resets.
 *
 * <p><b>Timestamps</b> are microseconds since the node's clock origin, 14 bits in the entry. With
 * {@code sync-cns = n > 0} one client of each node runs the paper's barrier at its first
 * acquisition and again every {@code sync-interval-ns} (the paper re-synchronizes every second):
 * FAA the table's sync counter, READ it until all n nodes of the round arrived, take that moment
 * as the origin (precision one READ; see {@link #syncClock}). Re-synchronizing bounds the drift
 * between nodes: the simulator's clocks run at 1 ± 1e-4, so two nodes part by up to 200 µs per
 * second, far more than the waits being ordered; with that clock model an interval of about
 * 10 ms keeps them within 2 µs. Without {@code sync-cns} the endpoint clocks are used as they
 * are (the local and sim fabrics' clocks share an origin up to drift). A wrong order costs
 * fairness only.
 *
 * <p><b>Fencing token</b>: the node's CQL token × 2^7 + the number of local grants under that CQL
 * grant. <b>Failures</b>: the paper's failure unit is a whole compute node (its CQL entry or grant
 * is recovered by the CQL reset); a single crashed client of a live node is recovered locally.
 * A dead local waiter is skipped when it is woken (its LOCAL message fails: RNR). A local waiter
 * looks every {@code lease/8} at the clients before it on its node — the local holders, the
 * client acquiring the CQL lock for the node, and the one releasing it (the next acquirer is told
 * only once that release is done, so the node is never two participants in the queue) — once
 * they have been there for {@code lease/8}: it
 * pings each (a send that delivers nothing), and one whose ping fails (the client is gone) is released on its behalf
 * (its share given up, and if it was the last, the node's CQL grant handed over locally or
 * released: a late release is CAS-guarded, so a grant reset meanwhile changes nothing) or its turn
 * to acquire passed on (its CQL entry, if any, is recovered by the CQL reset like a dead node's).
 * A holder that still answers but has held for {@code 2 x lease} is taken for dead too (hung):
 * the lease hazard, as for {@code cql}. A client taken for dead before it looked at its local
 * grant finds it gone and starts again; its late release changes nothing.
 *
 * <p><b>Memory-node restarts</b> (Appendix B): the CQL engine aborts what is under way and, before
 * the node's next CQL acquisition, waits a lease for the holders of the lost generation and
 * registers again ({@link CqlEngine}). On the node, no grant of the lost generation is made or
 * used after the restart: a local handover or a reader joining at once needs the node's CQL grant
 * to be of the memory node's current generation, and a local grant seen only after the restart is
 * given back (the acquisition restarts); the last local holder of a lost grant "releases" it
 * (nothing to do on the memory node) and wakes the next local waiter to acquire anew. A READ of a
 * prefetch, of the header or of the clock barrier that fails because the node failed counts as
 * "nothing known".
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint. The local table is thread-safe.
 */
public final class DecLockClient implements LockClient {
    /** Low bits of the fencing token for local grants under one CQL grant. */
    static final int LOCAL_TOKEN_BITS = 7;
    static final long MAX_LOCAL_GRANTS = (1L << LOCAL_TOKEN_BITS) - 1;
    /** Sherman's bound of consecutive local handovers (local-bound). */
    static final int LOCAL_BOUND = 4;
    private static final long NANOS_PER_MICRO = 1_000;
    /** Local grants under one CQL grant for at most min(lease, timeout) / this. */
    private static final int HOLD_BUDGET_FRACTION = 4;
    /** Leases after which a node stops waiting for the others at the clock barrier. */
    private static final int SYNC_GIVE_UP_LEASES = 100;
    /** Local waiters look at the clients before them this often per lease. */
    private static final int PROBES_PER_LEASE = 8;
    /** A local holder that answers is still taken for dead (hung) after this many leases. */
    private static final int HOLDER_EXPIRY_LEASES = 2;

    /** Who gets the lock next when remote and local waiters compete. */
    enum Policy {
        TIMESTAMP, REMOTE_PREFER, LOCAL_PREFER, LOCAL_BOUND
    }

    /**
     * A local grant. Its lease starts with the node's CQL acquisition ({@code CqlGrant.leaseStartNs},
     * on the representative's clock), not with this client's request: a local grant may be made
     * after a reset of the node's CQL grant began (before its signal reached the node), and that
     * reset waits a lease from its start, which came after the node's enqueueing FAA.
     */
    record DecLockGrant(long lockId, Mode mode, long fencingToken, long leaseStartNs) implements Grant {
    }

    private final CqlEngine engine;
    private final LocalLockTable local;
    private final EndpointId me;
    private final Clock clock;
    private final boolean phaseFair;
    private final Policy policy;
    private final QueuePair qp;
    private final Table table;
    private final long syncCns;
    private final long syncIntervalNs;
    private final long holdBudgetNs;
    private final long probeNs;
    private final long holderExpiryNs;
    private final Set<Long> held = new HashSet<>();

    private long localHandovers;
    private long localAborts;
    private long cqlAcquisitions;
    private long prefetches;
    private long deadLocals;
    private long syncs;

    DecLockClient(Endpoint endpoint, Table table, CqlProtocol.Settings settings, boolean phaseFair, Policy policy,
                  long syncCns, long syncIntervalNs) {
        this.me = endpoint.id();
        this.local = LocalLockTable.of(endpoint, table);
        this.engine = new CqlEngine(endpoint, table, settings, this::defer, true);
        this.clock = endpoint.clock();
        this.phaseFair = phaseFair;
        this.policy = policy;
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.syncCns = syncCns;
        this.syncIntervalNs = syncIntervalNs;
        this.holdBudgetNs = Math.min(settings.leaseNs(), settings.timeoutNs()) / HOLD_BUDGET_FRACTION;
        this.probeNs = Math.max(1, settings.leaseNs() / PROBES_PER_LEASE);
        this.holderExpiryNs = HOLDER_EXPIRY_LEASES * settings.leaseNs();
    }

    /** This client's node's local lock table (tests). */
    LocalLockTable localTable() {
        return local;
    }

    /** A reset signal is kept while this node holds the CQL lock in that reset count or before. */
    private boolean defer(long lockId, long rstcnt, EndpointId from) {
        LocalLock l = local.pinExisting(lockId);
        if (l == null) {
            return false; // idle: the node holds no CQL grant of it
        }
        try {
            synchronized (l) {
                if (l.cql != null && l.cql.rstcnt() <= rstcnt) {
                    l.deferred.add(new Signal(from, rstcnt));
                    return true;
                }
                return false;
            }
        } finally {
            local.unpin(lockId, l);
        }
    }

    // ---------------------------------------------------------------- acquire

    @Override
    public Grant acquire(long lockId, Mode mode) {
        if (lockId < 0 || lockId >= engine.locks()) {
            throw new IllegalArgumentException("lock " + lockId + " outside [0, " + engine.locks() + ")");
        }
        if (held.contains(lockId)) {
            throw new IllegalStateException("this client already holds declock lock " + lockId);
        }
        syncClock();
        long ts = timestampNow();
        for (int restart = 0; ; restart++) {
            Grant g = attempt(lockId, mode, ts);
            if (g != null) {
                return g;
            }
            localAborts++;
            if (restart >= engine.maxRestarts()) {
                throw new LockUnavailableException("declock lock " + lockId + ": " + mode + " local grant aborted "
                        + (restart + 1) + " times (resets of the node's CQL grant); gave up after max-restarts="
                        + engine.maxRestarts());
            }
        }
    }

    /** One try; null if a local grant met a reset of the node's CQL grant and was given back. */
    private Grant attempt(long lockId, Mode mode, long ts) {
        // signals that have arrived go into the local lock first: no local grant under a CQL
        // grant that is being reset
        engine.serviceControl();
        LocalLock l = local.pin(lockId);
        try {
            return attempt(lockId, mode, ts, l);
        } finally {
            local.unpin(lockId, l);
        }
    }

    private Grant attempt(long lockId, Mode mode, long ts, LocalLock l) {
        Waiter w;
        boolean prefetch;
        engine.inbox().discard(engine.channel(), lockId, m -> m.type() == CqlMessages.LOCAL);
        // a reader that could join but for the budget looks whether anyone waits behind the node
        CqlGrant aged;
        synchronized (l) {
            aged = mayJoinAtOnce(l, mode, ts) && !withinBudget(l) ? l.cql : null;
        }
        CqlGrant unwaited = aged != null && noneWaitBehind(aged) ? aged : null;
        synchronized (l) {
            if (mayJoinAtOnce(l, mode, ts) && (withinBudget(l) || l.cql == unwaited)) {
                l.holding.put(me, clock.nanoTime());
                return granted(lockId, mode, localToken(l), l);
            }
            if (l.holders() == 0 && !l.pending() && l.cql == null && l.queue.isEmpty()) {
                choose(l, me);
                l.mode = mode;
                w = null;
                prefetch = false;
            } else {
                w = new Waiter(me, mode, ts);
                l.queue.add(w);
                prefetch = l.cql != null && l.remoteTs == CqlEngine.NO_TIMESTAMP;
            }
        }
        if (w != null) {
            if (prefetch) {
                prefetches++;
                long remote = earliestRemoteWaiter(lockId);
                synchronized (l) {
                    if (l.cql != null && remote != CqlEngine.NO_TIMESTAMP && (l.remoteTs == CqlEngine.NO_TIMESTAMP
                            || Timestamps.earlier(remote, l.remoteTs, CqlLayout.HIERARCHICAL_TIMESTAMP_BITS))) {
                        l.remoteTs = remote;
                    }
                }
            }
            int state = awaitLocal(lockId, l, w);
            if (state == Waiter.GRANTED) {
                engine.serviceControl(); // a handover made before a reset signal came is not used
                synchronized (l) {
                    if (!l.holding.containsKey(me)) {
                        return null; // taken for dead before it looked (paused past the expiry): not granted
                    }
                    // a grant of a generation the memory node lost is not used after the restart
                    if (l.deferred.isEmpty() && (l.cql == null || engine.current(l.cql))) {
                        l.holding.put(me, clock.nanoTime()); // its lease runs from now
                        localHandovers++;
                        return granted(lockId, mode, w.token, l);
                    }
                }
                releaseLocally(lockId, l, me);
                return null;
            }
        }
        return acquireCql(lockId, mode, ts, l);
    }

    /** Waits until the waiter is granted locally or chosen to acquire the CQL lock; returns which. */
    private int awaitLocal(long lockId, LocalLock l, Waiter w) {
        long nextProbe = clock.nanoTime() + probeNs;
        while (true) {
            synchronized (l) {
                if (w.state != Waiter.WAITING) {
                    return w.state;
                }
            }
            engine.inbox().await(engine.channel(), lockId, m -> m.type() == CqlMessages.LOCAL,
                    Math.min(nextProbe, clock.nanoTime() + engine.signalPollNs()));
            engine.serviceControl();
            if (clock.nanoTime() - nextProbe >= 0) {
                recoverFromDeadLocals(lockId, l);
                nextProbe = clock.nanoTime() + probeNs;
            }
        }
    }

    /**
     * A waiter's check on whoever stands before it on its node: a local holder or the client
     * acquiring the CQL lock for the node that has been there for {@code lease/8} is pinged
     * ({@link io.lockfabric.fabric.Mailbox#ping}: a send that delivers nothing, so nothing
     * accumulates in the inbox of a live holder, which does not read it). If the ping fails (RNR:
     * the client is gone) the holder's grant is released, or the acquirer's turn
     * passed on, on its behalf. A holder that has held for more than {@code 2 x lease} is taken
     * for dead even if it answers (hung; a live holder past its lease is the lease hazard).
     */
    private void recoverFromDeadLocals(long lockId, LocalLock l) {
        long now = clock.nanoTime();
        List<EndpointId> suspects = new ArrayList<>();
        synchronized (l) {
            l.holding.forEach((id, since) -> {
                if (!id.equals(me) && now - since >= probeNs) {
                    suspects.add(id);
                }
            });
            if (l.pending() && !l.pendingBy.equals(me) && now - l.pendingSinceNs >= probeNs) {
                suspects.add(l.pendingBy);
            }
            if (l.releasingBy != null && !l.releasingBy.equals(me) && now - l.releasingSinceNs >= probeNs) {
                suspects.add(l.releasingBy);
            }
        }
        for (EndpointId s : suspects) {
            boolean dead;
            try {
                // a ping, not a LOCAL message: a live holder reads no mailbox while it holds, so
                // one message per probe per waiter would pile up there until its next acquisition
                engine.mailbox().ping(s);
                dead = false;
            } catch (PeerUnreachableException e) {
                dead = true;
            }
            boolean release = false;
            List<Waiter> wake = new ArrayList<>();
            synchronized (l) {
                Long since = l.holding.get(s);
                if (dead && s.equals(l.releasingBy)) {
                    // it died releasing the node's CQL lock: the chosen waiter goes ahead (if the
                    // release FAA did not land, the dead grant is recovered by the CQL reset)
                    if (l.nextAcquirer != null) {
                        wake.add(l.nextAcquirer);
                    }
                    announceNextAcquirer(l);
                    deadLocals++;
                }
                if (since != null && (dead || clock.nanoTime() - since > holderExpiryNs)) {
                    release = true;
                } else if (dead && s.equals(l.pendingBy) && l.nextAcquirer == null) {
                    l.pendingBy = null;
                    chooseReacquirer(l, Mode.EXCLUSIVE, wake);
                    deadLocals++;
                }
            }
            if (release) {
                deadLocals++;
                releaseLocally(lockId, l, s);
            }
            wakeAll(lockId, l, wake);
        }
    }

    /** This client acquires the CQL lock for its node (l.pending is set for it); null as {@link #attempt}. */
    private Grant acquireCql(long lockId, Mode mode, long ts, LocalLock l) {
        CqlGrant g;
        try {
            g = engine.acquire(lockId, mode, ts);
        } catch (RuntimeException e) {
            List<Waiter> wake = new ArrayList<>();
            synchronized (l) {
                if (me.equals(l.pendingBy)) {
                    l.pendingBy = null;
                    chooseReacquirer(l, Mode.EXCLUSIVE, wake);
                }
            }
            wakeAll(lockId, l, wake);
            throw e;
        }
        cqlAcquisitions++;
        List<Waiter> wake = new ArrayList<>();
        long token;
        boolean stillChosen;
        synchronized (l) {
            stillChosen = me.equals(l.pendingBy);
        }
        if (!stillChosen) {
            // taken for dead meanwhile (only a failed SEND does that, so not expected of a live
            // client): the node has moved on without this grant; give it back and start again
            engine.release(g);
            return null;
        }
        synchronized (l) {
            l.pendingBy = null;
            l.cql = g;
            l.holding.put(me, clock.nanoTime());
            l.mode = mode;
            l.localGrants = 0;
            l.streak = 0;
            l.remoteTs = g.earliestRemoteTs();
            token = localToken(l);
            if (mode == Mode.SHARED) {
                shareWithReaders(l, wake);
            }
        }
        wakeAll(lockId, l, wake);
        // waking the readers may have let time pass (a pause): no grant under a CQL grant being reset
        engine.serviceControl();
        synchronized (l) {
            if (!l.holding.containsKey(me)) {
                return null; // paused past the holder expiry while waking the readers: released for it
            }
            if (l.deferred.isEmpty() && engine.current(l.cql)) {
                return granted(lockId, mode, token, l);
            }
        }
        releaseLocally(lockId, l, me);
        return null;
    }

    /** {@link CqlEngine#noneWaitBehind}, false if the memory node failed. */
    private boolean noneWaitBehind(CqlGrant g) {
        try {
            return engine.current(g) && engine.noneWaitBehind(g);
        } catch (MemoryNodeRestartedException e) {
            return false;
        }
    }

    /** {@link CqlEngine#earliestRemoteWaiter}, none known if the memory node failed. */
    private long earliestRemoteWaiter(long lockId) {
        try {
            return engine.earliestRemoteWaiter(lockId, me.node());
        } catch (MemoryNodeRestartedException e) {
            return CqlEngine.NO_TIMESTAMP;
        }
    }

    /** A grant under the node's CQL grant {@code l.cql} (call holding l). */
    private Grant granted(long lockId, Mode mode, long token, LocalLock l) {
        held.add(lockId);
        return new DecLockGrant(lockId, mode, token, l.cql == null ? Grant.UNKNOWN_LEASE_START : l.cql.leaseStartNs());
    }

    /** The next local fencing token (call holding l). */
    private static long localToken(LocalLock l) {
        return (l.cql.fencingToken() << LOCAL_TOKEN_BITS) | ++l.localGrants;
    }

    /** A reader holds the node's lock: let waiting readers share it (call holding l). */
    private void shareWithReaders(LocalLock l, List<Waiter> wake) {
        if (phaseFair) {
            for (var it = l.queue.iterator(); it.hasNext() && l.localGrants < MAX_LOCAL_GRANTS; ) {
                Waiter r = it.next();
                if (r.mode == Mode.SHARED) {
                    it.remove();
                    grantLocally(l, r, wake);
                }
            }
            return;
        }
        while (!l.queue.isEmpty() && l.queue.peekFirst().mode == Mode.SHARED && l.localGrants < MAX_LOCAL_GRANTS
                && (l.remoteTs == CqlEngine.NO_TIMESTAMP
                || Timestamps.earlier(l.queue.peekFirst().timestamp, l.remoteTs, CqlLayout.HIERARCHICAL_TIMESTAMP_BITS))) {
            grantLocally(l, l.queue.pollFirst(), wake);
        }
    }

    private void grantLocally(LocalLock l, Waiter w, List<Waiter> wake) {
        w.state = Waiter.GRANTED;
        w.token = localToken(l);
        l.holding.put(w.id, clock.nanoTime());
        wake.add(w);
    }

    /** The node's CQL release is done (or its releaser is gone): the chosen waiter may acquire (call holding l). */
    private static void announceNextAcquirer(LocalLock l) {
        if (l.nextAcquirer != null) {
            l.nextAcquirer.state = Waiter.ACQUIRE;
        }
        l.nextAcquirer = null;
        l.releasingBy = null;
    }

    /** {@code who} is to acquire the CQL lock for the node (call holding l). */
    private void choose(LocalLock l, EndpointId who) {
        l.pendingBy = who;
        l.pendingSinceNs = clock.nanoTime();
    }

    // ---------------------------------------------------------------- release

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof DecLockGrant g) || !held.remove(g.lockId())) {
            throw new IllegalArgumentException("not a grant this declock client holds: " + grant);
        }
        engine.serviceControl(); // reset signals that have arrived are kept in the local lock now
        LocalLock l = local.pin(g.lockId());
        try {
            if (!releaseLocally(g.lockId(), l, me)) {
                engine.ignoreRelease(); // taken for dead (held past 2 x lease): released on its behalf already
            }
        } finally {
            local.unpin(g.lockId(), l);
        }
    }

    /**
     * Local holder {@code who} leaves (this client, or a dead one on whose behalf this client
     * acts); the last hands over locally or releases the CQL lock. False if {@code who} held
     * nothing (released on its behalf already).
     */
    private boolean releaseLocally(long lockId, LocalLock l, EndpointId who) {
        List<Waiter> wake = new ArrayList<>();
        CqlGrant toRelease = null;
        List<Signal> acks = List.of();
        synchronized (l) {
            if (l.holding.remove(who) == null) {
                return false;
            }
            if (l.holders() > 0) {
                return true;
            }
            Waiter next = l.queue.peekFirst();
            boolean resetting = !l.deferred.isEmpty();
            if (next != null && !resetting && covers(l.cql.mode(), next.mode) && l.localGrants < MAX_LOCAL_GRANTS
                    && withinBudget(l) && policyAllowsLocal(l, next) && engine.current(l.cql)) {
                l.queue.pollFirst();
                l.streak++;
                l.mode = next.mode;
                grantLocally(l, next, wake);
                if (next.mode == Mode.SHARED) {
                    shareWithReaders(l, wake);
                }
            } else {
                toRelease = l.cql;
                acks = l.deferred;
                l.deferred = new ArrayList<>();
                l.cql = null;
                l.streak = 0;
                l.remoteTs = CqlEngine.NO_TIMESTAMP;
                chooseReacquirer(l, toRelease.mode(), wake);
                if (!wake.isEmpty()) {
                    // told only once the release FAA is done: a reacquirer that enqueued before it
                    // (its poll may wake it any time) would make the node two participants, and a
                    // queue of one entry per node overflow
                    l.nextAcquirer = wake.getFirst();
                    l.nextAcquirer.state = Waiter.WAITING;
                    l.releasingBy = me;
                    l.releasingSinceNs = clock.nanoTime();
                }
            }
        }
        if (toRelease != null) {
            try {
                if (acks.isEmpty()) {
                    engine.release(toRelease);
                } else {
                    engine.ignoreRelease(); // being reset: the node answers now that it let go
                    CqlGrant released = toRelease;
                    acks.forEach(s -> engine.ack(s.from(), released.lockId(), s.rstcnt()));
                }
            } finally {
                synchronized (l) {
                    announceNextAcquirer(l);
                }
            }
        }
        wakeAll(lockId, l, wake);
        return true;
    }

    /**
     * Whether a client asking for {@code mode} may share the node's grant at once, the budget
     * aside: a reader, the node holds the lock shared under a CQL grant, no local writer waits, no
     * reset signal is kept, a local token is left and the policy lets it past the remote waiters
     * the node knows of (call holding l).
     */
    private boolean mayJoinAtOnce(LocalLock l, Mode mode, long ts) {
        return mode == Mode.SHARED && l.holders() > 0 && l.mode == Mode.SHARED && l.cql != null && !l.writerWaiting()
                && l.deferred.isEmpty() && l.localGrants < MAX_LOCAL_GRANTS && mayJoinReaders(l, ts)
                && engine.current(l.cql);
    }

    /**
     * Whether a reader arriving at the node's shared lock (no local writer waiting) joins at once
     * whatever the remote waiters. Phase-fair: yes, as the paper's Fig. 10 Lines 4-5 (a reader that
     * finds the local lock SHARED holds at once; only a waiting local writer, which makes the state
     * EXCLUSIVE, stops it): PF lets readers go before waiting writers, and the remote ones are
     * bounded by the local budget (not with remote-prefer). Task-fair (and remote-prefer): only if
     * no remote waiter is known to have come before it (the timestamp order across nodes);
     * local-prefer always.
     */
    private boolean mayJoinReaders(LocalLock l, long ts) {
        if (policy == Policy.LOCAL_PREFER || (phaseFair && policy != Policy.REMOTE_PREFER)) {
            return true;
        }
        return l.remoteTs == CqlEngine.NO_TIMESTAMP
                || Timestamps.earlier(ts, l.remoteTs, CqlLayout.HIERARCHICAL_TIMESTAMP_BITS);
    }

    /**
     * Whether the node may still grant locally under its CQL grant: for at most a quarter of the
     * shorter of lease and timeout since the grant. Remote waiters the node does not know of
     * (readers that join at once never prefetch) then wait at most that long, well within their
     * timeout, and the node's CQL release stays on the one-round-trip FAA path. Past it, a reader
     * still joins a shared grant that no one waits behind ({@link CqlEngine#noneWaitBehind}).
     */
    private boolean withinBudget(LocalLock l) {
        return clock.nanoTime() - l.cql.grantedAtNs() < holdBudgetNs;
    }

    private static boolean covers(Mode cqlMode, Mode wanted) {
        return cqlMode == Mode.EXCLUSIVE || wanted == Mode.SHARED;
    }

    private boolean policyAllowsLocal(LocalLock l, Waiter next) {
        boolean noRemote = l.remoteTs == CqlEngine.NO_TIMESTAMP;
        return switch (policy) {
            case TIMESTAMP -> noRemote || Timestamps.earlier(next.timestamp, l.remoteTs, CqlLayout.HIERARCHICAL_TIMESTAMP_BITS);
            case REMOTE_PREFER -> noRemote;
            case LOCAL_PREFER -> true;
            case LOCAL_BOUND -> l.streak < LOCAL_BOUND;
        };
    }

    /**
     * The node gave up the CQL lock (or failed to get it): pick the waiter that acquires it next —
     * the first one, or phase-fair after a writer the first reader (call holding l).
     */
    private void chooseReacquirer(LocalLock l, Mode released, List<Waiter> wake) {
        if (l.queue.isEmpty()) {
            return;
        }
        Waiter r = l.queue.peekFirst();
        if (phaseFair && released == Mode.EXCLUSIVE) {
            r = l.queue.stream().filter(x -> x.mode == Mode.SHARED).findFirst().orElse(r);
        }
        l.queue.remove(r);
        r.state = Waiter.ACQUIRE;
        choose(l, r.id);
        l.mode = r.mode;
        wake.add(r);
    }

    /**
     * Tells woken waiters to look at their state. One that is gone (its SEND fails) is released on
     * its behalf: its local grant given up, or its turn to acquire passed on.
     */
    private void wakeAll(long lockId, LocalLock l, List<Waiter> wake) {
        for (Waiter w : wake) {
            if (w.id.equals(me)) {
                continue;
            }
            try {
                engine.mailbox().send(w.id, engine.channel(), CqlMessages.LOCAL, lockId, 0, 0);
            } catch (PeerUnreachableException e) {
                deadLocals++;
                if (w.state == Waiter.GRANTED) {
                    releaseLocally(lockId, l, w.id);
                } else {
                    List<Waiter> next = new ArrayList<>();
                    synchronized (l) {
                        if (w.id.equals(l.pendingBy)) {
                            l.pendingBy = null;
                            chooseReacquirer(l, Mode.EXCLUSIVE, next);
                        }
                    }
                    wakeAll(lockId, l, next);
                }
            }
        }
    }

    // ---------------------------------------------------------------- time

    private long timestampNow() {
        return (clock.nanoTime() - local.originNs()) / NANOS_PER_MICRO;
    }

    /**
     * The paper's synchronization barrier (§5.3), run by one client of the node when
     * {@code sync-cns = n} is set, first at the node's first acquisition and then again whenever
     * {@code sync-interval-ns} (the paper: one second) has passed since the last: FAA the sync
     * counter and READ it until the n-th node of this round has arrived, then take the clock
     * origin (precision about one READ). The paper's last node resets the counter to 0 and the
     * others wait for 0; with repeated rounds a fast node's FAA for the next round could land
     * before a slow node READ that 0, so here the counter only grows: the round of an arrival is
     * {@code old / n} and it is complete at {@code (old / n + 1) x n}. Given up, keeping the old
     * origin (fairness only), after 100 leases the first time (nodes start at different times)
     * and after a quarter lease later on (the client acquiring may hold other locks; the nodes'
     * rounds fall due together, their origins being aligned).
     */
    private void syncClock() {
        if (syncCns <= 0 || !local.claimSync(clock.nanoTime())) {
            return;
        }
        boolean first = local.syncAttempts() == 1;
        try {
            passBarrier(first);
        } catch (MemoryNodeRestartedException e) {
            local.endSync(false, clock.nanoTime(), syncIntervalNs); // the old origin is kept: fairness only
        }
    }

    private void passBarrier(boolean first) {
        long sync = table.at(CqlLayout.SYNC_OFFSET);
        long complete = (qp.faa(sync, 1) / syncCns + 1) * syncCns;
        long deadline = clock.nanoTime() + (first ? engine.leaseNs() * SYNC_GIVE_UP_LEASES
                : engine.leaseNs() / HOLD_BUDGET_FRACTION);
        IdleStrategy idle = clock.idleStrategy();
        while (qp.read8(sync) < complete) {
            if (clock.nanoTime() - deadline >= 0) {
                local.endSync(false, clock.nanoTime(), syncIntervalNs);
                return;
            }
            idle.idle();
        }
        syncs++;
        local.endSync(true, clock.nanoTime(), syncIntervalNs);
    }

    // ---------------------------------------------------------------- misc

    @Override
    public long locks() {
        return engine.locks();
    }

    /** A reset of any lock of the table waits for this client's answer to its signal. */
    @Override
    public boolean answersWhileIdle() {
        return true;
    }

    /** Answers the reset signals that have arrived ({@link CqlEngine#serviceControl}): at once, or, for a lock held, at its release. */
    @Override
    public void whileIdle() {
        engine.serviceControl();
    }

    /**
     * The CQL engine's counts, with local grants given back because of a reset counted as aborts,
     * and this client's local handovers, CQL acquisitions and dead locals ({@link DecLockCounters}).
     */
    @Override
    public LockStats stats() {
        return engine.stats().add(LockStats.ABORTS, localAborts)
                .add(LockStats.HANDOVERS, localHandovers)
                .counter(DecLockCounters.LOCAL_HANDOVERS, localHandovers)
                .counter(DecLockCounters.CQL_ACQUISITIONS, cqlAcquisitions)
                .counter(DecLockCounters.DEAD_LOCALS, deadLocals).build();
    }

    /** Grants handed over within the node without a memory-node operation. */
    public long localHandovers() {
        return localHandovers;
    }

    /** CQL acquisitions this client made for its node. */
    public long cqlAcquisitions() {
        return cqlAcquisitions;
    }

    /** Clock barriers this client passed for its node. */
    public long clockSyncs() {
        return syncs;
    }

    /** Local holders and CQL acquirers of this node that this client found dead (or hung) and released for. */
    public long deadLocals() {
        return deadLocals;
    }

    /** Prefetch READs of the CQL queue for the earliest remote timestamp. */
    public long prefetches() {
        return prefetches;
    }

    /** The duration of each reset this client completed (see {@link CqlClient#resetLatenciesNs()}). */
    public long[] resetLatenciesNs() {
        return engine.resetLatenciesNs();
    }

    @Override
    public String toString() {
        return "DecLockClient[" + engine + ", " + (phaseFair ? "pf" : "tf") + ", " + policy + "]";
    }
}
