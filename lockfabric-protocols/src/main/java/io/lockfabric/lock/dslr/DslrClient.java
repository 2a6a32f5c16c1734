package io.lockfabric.lock.dslr;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.Verb;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LatencyBreakdown;
import io.lockfabric.lock.LatencyBreakdown.Item;
import io.lockfabric.lock.LatencyBreakdown.Part;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.TruncatedExponentialBackoff;

/**
 * DSLR client (Yoon, Chowdhury, Mozafari, SIGMOD'18; layout in {@link DslrLayout}).
 *
 * <p><b>Acquire</b>: one FAA takes a ticket (+1 on maxS or maxX); the returned word {@code prev}
 * says who is ahead. A reader is granted once {@code nX == prev.maxX} (every earlier writer is
 * done), a writer once also {@code nS == prev.maxS}. Until then it READs the word, waiting before
 * each READ {@code ω × (writers ahead + readers ahead / 10)} (readers ahead count only for
 * writers), capped; with option {@code waiting=backoff} (DSLR+, as DecLock's evaluation ran it) it
 * sleeps a truncated exponential backoff instead ({@link DslrPlusBackoff}). <b>Release</b>: one FAA (+1 on nS or nX). Uncontended cycle: 2 FAA.
 *
 * <p><b>Overflow reset</b>: if {@code prev} shows a max at or past {@code countMax}, a reset is
 * under way: the client undoes its FAA, backs off and retries. The client whose ticket is
 * {@code countMax − 1} (the last valid one) is the resetter: after its own release it CASes the
 * word from "every valid ticket released" to 0, retrying while holders finish and undos land.
 * Because tickets restart at each reset, fencing tokens (the ticket) are not strict.
 *
 * <h2>Lease-based recovery (the paper's lease rule, made precise)</h2>
 *
 * A holder may use a grant for at most {@code L = lease} on its own clock, counted from a
 * conservative start: the issue time of the last observation (FAA, READ or CAS) that did
 * <em>not</em> yet show the grant, or of the FAA itself for an immediate grant. Hence a grant's
 * lease starts no later than the moment its condition became true. A grant already expired when
 * first seen is not used (see below).
 *
 * <p>Who is ahead of a waiter and not done, when the serving counters read {@code (nX, nS)}: only
 * <em>writer {@code nX}</em> (holding, or waiting for readers) and the readers of <em>group
 * {@code nX}</em> (readers whose {@code prev.maxX == nX}; all of them are granted). Earlier readers
 * were released before writer {@code nX} could start. A reset therefore skips exactly one of those:
 * <ul>
 * <li><b>Skip writer {@code nX}</b> (CAS {@code nX → nX + 1}): any waiter with {@code nX <} its
 * target, after {@code (nX, nS)} stayed unchanged for {@code 2 × L} since it first saw that
 * value. Writer {@code nX} was granted (if at all) before that first sight, so a live writer
 * released within {@code L}: the CAS, which compares the whole word it last read, fails if the
 * release landed. A live writer skipped while still <em>waiting</em> sees {@code nX} past its
 * ticket and restarts.</li>
 * <li><b>Skip the readers of my group</b> (CAS {@code nS → prev.maxS}): only writer {@code nX}
 * itself, after {@code 3L/2} since it first saw {@code nX == its ticket}. Every unreleased reader
 * of its group was granted before that sight, so the live ones released within {@code L}; those
 * left are crashed or past their lease. The shorter window lets the writer that is waiting only
 * on a crashed reader reset before anyone behind it skips <em>it</em> (when the poll gap is under
 * {@code L/4}, which {@link DslrProtocol} enforces via {@code lease ≥ 4 × max-wait}).</li>
 * </ul>
 * Each CAS succeeds only on the exact word observed, so at most one waiter resets per observation;
 * lease resets are counted in {@link LockStats#resets()} (with the overflow resets).
 *
 * <p><b>Own ticket skipped</b>: a writer whose {@code nX} moved past its ticket, or a reader whose
 * {@code nX} moved past its {@code prev.maxX}, or one whose epoch ended ({@code max ≤} its ticket:
 * an overflow reset happened after it was skipped) restarts from a fresh ticket, counted in
 * {@link LockStats#aborts()}, at most {@code max-restarts} times, then
 * {@link LockUnavailableException}. A grant first seen after its lease already expired (the client
 * paused while the condition was true) is not used either: a writer gives it back with the guarded
 * release below, a reader drops it (the group's writer will skip it), and the client restarts.
 *
 * <p><b>Release after the lease</b>: a blind FAA could land after a reset skipped the holder and
 * count a later ticket as done (the spec's hazard). Within its lease a holder releases with the
 * paper's FAA (a reset cannot have skipped it yet). Past its lease, a writer releases with a masked
 * CAS that adds 1 to {@code nX} only if {@code (nX, nS)} still equals its {@code (ticket,
 * prev.maxS)}, which holds exactly while it was not skipped; a reader cannot tell whether its
 * group was skipped, so it drops the release (liveness cost: the next writer waits one
 * {@code 3L/2} window). Residual: a holder paused between its lease check and its FAA.
 *
 * <p><b>Overflow with leases</b>: lease resets only rewrite the serving counters and copy the max
 * counters from the observed word, so pending undos are preserved; the reset to 0 is done only
 * from the exact all-done word (n == max on both sides, one max == countMax), which no word with a
 * pending increment equals. Any client that meets that word helps reset it (so a crashed or
 * skipped last-ticket holder does not block the lock), and the resetter stops retrying once
 * someone else has. Clients bouncing off an overflow act as waiters for the final tickets: with
 * exclusive tickets exhausted they skip writer {@code nX < countMax} after {@code 2L}; with shared
 * tickets exhausted and every writer done ({@code nX == maxX}) they skip the last readers
 * ({@code nS → countMax}) after {@code 3L/2}.
 *
 * <p><b>Hazards left</b> (the lease assumption, not prevented by the word alone):
 * <ul>
 * <li>A holder paused between its lease check and its release FAA landing (or whose FAA is delayed
 * in flight by about {@code L}) may still land after a reset skipped it and count a later ticket
 * as done. Tickets are not strict fencing tokens, so a guarded resource cannot reject it.</li>
 * <li>Clock drift between holder and waiter must stay well under the {@code L/2} margin.</li>
 * <li>Epoch ABA: a skipped waiter that does not poll while its epoch ends (overflow reset) and a
 * new one serves up to its ticket may take the new epoch's counters for its grant. It notices the
 * reset if the max counter is still at or below its ticket, i.e. unless a whole new epoch's worth
 * of tickets passed in one of its poll gaps (relevant only with tiny {@code count-max}).</li>
 * <li>A client that crashes between its overflow FAA and its undo leaves the max counter inflated:
 * the all-done word is never reached and the lock stays in overflow (no reset is made from such a
 * word, so the undo-borrows-from-its-neighbour hazard cannot occur).</li>
 * <li>Overflow corner cases where bouncing clients cannot tell crashed readers from in-flight
 * undos, so they do not reset: exclusive tickets exhausted, the last writer skipped while it
 * waited for a crashed reader; or shared tickets exhausted and every client of the last reader
 * group crashed behind a crashed writer.</li>
 * <li>A live waiter starved for about {@code L/2} may lose the race to a waiter behind it and be
 * skipped; it restarts (bounded by {@code max-restarts}).</li>
 * </ul>
 *
 * <p><b>Time breakdown</b> ({@link LatencyBreakdown}), as ShiftLock's Table 4 times DSLR: acquire
 * IA (the ticket FAA) and RT (everything after it until the grant: polls, waits, resets, undone
 * tickets and restarts), under the requested mode's part; release IA (the releasing FAA or
 * guarded CAS).
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class DslrClient implements LockClient {
    /** Writers weigh readers ahead of them at one tenth (DSLR's dynamic interval). */
    static final int READER_WEIGHT_DIVISOR = 10;
    /** Lease multiples (in halves) of the two reset windows: skip a writer, skip readers. */
    static final int SKIP_WRITER_HALF_LEASES = 4;
    static final int SKIP_READERS_HALF_LEASES = 3;
    private static final long NEVER = Long.MIN_VALUE;

    private final QueuePair qp;
    private final Table table;
    private final Clock clock;
    private final long omegaNs;
    private final long maxWaitNs;
    private final int countMax;
    private final TruncatedExponentialBackoff resetBackoff;
    /** {@link Long#MAX_VALUE}: no lease, no recovery (crashed holders block the lock). */
    private final long leaseNs;
    private final long skipWriterAfterNs;
    private final long skipReadersAfterNs;
    private final int maxRestarts;
    /** DSLR+'s truncated exponential backoff between polls; null: DSLR's dynamic interval. */
    private final DslrPlusBackoff plusBackoff;
    private final LatencyBreakdown.Recorder times;
    /** The acquisition under way: its part, the start of its current item, and whether IA is still to come. */
    private Part timedPart = Part.WRITER_ACQUIRE;
    private long timedSince;
    private boolean initialAtomicPending;
    private long retries;
    private long aborts;
    private long resets;
    private long leaseResets;
    private long lateReleases;
    private long ticketIssuedAt;

    DslrClient(Endpoint endpoint, Table table, long omegaNs, long maxWaitNs, int countMax, long resetBackoffNs,
               long leaseNs, int maxRestarts, boolean plusBackoff) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.clock = endpoint.clock();
        this.times = new LatencyBreakdown.Recorder(clock.timesBreakdowns());
        this.omegaNs = omegaNs;
        this.maxWaitNs = maxWaitNs;
        this.countMax = countMax;
        this.resetBackoff = new TruncatedExponentialBackoff(clock, endpoint.random(), resetBackoffNs);
        this.leaseNs = leaseNs;
        this.skipWriterAfterNs = halfLeases(leaseNs, SKIP_WRITER_HALF_LEASES);
        this.skipReadersAfterNs = halfLeases(leaseNs, SKIP_READERS_HALF_LEASES);
        this.maxRestarts = maxRestarts;
        this.plusBackoff = plusBackoff ? new DslrPlusBackoff(clock, endpoint.random()) : null;
    }

    /** {@code halves × lease / 2}, saturating ({@link Long#MAX_VALUE}: never). */
    private static long halfLeases(long leaseNs, int halves) {
        return leaseNs > Long.MAX_VALUE / halves ? Long.MAX_VALUE : leaseNs * halves / 2;
    }

    private boolean leased() {
        return leaseNs != Long.MAX_VALUE;
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        long addr = address(lockId);
        timedPart = mode == Mode.SHARED ? Part.READER_ACQUIRE : Part.WRITER_ACQUIRE;
        timedSince = times.start(clock);
        initialAtomicPending = true;
        for (int restart = 0; ; restart++) {
            Grant g = tryAcquire(lockId, addr, mode);
            if (g != null) {
                times.lap(clock, timedPart, Item.RT, timedSince);
                times.completed(timedPart);
                return g;
            }
            aborts++;
            if (restart >= maxRestarts) {
                throw new LockUnavailableException("dslr lock " + lockId + ": " + mode
                        + " ticket skipped by lease resets (or granted after its lease) " + (restart + 1)
                        + " times; gave up after max-restarts=" + maxRestarts);
            }
        }
    }

    /** One ticket's wait: the grant, or null if the ticket was skipped or its grant came expired. */
    private Grant tryAcquire(long lockId, long addr, Mode mode) {
        boolean shared = mode == Mode.SHARED;
        long delta = shared ? DslrLayout.ONE_MAX_S : DslrLayout.ONE_MAX_X;
        long prev = takeTicket(addr, delta);
        if (plusBackoff != null) {
            plusBackoff.acquisition();
        }
        long issuedAt = ticketIssuedAt;
        int waitX = DslrLayout.maxX(prev);
        int waitS = DslrLayout.maxS(prev);
        int ticket = shared ? waitS : waitX;
        long word = prev + delta; // the word as our FAA left it
        long notGrantedIssue = issuedAt;
        long now = clock.nanoTime();
        long stuck = word & DslrLayout.SERVING_MASK;
        long stuckSince = now;
        long turnSince = NEVER;
        while (true) {
            if (granted(word, shared, waitX, waitS)) {
                var g = new DslrGrant(lockId, mode, ticket, prev, notGrantedIssue);
                if (leased() && now - notGrantedIssue >= leaseNs) {
                    abandonExpired(addr, g);
                    return null;
                }
                return g;
            }
            notGrantedIssue = issuedAt;
            if (skipped(word, shared, waitX, waitS)) {
                return null;
            }
            if ((word & DslrLayout.SERVING_MASK) != stuck) {
                stuck = word & DslrLayout.SERVING_MASK;
                stuckSince = now;
            }
            if (!shared && turnSince == NEVER && DslrLayout.nX(word) == waitX) {
                turnSince = now;
            }
            long target = leased() ? leaseResetTarget(word, shared, waitX, waitS, now - stuckSince,
                    turnSince == NEVER ? 0 : now - turnSince) : word;
            if (target != word) {
                issuedAt = clock.nanoTime();
                long old = qp.cas(addr, word, target);
                now = clock.nanoTime();
                if (old == word) {
                    resets++;
                    leaseResets++;
                    word = target;
                } else {
                    retries++;
                    word = old;
                }
                continue;
            }
            clock.sleepNanos(plusBackoff == null ? waitNanos(word, shared, waitX, waitS) : plusBackoff.nextWaitNs());
            issuedAt = clock.nanoTime();
            word = qp.read8(addr);
            now = clock.nanoTime();
        }
    }

    /**
     * FAA for a ticket, undoing and backing off while an overflow reset is under way. Returns the
     * word before the FAA; {@link #ticketIssuedAt} is when the successful FAA was issued.
     */
    private long takeTicket(long addr, long delta) {
        Staleness watch = null; // made only if the ticket meets an overflow reset
        for (int attempt = 0; ; attempt++) {
            ticketIssuedAt = clock.nanoTime();
            long prev = qp.faa(addr, delta);
            if (initialAtomicPending) {
                timedSince = times.lap(clock, timedPart, Item.IA, timedSince);
                initialAtomicPending = false;
            }
            if (!overflowed(prev)) {
                resetBackoff.completed();
                return prev;
            }
            qp.faa(addr, -delta); // a reset is under way: give the ticket back
            retries++;
            if (leased()) {
                if (watch == null) {
                    watch = new Staleness();
                }
                helpOverflow(addr, prev, watch);
            }
            resetBackoff.backoff(attempt);
        }
    }

    private boolean overflowed(long w) {
        return DslrLayout.maxS(w) >= countMax || DslrLayout.maxX(w) >= countMax;
    }

    private static boolean granted(long word, boolean shared, int waitX, int waitS) {
        return DslrLayout.nX(word) == waitX && (shared || DslrLayout.nS(word) == waitS);
    }

    /**
     * In one epoch {@code nX} never passes a waiting writer's ticket nor a waiting reader's
     * {@code prev.maxX} unless a reset skipped it, and the max counter stays above the ticket.
     */
    private static boolean skipped(long word, boolean shared, int waitX, int waitS) {
        if (DslrLayout.nX(word) > waitX) {
            return true;
        }
        return shared ? DslrLayout.maxS(word) <= waitS : DslrLayout.maxX(word) <= waitX;
    }

    /** The word a stale waiter CASes in, or {@code word} itself if no reset is due. */
    private long leaseResetTarget(long word, boolean shared, int waitX, int waitS, long stuckNs, long turnNs) {
        int nX = DslrLayout.nX(word);
        if (!shared && nX == waitX) {
            return turnNs >= skipReadersAfterNs ? DslrLayout.withNS(word, waitS) : word;
        }
        return nX < waitX && stuckNs >= skipWriterAfterNs ? DslrLayout.withNX(word, nX + 1) : word;
    }

    private long waitNanos(long word, boolean shared, int waitX, int waitS) {
        double ahead = waitX - DslrLayout.nX(word);
        if (!shared) {
            ahead += (double) (waitS - DslrLayout.nS(word)) / READER_WEIGHT_DIVISOR;
        }
        return (long) Math.min(maxWaitNs, Math.max(0, ahead) * omegaNs);
    }

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof DslrGrant g)) {
            throw new IllegalArgumentException("not a grant of this dslr client: " + grant);
        }
        long addr = address(g.lockId());
        boolean shared = g.mode() == Mode.SHARED;
        long issued = times.start(clock);
        if (!leased() || clock.nanoTime() - g.leaseStart() < leaseNs) {
            qp.post(new Verb.Faa(addr, shared ? DslrLayout.ONE_N_S : DslrLayout.ONE_N_X)); // posted: result not needed
            releaseTimed(issued);
            afterRelease(addr, g);
            return;
        }
        lateReleases++;
        boolean released = !shared && guardedRelease(addr, g);
        releaseTimed(issued);
        if (released) {
            afterRelease(addr, g);
        }
    }

    private void releaseTimed(long issued) {
        times.lap(clock, Part.RELEASE, Item.IA, issued);
        times.completed(Part.RELEASE);
    }

    private void afterRelease(long addr, DslrGrant g) {
        if (g.fencingToken() == countMax - 1) {
            resetAfterOverflow(addr, g.mode() == Mode.SHARED, g.prev());
        }
    }

    /** A grant seen only after its lease ran out: give a writer's ticket back safely, drop a reader's. */
    private void abandonExpired(long addr, DslrGrant g) {
        lateReleases++;
        if (g.mode() == Mode.EXCLUSIVE && guardedRelease(addr, g)) {
            afterRelease(addr, g);
        }
    }

    /**
     * A writer's release that lands only if no reset skipped it: {@code nX += 1} iff
     * {@code (nX, nS) == (ticket, prev.maxS)}, which is true exactly while it holds the lock.
     */
    private boolean guardedRelease(long addr, DslrGrant g) {
        int ticket = DslrLayout.maxX(g.prev());
        long held = DslrLayout.word(ticket, DslrLayout.maxS(g.prev()), 0, 0);
        long next = DslrLayout.word(ticket + 1, 0, 0, 0);
        long old = qp.maskedCas(addr, held, DslrLayout.SERVING_MASK, next, DslrLayout.N_X_MASK);
        return (old & DslrLayout.SERVING_MASK) == held;
    }

    /**
     * The last valid ticket's holder resets the word once every valid ticket is released. No
     * ticket is handed out meanwhile (every FAA sees a max at countMax and is undone), so "every
     * valid ticket released" is a single known value. With leases another client may reset it
     * first (then every max is back below countMax), and stuck final tickets are skipped here too.
     */
    private void resetAfterOverflow(long addr, boolean shared, long prev) {
        int finalX = shared ? DslrLayout.maxX(prev) : countMax;
        int finalS = shared ? countMax : DslrLayout.maxS(prev);
        long allDone = DslrLayout.word(finalX, finalS, finalX, finalS);
        var watch = new Staleness();
        for (int attempt = 0; ; attempt++) {
            long old = qp.cas(addr, allDone, 0);
            if (old == allDone) {
                resets++;
                return;
            }
            if (!overflowed(old)) {
                return;
            }
            if (leased()) {
                helpOverflow(addr, old, watch);
            }
            resetBackoff.backoff(attempt);
        }
    }

    /**
     * A client that met an overflowed word {@code w}: ends the epoch if {@code w} is exactly
     * all-done, else acts as a waiter for the final tickets once they are stale (class javadoc).
     */
    private void helpOverflow(long addr, long w, Staleness watch) {
        int nX = DslrLayout.nX(w);
        int nS = DslrLayout.nS(w);
        int maxX = DslrLayout.maxX(w);
        int maxS = DslrLayout.maxS(w);
        if (nX == maxX && nS == maxS && (maxX == countMax || maxS == countMax)) {
            if (qp.cas(addr, w, 0) == w) {
                resets++;
            }
            return;
        }
        long stuckNs = watch.observe(w & DslrLayout.SERVING_MASK, clock.nanoTime());
        long target = w;
        if (maxX >= countMax && nX < countMax && stuckNs >= skipWriterAfterNs) {
            target = DslrLayout.withNX(w, nX + 1);
        } else if (maxS >= countMax && nX == maxX && nS < countMax && stuckNs >= skipReadersAfterNs) {
            target = DslrLayout.withNS(w, countMax);
        }
        if (target != w) {
            if (qp.cas(addr, w, target) == w) {
                resets++;
                leaseResets++;
                watch.observe(target & DslrLayout.SERVING_MASK, clock.nanoTime());
            } else {
                retries++;
            }
        }
    }

    @Override
    public long locks() {
        return table.spec().locks();
    }

    @Override
    public LockStats stats() {
        return times.snapshot().addTo(LockStats.builder().counter(LockStats.RETRIES, retries)
                .counter(LockStats.ABORTS, aborts).counter(LockStats.RESETS, resets)).build();
    }

    /** Lease resets this client made (included in {@link LockStats#resets()}). */
    long leaseResets() {
        return leaseResets;
    }

    /** Polls that found the lock not yet granted and waited (DSLR+ backoff only; 0 with the dynamic interval). */
    long backoffWaits() {
        return plusBackoff == null ? 0 : plusBackoff.waits();
    }

    /** Grants released or abandoned after their lease (guarded CAS for writers, dropped for readers). */
    long lateReleases() {
        return lateReleases;
    }

    private long address(long lockId) {
        return LockTables.entryAddress(table, lockId, DslrLayout.WORD_BYTES);
    }

    /** How long the serving counters have shown one value, on this client's clock. */
    private static final class Staleness {
        private long serving = -1;
        private long since;

        long observe(long servingBits, long now) {
            if (servingBits != serving) {
                serving = servingBits;
                since = now;
            }
            return now - since;
        }
    }

    /**
     * The ticket is the fencing token; {@code prev} is the word the ticket FAA returned;
     * {@code leaseStart} is when the lease began on this client's clock (no later than the grant).
     */
    private record DslrGrant(long lockId, Mode mode, long fencingToken, long prev, long leaseStart) implements Grant {
        /** The lease start the lease rule above counts from (the last look that did not show the grant). */
        @Override
        public long leaseStartNs() {
            return leaseStart;
        }

    }
}
