package io.lockfabric.lock.declock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.declock.CqlEngine.CqlGrant;
import io.lockfabric.lock.declock.CqlEngine.Signal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * DecLock's cooperative queue-notify lock (Zhang, Cheng, Chen, Wei and Chen, "DecLock: A Case of
 * Decoupled Locking for Disaggregated Memory", arXiv 2505.17641, 2025; §4; memory in
 * {@link CqlLayout}, messages in {@link CqlMessages}, the protocol steps in {@link CqlEngine}), one
 * client per queue participant.
 *
 * <p><b>The protocol in brief</b> (the design essay, with the paper's sections, is
 * {@link CqlEngine}'s). A lock is an 8-byte header (RST, wcnt, qsize, qhead, reset count) and a
 * circular queue of waiter entries on the memory node. <em>Acquire</em>: one FAA on the header
 * enqueues; the old header grants at once (an empty queue, or a reader with no writer queued, and
 * then nothing else is written), or the client WRITEs its entry and waits for a GRANT message.
 * <em>Release</em>: one doorbell of the dequeueing FAA and a READ of the queue, then a GRANT to the
 * next writer or to the run of readers up to the next writer. FIFO across readers and writers, no
 * remote retries: acquire 1 verb (+1 WRITE when waiting), release 1 FAA + 1 READ in one round
 * trip. <em>Reset</em> (§4.4) rewrites a lock whose queue overflowed, whose entries were
 * overwritten or ran out of versions, or whose waiter timed out or could not be notified: RST by
 * CAS, a SIGNAL to every member and their ACKs (holders after releasing, waiters aborting), then
 * the queue zeroed and a fresh header (reset count + 1). A release more than {@code lease/4} after
 * its grant is a CAS guarded by the reset count instead of the FAA.
 *
 * <p><b>This client</b> holds at most one grant per lock. A reset signal for a lock it holds is
 * kept until it releases that lock; the release then answers it and, if the reset is of the
 * grant's epoch, skips the FAA (the resetter rewrites the header).
 *
 * <p><b>Hazards left</b>: a holder that keeps the lock longer than the lease (paused) while a
 * reset runs overlaps the next epoch's holders (the lease assumption; fencing tokens tell them
 * apart); a signal delayed in the network by more than 3/4 of a lease; a waiter stalled between
 * its FAA and its entry WRITE across a whole reset writes a stale entry into the new epoch
 * (liveness only: grants are matched by token, a wrong notification is dropped and the real
 * waiter times out into another reset); a client holding one lock while it waits for another
 * counts that wait against the first lock's lease.
 *
 * <p><b>Measurements.</b> {@link #stats()} counts resets this client performed (completed),
 * aborted acquisitions and failed guarded CASes; {@link #resetLatenciesNs()} is each completed
 * reset's duration from RST set to the fresh header in place (the lock usable again), on this
 * client's clock; {@link #refetchReads()} the extra READs of entries not written yet.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
public final class CqlClient implements LockClient {
    private final CqlEngine engine;
    private final Map<Long, CqlGrant> held = new HashMap<>();
    private final Map<Long, List<Signal>> deferred = new HashMap<>();

    private final long forceResetNs;
    private long nextForcedResetNs;

    CqlClient(Endpoint endpoint, Table table, CqlProtocol.Settings settings, long forceResetNs) {
        this.engine = new CqlEngine(endpoint, table, settings, this::defer, false);
        this.forceResetNs = forceResetNs;
        this.nextForcedResetNs = engine.clock().nanoTime() + forceResetNs;
    }

    private boolean defer(long lockId, long rstcnt, EndpointId from) {
        CqlGrant g = held.get(lockId);
        if (g != null && g.rstcnt() <= rstcnt) {
            deferred.computeIfAbsent(lockId, k -> new ArrayList<>()).add(new Signal(from, rstcnt));
            return true;
        }
        return false;
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        if (lockId >= 0 && lockId < engine.locks() && held.containsKey(lockId)) {
            throw new IllegalStateException("this client already holds cql lock " + lockId);
        }
        if (forceResetNs > 0 && engine.firstMember() && engine.clock().nanoTime() - nextForcedResetNs >= 0) {
            nextForcedResetNs = engine.clock().nanoTime() + forceResetNs;
            forceReset(lockId);
        }
        CqlGrant g = engine.acquire(lockId, mode, 0);
        held.put(lockId, g);
        return g;
    }

    /**
     * Resets lock {@code lockId} now, as a waiter that timed out would: RST, a signal to every
     * client and their answers, the queue and header rewritten (experiments and tests: the reset
     * latency of Fig. 16, recorded in {@link #resetLatenciesNs()}). Waits for a reset under way
     * instead of starting one.
     *
     * @throws IllegalStateException if this client holds the lock (it would not answer itself)
     */
    public void forceReset(long lockId) {
        if (held.containsKey(lockId)) {
            throw new IllegalStateException("this client holds cql lock " + lockId + ": release it before resetting it");
        }
        engine.forceReset(lockId);
    }

    /** Resets this client asked for with {@link #forceReset} or option {@code force-reset-ns}. */
    public long forcedResets() {
        return engine.forcedResets();
    }

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof CqlGrant g) || held.get(g.lockId()) != g) {
            throw new IllegalArgumentException("not a grant this cql client holds: " + grant);
        }
        engine.serviceControl(); // signals for this lock arrived by now are deferred to here
        held.remove(g.lockId());
        List<Signal> signals = deferred.remove(g.lockId());
        if (signals != null) {
            boolean resetting = signals.stream().anyMatch(s -> s.rstcnt() >= g.rstcnt());
            signals.forEach(s -> engine.ack(s.from(), g.lockId(), s.rstcnt()));
            if (resetting) {
                engine.ignoreRelease(); // the lock is being reset: the resetter rewrites the header
                return;
            }
        }
        engine.release(g);
    }

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
     * Retries: failed CASes (RST, late releases, header rewrite); resets: resets completed by this
     * client; and the counts and reset latencies of {@link DecLockCounters}.
     */
    @Override
    public LockStats stats() {
        return engine.stats().build();
    }

    /** The duration of each reset this client completed, RST set to fresh header in place, in order. */
    public long[] resetLatenciesNs() {
        return engine.resetLatenciesNs();
    }

    /** READs of queue entries that were not written yet when first read (§4.3 refetching). */
    public long refetchReads() {
        return engine.refetchReads();
    }

    /** READs of the member list, made when a queue entry names a slot this client has not seen yet. */
    public long memberReads() {
        return engine.memberReads();
    }

    /** Acquisitions that waited {@code timeout-ns} without a grant (each started a reset). */
    public long timeouts() {
        return engine.timeouts();
    }

    /** Members a reset of this client did not hear from within the lease. */
    public long presumedDead() {
        return engine.presumedDead();
    }

    /** Resets this client took over from a resetter that stalled. */
    public long takeovers() {
        return engine.takeovers();
    }

    /** Releases that met a reset and changed nothing. */
    public long ignoredReleases() {
        return engine.ignoredReleases();
    }

    @Override
    public String toString() {
        return "CqlClient[" + engine + "]";
    }
}
