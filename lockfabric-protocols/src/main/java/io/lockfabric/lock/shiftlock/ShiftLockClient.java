package io.lockfabric.lock.shiftlock;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.Verb;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.Inbox;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.LatencyBreakdown;
import io.lockfabric.lock.LatencyBreakdown.Item;
import io.lockfabric.lock.LatencyBreakdown.Part;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.Predicate;

/**
 * ShiftLock client (Gao, Wang and Shu, FAST'25, §3; entry in {@link ShiftLockLayout}, messages in
 * {@link ShiftLockMessages}).
 *
 * <p><b>Writers</b> form an MCS queue whose tail is in the entry (§3.3). A writer enqueues with
 * one MCAS128 that swaps TailPtr to itself whatever the entry holds (a fetch-and-store) and
 * returns the whole old entry. A previous tail is its predecessor: it SENDs it Successor and waits
 * on its mailbox for Handover (granted) or ModeChanged (wait until RelCnt reaches the value given:
 * the readers let in by the epoch flip are gone). No predecessor but readers counted: wait until
 * RelCnt = old RelCnt + old RdrCnt (§3.4). Neither: granted at once. <b>Readers</b> add 1 to RdrCnt
 * with one MFAA128; granted at once if no writer is queued, else when Epoch changes (§3.5).
 * Releases: a reader MFAA128s {RdrCnt − 1, RelCnt + 1}; a writer that knows no successor MCAS128s
 * {TailPtr = me → null, RelCnt ← +1, Epoch flipped}; if the tail moved, a successor is enqueueing:
 * it waits for its Successor. With a successor it hands over (RelCnt + 1, Handover with consWrt + 1)
 * unless N consecutive writers held the lock: then it flips Epoch and sends ModeChanged
 * {RelCnt + RdrCnt + 1} (waiting readers run first). So writers are preferred (a queued writer
 * blocks new readers) and readers wait at most N writers. Successor messages that arrive during
 * the critical section stay in the {@link Inbox} until release. Uncontended: one round
 * trip to acquire, one to release.
 *
 * <p><b>RelCnt counts every release</b>, writer-to-writer handovers included (Algorithm 3 line 20;
 * the artifact skips that one): then a writer holding the lock knows RelCnt exactly (its
 * curRelCnt), every grant of the lock moves RelCnt or is preceded by a move, and "RelCnt stuck"
 * means "nobody is being granted". Because the holder knows RelCnt and Epoch, its releases are
 * 128-bit masked <em>CAS</em>es that compare RelCnt with curRelCnt (the paper allows CAS or FAA to
 * flip Epoch): the same single atomic, but one that fails after a recovery instead of corrupting
 * the next era (below).
 *
 * <p><b>Fault tolerance</b> (§3.6). A holder keeps the lock at most {@code L = lease} on its own
 * clock, counted from a conservative start (the issue time of the last look that did not yet show
 * the grant). Every timed wait {@code T} lasts {@code (1+δ)·T}. Waiters (for a message, for
 * RelCnt, for an epoch) look at RelCnt at least every {@code L/2}; when it has not changed for
 * {@code 3·L}, they READ the lock's era and send the memory node the rpc {lock, era, RelCnt seen}
 * ({@link ShiftLockRecovery}); it resets the entry (word 0 ← 0, RelCnt + 2^63) only if the era is
 * current and RelCnt still the value seen, then bumps the era. A rejected requester re-checks at
 * once, and if nothing changed waits {@code L} and asks again. Every waiter that sees RelCnt leap
 * (by 2^62 or more since its own reference value) restarts its acquisition (bounded by
 * {@code max-restarts}, then {@link LockUnavailableException}). A releasing writer that waits
 * {@code L} for the Successor message of a client that swapped the tail drops the lock (the
 * waiters behind will recover it); a SEND that fails because the peer is gone (RNR) is counted and
 * likewise left to recovery.
 *
 * <p><b>Lost messages.</b> RDMA's reliable transports (RC, and the DC connections ShiftLock uses)
 * never lose a message between live endpoints silently: the NIC retransmits until the receiver
 * acknowledges, and a send that cannot be delivered completes with an error at the sender (retry
 * or RNR retries exceeded), which the {@link Mailbox} reports as {@link PeerUnreachableException}.
 * A silent loss is outside that contract; the simulator's {@code drop} fault injects it anyway, to
 * show that no loss breaks mutual exclusion and that the lock still recovers. A lost Successor,
 * Handover or ModeChanged leaves RelCnt unchanged, so the waiters would recover the lock after
 * {@code 3·L} as after a crash. Before that, a waiting writer that has seen RelCnt unchanged for
 * {@code L/2} at one of its checks (no release at all on its lock: a live holder would have used
 * half its lease) asks its predecessor again: a duplicate Successor (used by a predecessor that
 * still holds the lock or waits for it at release; a stale duplicate fails the RelCnt range test
 * below) and a Reask on the channel's control key ({@link ShiftLockMessages#REASK}). The
 * predecessor answers Reasks at its writer acquisitions and releases and while it waits: it sends
 * the grant message again if it was the last it sent on that lock, to that attempt, within
 * {@code 2·L} of its RelCnt update. A grant that arrives after a Reask may be such a late copy, so
 * its lease is counted from no later than {@code L} after the waiter's last look before RelCnt took
 * the grant's value: its holder is done before any waiter may recover the lock ({@code 3·L} after
 * that value appeared), and a copy that comes later than that is not used. A lost message thus
 * costs {@code L/2} to about {@code L} instead of {@code 3·L}; if the predecessor does not answer in
 * time (paused, or not in the lock client), recovery follows as before. Neither the checks nor the
 * messages change while releases go on, so a fault-free run is unaffected.
 *
 * <p><b>Stale messages.</b> A writer's attempt number travels in its Successor and is echoed in
 * the Handover/ModeChanged, which it accepts only for its current attempt. A predecessor uses a
 * Successor only if the RelCnt it carries lies between RelCnt at its own enqueue and its
 * curRelCnt (true for the successor of this enqueue; false for one delayed from an enqueue before
 * a recovery). Buffered messages of a lock are discarded when the client enqueues on it again.
 *
 * <p><b>Late clients.</b> A grant first seen after its lease has run out (the client paused while
 * waiting) is not used: it is released with the guarded release below and the acquisition
 * restarts. A writer's releases compare RelCnt with its curRelCnt, so after a reset they fail and
 * change nothing. A writer that stalls for a lease between its RelCnt update and its Handover /
 * ModeChanged SEND drops the handover: a waiter may have recovered the lock since (found by a seed
 * sweep: the update landed, the sender paused 3 leases, the lock was recovered, then the stale
 * Handover granted the old era to a successor that had not polled RelCnt yet). A reader within its lease releases with the paper's MFAA: while a live waiter
 * sees RelCnt stuck no reader is granted (a reader is granted only with TailPtr null or after an
 * epoch flip, which moves RelCnt), so a reset never hits a reader inside its lease. Past its lease
 * a reader releases with an exact 128-bit CAS of the entry it READ, given up if RelCnt leapt since
 * its grant. <b>Hazards left</b>: (1) a reader paused between its lease check and its MFAA landing
 * (≈ a round trip) past a reset; (2) two resets in a row bring RelCnt back to a value modulo
 * 2^64, so a client asleep through both (≥ 6·L) may take the second era for its own; (3) a waiter
 * that takes a 16-byte READ torn across a reset (words are read apart; the simulator's READs are
 * not torn) — a reader grant also requires RdrCnt ≥ 1 and RelCnt moved, which a reset's word 0
 * does not show; (4) the messages of other mailbox users of the same endpoint are buffered, not
 * delivered to them.
 *
 * <p><b>Time breakdown.</b> Each client itemizes its time as the paper's Table 2 does
 * ({@link LatencyBreakdown}): writer acquire IA (the enqueue MCAS128), NP (the Successor SEND), WP
 * (waiting for Handover / ModeChanged), WR (READs until earlier readers are gone); reader acquire IA
 * (the MFAA128) and WW (READs until the epoch flips); release IA (the releasing atomic) and NS
 * (waiting for a late Successor message and the SEND to the successor). Restarted attempts add up.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class ShiftLockClient implements LockClient {
    /** Timing parameters (all on this client's clock). */
    record Timing(long leaseNs, double drift, long pollNs, long maxPollNs) {
        boolean leased() {
            return leaseNs != Long.MAX_VALUE;
        }

        /** {@code k/2 × lease × (1 + δ)}, saturating. */
        long halfLeases(int k) {
            if (!leased()) {
                return Long.MAX_VALUE;
            }
            double v = leaseNs * (k / 2.0) * (1 + drift);
            return v >= Long.MAX_VALUE / 2.0 ? Long.MAX_VALUE / 2 : (long) v;
        }

        long pollCapNs() {
            return leased() ? Math.min(maxPollNs, leaseNs / 2) : maxPollNs;
        }
    }

    private static final long NEVER = Long.MAX_VALUE;

    private final Endpoint endpoint;
    private final QueuePair qp;
    private final Table table;
    private final Clock clock;
    private final Mailbox mailbox;
    private final Inbox inbox;
    private final EndpointId me;
    private final long myTail;
    private final int channel;
    private final Timing timing;
    private final long waitLeaseNs;
    private final long stuckNs;
    private final long checkNs;
    private final long threshold;
    private final int eras;
    private final int maxRestarts;
    private final ShiftLockProbe probe;
    private int attempt;
    private final LatencyBreakdown.Recorder times;

    private long retries;
    private long aborts;
    private long handovers;
    private long recoveries;
    private long leapsSeen;
    private long drops;
    private long unreachable;
    private long fenced;
    private long lateReleases;
    private long reasks;
    private long resends;
    /** Per lock, the last Handover / ModeChanged this client sent, oldest first, kept to answer a Reask. */
    private final LinkedHashMap<Long, SentGrant> sentGrants = new LinkedHashMap<>();
    private final long resendWindowNs;
    private final Runnable answerReasks = this::answerReasks;
    private final Predicate<Message> isReask = m -> m.type() == ShiftLockMessages.REASK;

    ShiftLockClient(Endpoint endpoint, Table table, Timing timing, long threshold, int eras, int maxRestarts,
                    ShiftLockProbe probe) {
        this.endpoint = endpoint;
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.clock = endpoint.clock();
        this.times = new LatencyBreakdown.Recorder(clock.timesBreakdowns());
        this.mailbox = endpoint.mailbox();
        this.inbox = Inbox.of(endpoint);
        this.me = mailbox.id();
        this.myTail = ShiftLockLayout.tailOf(me);
        this.channel = Inbox.channelOf(table);
        this.timing = timing;
        this.waitLeaseNs = timing.halfLeases(2);
        this.stuckNs = timing.halfLeases(6);
        this.checkNs = timing.leased() ? Math.max(1, timing.leaseNs() / 2) : NEVER;
        this.resendWindowNs = timing.halfLeases(4);
        this.threshold = threshold;
        this.eras = eras;
        this.maxRestarts = maxRestarts;
        this.probe = probe;
    }

    // ---------------------------------------------------------------- acquire

    @Override
    public Grant acquire(long lockId, Mode mode) {
        long addr = LockTables.entryAddress(table, lockId, ShiftLockLayout.ENTRY_BYTES);
        for (int restart = 0; ; restart++) {
            ShiftLockGrant g = mode == Mode.SHARED ? readerAttempt(lockId, addr) : writerAttempt(lockId, addr);
            if (g != null) {
                if (timing.leased() && clock.nanoTime() - g.leaseStart() >= timing.leaseNs()) {
                    abandon(g); // seen only after its lease ran out: others may have recovered the lock
                } else {
                    probe.at(ShiftLockProbe.Point.GRANTED, lockId, endpoint);
                    times.completed(mode == Mode.SHARED ? Part.READER_ACQUIRE : Part.WRITER_ACQUIRE);
                    return g;
                }
            }
            aborts++;
            if (restart >= maxRestarts) {
                throw new LockUnavailableException("shiftlock lock " + lockId + ": " + mode + " acquisition restarted "
                        + (restart + 1) + " times (recoveries or grants seen past the lease); gave up after"
                        + " max-restarts=" + maxRestarts);
            }
        }
    }

    private ShiftLockGrant readerAttempt(long lockId, long addr) {
        long issued = clock.nanoTime();
        Int128 old = qp.maskedFaa128(addr, ShiftLockLayout.READER_ACQUIRE_ADD, ShiftLockLayout.BOUNDARIES);
        long waitFrom = lap(Part.READER_ACQUIRE, Item.IA, issued);
        long r0 = old.hi();
        if (ShiftLockLayout.tail(old.lo()) == 0) {
            return new ShiftLockGrant(lockId, Mode.SHARED, r0, 0, 0, r0, issued);
        }
        probe.at(ShiftLockProbe.Point.READER_WAITING, lockId, endpoint);
        int epoch = ShiftLockLayout.epoch(old.lo());
        var watch = new Watch(lockId, addr, r0, clock.nanoTime(), issued);
        long poll = timing.pollNs();
        long notGrantedIssue = issued;
        while (true) {
            clock.sleepNanos(poll);
            poll = Math.min(poll * 2, timing.pollCapNs());
            long issue = clock.nanoTime();
            // A 16-byte READ may tear (each word atomic, taken at different moments). The grant is
            // decided on word 0 alone (Epoch, RdrCnt), so a tear only delays it. The token comes from
            // word 1, which a tear may take from before the flip: then it is the last writer's own
            // token c, not c + 1 (seen in ShiftLockLocalTest on the local fabric, whose 128-bit atomics
            // store word 0 first). It is never below c, since RelCnt was c before the flip; shiftlock
            // does not claim strict fencing (see ShiftLockProtocol.strictFencing).
            Int128 cur = qp.read16(addr);
            long now = clock.nanoTime();
            if (watch.leapt(cur.hi())) {
                lap(Part.READER_ACQUIRE, Item.WW, waitFrom);
                return null; // the reset wiped our RdrCnt increment too
            }
            if (ShiftLockLayout.epoch(cur.lo()) != epoch && ShiftLockLayout.rdrCnt(cur.lo()) >= 1 && cur.hi() != r0) {
                lap(Part.READER_ACQUIRE, Item.WW, waitFrom);
                return new ShiftLockGrant(lockId, Mode.SHARED, cur.hi(), 0, 0, cur.hi(), notGrantedIssue);
            }
            notGrantedIssue = issue;
            watch.observe(cur.hi(), now, issue);
            if (watch.stuck(now) && recover(watch)) {
                lap(Part.READER_ACQUIRE, Item.WW, waitFrom);
                return null;
            }
            serveReasks();
        }
    }

    private ShiftLockGrant writerAttempt(long lockId, long addr) {
        int att = ++attempt;
        inbox.drain();
        answerReasks();
        inbox.discard(channel, lockId, m -> true); // all of it predates this enqueue
        long issued = clock.nanoTime();
        Int128 old = qp.maskedCas128(addr, Int128.ZERO, Int128.ZERO, Int128.of(myTail, 0),
                ShiftLockLayout.TAIL_SWAP_MASK);
        long enqueued = lap(Part.WRITER_ACQUIRE, Item.IA, issued);
        long r0 = old.hi();
        long w0 = old.lo();
        long predTail = ShiftLockLayout.tail(w0);
        long rdrCnt = ShiftLockLayout.rdrCnt(w0);
        int epoch = ShiftLockLayout.epoch(w0);
        if (predTail == 0 && rdrCnt == 0) {
            return new ShiftLockGrant(lockId, Mode.EXCLUSIVE, r0, 0, epoch, r0, issued);
        }
        var watch = new Watch(lockId, addr, r0, clock.nanoTime(), issued);
        if (predTail == 0) {
            long target = r0 + rdrCnt;
            long start = waitForRelCnt(watch, target, issued);
            lap(Part.WRITER_ACQUIRE, Item.WR, enqueued);
            return start == NEVER ? null : new ShiftLockGrant(lockId, Mode.EXCLUSIVE, target, 0, epoch, r0, start);
        }
        probe.at(ShiftLockProbe.Point.ENQUEUED_BEHIND, lockId, endpoint);
        if (predTail != myTail) {
            try {
                mailbox.send(ShiftLockLayout.endpointOf(predTail), channel, ShiftLockMessages.SUCCESSOR, lockId, r0, att);
            } catch (PeerUnreachableException gone) {
                unreachable++; // the predecessor is dead: nobody will hand over; recovery will follow
            }
        }
        long waitFrom = lap(Part.WRITER_ACQUIRE, Item.NP, enqueued);
        probe.at(ShiftLockProbe.Point.WAITING_FOR_HANDOVER, lockId, endpoint);
        Predicate<Message> forMe = m -> (m.type() == ShiftLockMessages.HANDOVER || m.type() == ShiftLockMessages.MODE_CHANGED)
                && ShiftLockMessages.attempt(m.b()) == att;
        long emptyAt = clock.nanoTime();
        boolean reasked = false;
        while (true) {
            long deadline = timing.leased() ? Math.min(satAdd(clock.nanoTime(), checkNs), watch.stuckDeadline()) : NEVER;
            Message m = inbox.await(channel, lockId, forMe, deadline, answerReasks);
            if (m != null) {
                long notified = lap(Part.WRITER_ACQUIRE, Item.WP, waitFrom);
                int e = ShiftLockMessages.epoch(m.b());
                // After a Reask the grant may be a resent one, long after the RelCnt update it
                // announces: count the lease from no later than a lease after that update.
                long latestStart = reasked ? satAdd(watch.writtenAfter(m.a()), timing.leaseNs()) : NEVER;
                if (m.type() == ShiftLockMessages.HANDOVER) {
                    handovers++;
                    return new ShiftLockGrant(lockId, Mode.EXCLUSIVE, m.a(), ShiftLockMessages.consWrt(m.b()), e, r0,
                            Math.min(emptyAt, latestStart));
                }
                long start = waitForRelCnt(watch, m.a(), emptyAt);
                lap(Part.WRITER_ACQUIRE, Item.WR, notified);
                return start == NEVER ? null
                        : new ShiftLockGrant(lockId, Mode.EXCLUSIVE, m.a(), 0, e, r0, Math.min(start, latestStart));
            }
            long issue = clock.nanoTime();
            long rel = qp.read8(addr + ShiftLockLayout.RELCNT_OFFSET);
            long now = clock.nanoTime();
            if (watch.leapt(rel)) {
                lap(Part.WRITER_ACQUIRE, Item.WP, waitFrom);
                return null;
            }
            boolean idle = watch.idleFor(rel, now) >= checkNs;
            watch.observe(rel, now, issue);
            if (watch.stuck(now) && recover(watch)) {
                lap(Part.WRITER_ACQUIRE, Item.WP, waitFrom);
                return null;
            }
            if (idle && predTail != myTail) {
                reask(ShiftLockLayout.endpointOf(predTail), lockId, r0, att);
                reasked = true;
            }
            emptyAt = issue;
        }
    }

    /**
     * READs RelCnt (spaced by a doubling backoff) until it equals {@code target}. Returns the
     * grant's lease start (the issue time of the last look that did not show it; {@code since} if
     * the first does), or {@link #NEVER} if a recovery happened and the acquisition must restart.
     */
    private long waitForRelCnt(Watch watch, long target, long since) {
        long relAddr = watch.addr + ShiftLockLayout.RELCNT_OFFSET;
        long notGrantedIssue = since;
        long poll = timing.pollNs();
        while (true) {
            long issue = clock.nanoTime();
            long rel = qp.read8(relAddr);
            long now = clock.nanoTime();
            if (rel == target) {
                return notGrantedIssue;
            }
            if (watch.leapt(rel)) {
                return NEVER;
            }
            notGrantedIssue = issue;
            watch.observe(rel, now, issue);
            if (watch.stuck(now) && recover(watch)) {
                return NEVER;
            }
            serveReasks();
            clock.sleepNanos(poll);
            poll = Math.min(poll * 2, timing.pollCapNs());
        }
    }

    /**
     * Asks the memory node to reset the lock whose RelCnt {@code watch} saw stuck. Returns true if
     * the lock was reset (by this request or another: the caller restarts), false if RelCnt moved
     * meanwhile (the lock is alive: keep waiting).
     */
    private boolean recover(Watch watch) {
        long relAddr = watch.addr + ShiftLockLayout.RELCNT_OFFSET;
        long eraAddr = table.at(ShiftLockLayout.eraOffset(table.spec().locks(), ShiftLockLayout.eraOf(watch.lockId, eras)));
        while (true) {
            long stuck = watch.last;
            long era = qp.read8(eraAddr);
            byte[] reply = qp.rpc(table.service(), ShiftLockRecovery.request(watch.lockId, era, stuck));
            if (reply.length == 1 && reply[0] == ShiftLockRecovery.RECOVERED) {
                recoveries++;
                return true;
            }
            retries++;
            if (reply.length == 1 && reply[0] == ShiftLockRecovery.PROGRESSED) {
                watch.restartClock(clock.nanoTime());
                return false;
            }
            // Stale era: someone recovered a lock of this era. Ours, if RelCnt leapt.
            for (int look = 0; look < 2; look++) {
                long issue = clock.nanoTime();
                long rel = qp.read8(relAddr);
                if (watch.leapt(rel)) {
                    return true;
                }
                if (rel != stuck) {
                    watch.observe(rel, clock.nanoTime(), issue);
                    return false;
                }
                if (look == 0) {
                    clock.sleepNanos(waitLeaseNs);
                }
            }
        }
    }

    /** A grant that came too late to use: give it back safely, then the acquisition restarts. */
    private void abandon(ShiftLockGrant g) {
        lateReleases++;
        if (g.mode() == Mode.SHARED) {
            guardedReaderRelease(g);
        } else {
            writerRelease(g);
        }
    }

    // ---------------------------------------------------------------- release

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof ShiftLockGrant g)) {
            throw new IllegalArgumentException("not a grant of this shiftlock client: " + grant);
        }
        probe.at(ShiftLockProbe.Point.RELEASING, g.lockId(), endpoint);
        if (g.mode() == Mode.SHARED) {
            long issued = clock.nanoTime();
            if (!timing.leased() || issued - g.leaseStart() < timing.leaseNs()) {
                // posted: the result is not needed
                qp.post(new Verb.MaskedFaa128(address(g), ShiftLockLayout.READER_RELEASE_ADD,
                        ShiftLockLayout.BOUNDARIES));
            } else {
                lateReleases++;
                guardedReaderRelease(g);
            }
            lap(Part.RELEASE, Item.IA, issued);
        } else {
            writerRelease(g);
        }
        times.completed(Part.RELEASE);
    }

    /**
     * A reader's release past its lease: RdrCnt − 1 and RelCnt + 1 by an exact CAS of the entry it
     * READ, given up if RelCnt leapt since the grant (a recovery wiped this reader's count).
     */
    private void guardedReaderRelease(ShiftLockGrant g) {
        long addr = address(g);
        // A torn read is harmless here: the exact-compare CAS below fails unless both words held
        // these values at once, and then returns a consistent entry to retry from.
        Int128 cur = qp.read16(addr);
        while (true) {
            if (ShiftLockLayout.leapt(g.enqueueRelCnt(), cur.hi()) || ShiftLockLayout.rdrCnt(cur.lo()) == 0) {
                fenced++;
                return;
            }
            Int128 next = Int128.of(cur.lo() - (1L << ShiftLockLayout.RDRCNT_SHIFT), cur.hi() + 1);
            Int128 old = qp.maskedCas128(addr, cur, Int128.ONES, next, Int128.ONES);
            if (old.equals(cur)) {
                return;
            }
            retries++;
            cur = old;
        }
    }

    private void writerRelease(ShiftLockGrant g) {
        long addr = address(g);
        long c = g.fencingToken();
        inbox.drain();
        answerReasks();
        Predicate<Message> mySuccessor = m -> m.type() == ShiftLockMessages.SUCCESSOR
                && Long.compareUnsigned(m.a() - g.enqueueRelCnt(), c - g.enqueueRelCnt()) <= 0;
        Message succ = inbox.take(channel, g.lockId(), mySuccessor);
        if (succ == null) {
            Int128 compare = Int128.of(myTail, c);
            Int128 compareMask = Int128.of(ShiftLockLayout.TAIL_MASK, -1L);
            Int128 swap = Int128.of(ShiftLockLayout.word0(1 - g.epoch(), 0, 0), c + 1);
            Int128 swapMask = Int128.of(ShiftLockLayout.TAIL_MASK | ShiftLockLayout.EPOCH_MASK, -1L);
            long issued = clock.nanoTime();
            Int128 old = qp.maskedCas128(addr, compare, compareMask, swap, swapMask);
            long waitFrom = lap(Part.RELEASE, Item.IA, issued);
            if (old.hi() != c) {
                fenced++; // the lock was recovered under us: nothing of ours is left in the entry
                return;
            }
            if (ShiftLockLayout.tail(old.lo()) == myTail) {
                return;
            }
            long deadline = timing.leased() ? satAdd(clock.nanoTime(), waitLeaseNs) : NEVER;
            succ = inbox.await(channel, g.lockId(), mySuccessor, deadline, answerReasks);
            lap(Part.RELEASE, Item.NS, waitFrom);
            if (succ == null) {
                drops++; // the client that swapped the tail died before its Successor: recovery follows
                return;
            }
        }
        handOver(g, addr, succ);
    }

    /**
     * Hands the lock to the successor that sent {@code succ}: RelCnt first, by a CAS from our token,
     * and the message only after it landed. Sending first would save the successor a round trip
     * but let a holder paused past its lease hand a recovered lock on: the CAS is what tells it
     * the lock was recovered, and the sim's pause sweep (ShiftLockSeedSweepTest) catches a
     * successor who was never paused overlapping the new era's holders if the order is swapped.
     */
    private void handOver(ShiftLockGrant g, long addr, Message succ) {
        long c = g.fencingToken();
        int att = (int) succ.b();
        long issued = clock.nanoTime();
        if (g.consWrt() + 1 < threshold) {
            Int128 old = qp.maskedCas128(addr, Int128.of(0, c), Int128.of(0, -1L), Int128.of(0, c + 1), Int128.of(0, -1L));
            long updated = lap(Part.RELEASE, Item.IA, issued);
            if (old.hi() != c) {
                fenced++;
                return;
            }
            if (handoverTooLate(issued)) {
                return;
            }
            sendGrant(succ.from(), ShiftLockMessages.HANDOVER, g.lockId(), c + 1,
                    ShiftLockMessages.grantWord(att, g.consWrt() + 1, g.epoch()), issued);
            lap(Part.RELEASE, Item.NS, updated);
        } else {
            int flipped = 1 - g.epoch();
            Int128 old = qp.maskedCas128(addr, Int128.of(g.epoch(), c), Int128.of(ShiftLockLayout.EPOCH_MASK, -1L),
                    Int128.of(flipped, c + 1), Int128.of(ShiftLockLayout.EPOCH_MASK, -1L));
            long updated = lap(Part.RELEASE, Item.IA, issued);
            if (old.hi() != c || ShiftLockLayout.epoch(old.lo()) != g.epoch()) {
                fenced++;
                return;
            }
            long expected = c + 1 + ShiftLockLayout.rdrCnt(old.lo());
            if (handoverTooLate(issued)) {
                return;
            }
            sendGrant(succ.from(), ShiftLockMessages.MODE_CHANGED, g.lockId(), expected,
                    ShiftLockMessages.grantWord(att, 0, flipped), issued);
            lap(Part.RELEASE, Item.NS, updated);
        }
    }

    /**
     * Whether a handover whose RelCnt update was issued at {@code issued} comes too late to send:
     * RelCnt has shown the new value since then, so a waiter may recover the lock
     * {@code 3·L} after it; the successor must have received the grant within {@code L} of the
     * update so that its own lease ({@code L}) ends before that. A client that stalled here for a
     * lease drops the handover instead (the waiters recover the lock).
     */
    private boolean handoverTooLate(long issued) {
        if (timing.leased() && clock.nanoTime() - issued >= timing.leaseNs()) {
            drops++;
            return true;
        }
        return false;
    }

    /**
     * Sends a grant (Handover or ModeChanged) whose RelCnt update was issued at {@code updateIssued},
     * and keeps it for a Reask: a grant message lost on the way (a fault beyond RDMA's reliable
     * connections, see the class comment) is sent again on request instead of waiting for recovery.
     */
    private void sendGrant(EndpointId to, int type, long lockId, long a, long b, long updateIssued) {
        if (send(to, type, lockId, a, b) && timing.leased()) {
            long now = clock.nanoTime();
            for (Iterator<SentGrant> it = sentGrants.values().iterator(); it.hasNext(); ) {
                if (now - it.next().updateIssued() < resendWindowNs) {
                    break;
                }
                it.remove();
            }
            sentGrants.remove(lockId);
            sentGrants.put(lockId, new SentGrant(to, type, a, b, updateIssued));
        }
    }

    /** Whether the message went out (false: the receiver is gone, RNR). */
    private boolean send(EndpointId to, int type, long lockId, long a, long b) {
        try {
            mailbox.send(to, channel, type, lockId, a, b);
            return true;
        } catch (PeerUnreachableException gone) {
            unreachable++; // the successor died after enqueueing: the waiters behind it will recover the lock
            return false;
        }
    }

    /**
     * A waiter that has seen no release for half a lease asks its predecessor again: a duplicate
     * of its Successor (in case the first was lost; the predecessor uses one Successor per grant
     * and drops stale ones) and a Reask (in case the predecessor's grant message was lost).
     */
    private void reask(EndpointId predecessor, long lockId, long enqueueRelCnt, int att) {
        reasks++;
        try {
            mailbox.send(predecessor, channel, ShiftLockMessages.SUCCESSOR, lockId, enqueueRelCnt, att);
            mailbox.send(predecessor, channel, ShiftLockMessages.REASK, ShiftLockMessages.CONTROL, lockId, att);
        } catch (PeerUnreachableException gone) {
            unreachable++; // the predecessor is dead: recovery will follow
        }
    }

    /**
     * Answers the Reasks buffered so far: sends again the grant message asked for, if it is the
     * last one this client sent on that lock, to that waiter's attempt, within
     * {@link #resendWindowNs} of its RelCnt update. The receiver limits the lease of a grant it
     * may have been sent again (see {@link #writerAttempt}), so a late one is never used unsafely.
     */
    private void answerReasks() {
        for (Message m = inbox.take(channel, ShiftLockMessages.CONTROL, isReask); m != null;
             m = inbox.take(channel, ShiftLockMessages.CONTROL, isReask)) {
            SentGrant sent = sentGrants.get(m.a());
            if (sent != null && sent.to().equals(m.from()) && ShiftLockMessages.attempt(sent.b()) == (int) m.b()
                    && clock.nanoTime() - sent.updateIssued() < resendWindowNs) {
                resends++;
                send(sent.to(), sent.type(), m.a(), sent.a(), sent.b());
            }
        }
    }

    /** Takes in what has arrived and answers Reasks among it (from a wait that polls the memory node). */
    private void serveReasks() {
        if (timing.leased()) {
            inbox.drain();
            answerReasks();
        }
    }

    /** A grant message as sent: to whom, its type and words, and when its RelCnt update was issued. */
    private record SentGrant(EndpointId to, int type, long a, long b, long updateIssued) {
    }

    // ---------------------------------------------------------------- bookkeeping

    @Override
    public long locks() {
        return table.spec().locks();
    }

    /**
     * Retries: recovery requests rejected and guarded-CAS retries; aborts: restarts; resets:
     * recoveries made; and the time breakdown.
     */
    @Override
    public LockStats stats() {
        return times.snapshot().addTo(LockStats.builder().counter(LockStats.RETRIES, retries)
                .counter(LockStats.ABORTS, aborts).counter(LockStats.RESETS, recoveries)
                .counter(LockStats.HANDOVERS, handovers)).build();
    }

    /** Adds the time since {@code since} to {@code item} of {@code part}; returns now (see {@link LatencyBreakdown.Recorder#lap}). */
    private long lap(Part part, Item item, long since) {
        if (!times.timed()) {
            return since;
        }
        long now = clock.nanoTime();
        times.add(part, item, now - since);
        return now;
    }

    /** What this client saw of failures, beyond {@link #stats()}. */
    FailureCounts failureCounts() {
        return new FailureCounts(recoveries, leapsSeen, drops, unreachable, fenced, lateReleases, reasks, resends);
    }

    /**
     * @param recoveries   recovery rpcs of this client that reset a lock
     * @param leapsSeen    acquisitions restarted because RelCnt leapt (a recovery, by anyone)
     * @param drops        releases that dropped the lock: the tail's new owner never sent Successor
     * @param unreachable  SENDs that failed because the peer was gone (RNR)
     * @param fenced       releases that did not land because the lock had been recovered
     * @param lateReleases grants released or abandoned past their lease
     * @param reasks       times a waiter that saw no release for half a lease asked its predecessor again
     * @param resends      grant messages sent again in answer to a Reask
     */
    record FailureCounts(long recoveries, long leapsSeen, long drops, long unreachable, long fenced, long lateReleases,
                         long reasks, long resends) {
    }

    private long address(ShiftLockGrant g) {
        return LockTables.entryAddress(table, g.lockId(), ShiftLockLayout.ENTRY_BYTES);
    }

    private static long satAdd(long a, long b) {
        long s = a + b;
        return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s;
    }

    /** How long one acquisition has seen RelCnt unchanged, and whether it saw it leap. */
    private final class Watch {
        final long lockId;
        final long addr;
        final long base;
        long last;
        long since;
        /** Issue time of the latest look at RelCnt. */
        long lastIssue;
        /** Issue time of the latest look that showed a value other than {@code last}. */
        long changedAfter;

        Watch(long lockId, long addr, long base, long now, long issued) {
            this.lockId = lockId;
            this.addr = addr;
            this.base = base;
            this.last = base;
            this.since = now;
            this.lastIssue = issued;
            this.changedAfter = issued;
        }

        /** How long RelCnt has shown {@code relCnt} if it still does, else 0. */
        long idleFor(long relCnt, long now) {
            return relCnt == last ? now - since : 0;
        }

        /**
         * A time on this client's clock before which RelCnt did not yet hold {@code relCnt}: the
         * issue of the latest look that showed another value.
         */
        long writtenAfter(long relCnt) {
            return relCnt == last ? changedAfter : lastIssue;
        }

        boolean leapt(long relCnt) {
            if (ShiftLockLayout.leapt(base, relCnt)) {
                leapsSeen++;
                return true;
            }
            return false;
        }

        void observe(long relCnt, long now, long issued) {
            if (relCnt != last) {
                changedAfter = lastIssue;
                last = relCnt;
                since = now;
            }
            lastIssue = issued;
        }

        void restartClock(long now) {
            since = now;
        }

        boolean stuck(long now) {
            return timing.leased() && now - since >= stuckNs;
        }

        long stuckDeadline() {
            return satAdd(since, stuckNs);
        }
    }

    /**
     * One grant. The fencing token is RelCnt while it is held (a writer's curRelCnt; a reader's
     * RelCnt at its grant). {@code consWrt} and {@code epoch} are a writer's (§3.7);
     * {@code enqueueRelCnt} is RelCnt when its acquisition began (tells a Successor for this
     * enqueue from a stale one); {@code leaseStart} is on this client's clock, no later than the
     * grant.
     */
    record ShiftLockGrant(long lockId, Mode mode, long fencingToken, long consWrt, int epoch, long enqueueRelCnt,
                          long leaseStart) implements Grant {
        /** The lease start the fault-tolerance rule counts from (see the class comment). */
        @Override
        public long leaseStartNs() {
            return leaseStart;
        }
    }
}
