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
 * DecLock's cooperative queue-notify lock (Huang et al., DecLock §4; memory in {@link CqlLayout},
 * messages in {@link CqlMessages}, the protocol steps in {@link CqlEngine}), one client per queue
 * participant.
 *
 * <p><b>State on the memory node, ownership by message.</b> A lock is an 8-byte header (RST, wcnt,
 * qsize, qhead, reset count) and a circular queue of waiter entries. <em>Acquire</em>: one FAA adds
 * the client to qsize (and a writer to wcnt); the old header decides: granted at once if the queue
 * was empty, or for a reader if no writer is queued — and then nothing else is written. Otherwise
 * the client WRITEs its entry {op, its mailbox address, version of its index} at index
 * {@code qhead + qsize} and waits for a GRANT message. <em>Release</em>: one {@link io.lockfabric.fabric.Batch}
 * (one doorbell) of the FAA that dequeues (qhead + 1, qsize − 1, a writer wcnt − 1) and a READ of
 * the queue behind it. With the old header, {@code h = qhead + 1} is the next participant. A
 * releasing reader with writers queued finds them: it counts valid exclusive entries in the queue
 * and re-READs until it sees wcnt of them (a writer may not have written its entry yet; readers
 * granted at once never do), and notifies the writer at {@code h} if there is one (it was the last
 * reader). A releasing writer re-READs the entry at {@code h} until valid and notifies that writer,
 * or the run of readers from {@code h} up to the next writer. FIFO across readers and writers; no
 * remote retries; acquire 1 (+1 WRITE when waiting), release 1 FAA + 1 READ in one round trip.
 *
 * <p><b>Reset</b> (§4.4, Appendix B). Triggers: queue overflow (old qsize ≥ capacity), an
 * overwritten entry, version exhaustion (an index at {@link CqlLayout#indexLimit()}), an
 * acquisition timeout ({@code timeout-ns}: a crashed holder or queue member), a dead waiter to
 * notify. The resetter (1) sets RST with CAS (if it is set already, it waits for that reset);
 * (2) READs the table's member slots (every client registers its mailbox address there when it
 * opens the table) and SIGNALs every other member. Members answer with ACK: holders of the lock
 * after they release (their release then skips the FAA), waiters abort first, everyone else at
 * once. Signals go to a control key that every client services whenever it is in the lock client
 * (waits look at it at least every {@code signal-poll-ns}). The resetter re-signals the silent ones
 * now and then; a member whose SEND fails is dead and not awaited, and after {@code lease-ns} the
 * silent ones are taken for dead. (3) It zeroes the queue with one WRITE and swaps the header for a
 * fresh one (reset count + 1) with CAS, then tells the members DONE. Acquisitions that meet RST wait
 * for DONE (or READ the header now and then) and retry after a random jitter; one that sees RST for
 * {@code 2 × lease} takes the reset over (CAS adds one to the reset count while RST stays set: a
 * dead resetter's late header CAS then fails). Releases that meet RST are ignored. Grants carry the
 * fencing token, which contains the reset count, so a grant from before a reset is dropped; a
 * client checks for a reset signal of its epoch before it uses any grant, even one its FAA gave.
 *
 * <p><b>Late releases.</b> A holder releases with the FAA only within {@code lease/4} of its grant:
 * a resetter waits a lease after its signal, which a holder gets before it could be granted, so
 * such an FAA lands before the header is rewritten. Later, a release READs the header and CASes
 * the same delta only if the reset count is still its grant's and RST is clear, so a holder
 * presumed dead never corrupts the next epoch's header. <b>Hazards left</b>: a holder that keeps
 * the lock longer than the lease (paused) while a reset runs overlaps the next epoch's holders
 * (the lease assumption; fencing tokens tell them apart); a signal delayed in the network by more
 * than 3/4 of a lease; a waiter stalled between its FAA and its entry WRITE across a whole reset
 * writes a stale entry into the new epoch (liveness only: grants are matched by token, a wrong
 * notification is dropped and the real waiter times out into another reset); a client holding one
 * lock while it waits for another counts that wait against the first lock's lease.
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
