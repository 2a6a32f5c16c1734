package io.lockfabric.lock.rmarw;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LatencyBreakdown;
import io.lockfabric.lock.LatencyBreakdown.Item;
import io.lockfabric.lock.LatencyBreakdown.Part;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.TableInbox;
import io.lockfabric.lock.TruncatedExponentialBackoff;

/**
 * RMA-RW reader-writer lock (Schmid, Besta, Hoefler, HPDC'16; ShiftLock's RMA-RW baseline, §4.1
 * and §4.4; layout in {@link RmaRwLayout}): an MCS queue for writers plus reader counters in one
 * 128-bit entry.
 *
 * <p><b>Writers</b> queue as in MCS: a fetch-and-store of the tail (128-bit masked CAS, compare
 * mask 0). A writer with a predecessor SENDs it {@code Successor} and waits for {@code Handover}
 * (the lock passes from writer to writer, the write flag stays set) or {@code ModeChanged} (its
 * predecessor gave the lock to the readers; it is now the head). The <em>head</em> writer first
 * waits until no reader is counted in (read preference), then adds {@code WRITE_FLAG} to arrive;
 * the old arrive says how many readers came before the flag, and it waits until depart reaches
 * that number. If readers have departed since the last reset it rebases the counters with a CAS
 * (depart to 0, arrive to the readers counted after the flag, which are waiting). On release a
 * writer with a successor hands over, unless it is the {@code write-threshold}-th consecutive
 * writer: then it clears the flag (the waiting readers enter) and SENDs {@code ModeChanged}. With
 * no successor known, one 128-bit masked CAS empties the queue and clears the flag if the tail is
 * still itself; if not, it waits for the {@code Successor} message and hands over.
 *
 * <p><b>Readers</b> add 1 to arrive and stay counted: the old value grants the lock if the flag is
 * clear; if it is set the reader polls the entry (with backoff) until a writer clears it, and the
 * next head writer waits for it, so a writer run of {@code write-threshold} always lets the
 * readers that queued during it in. A reader leaves by adding 1 to depart. Only a reader that
 * finds no flag and the arrive count at {@code reader-threshold} undoes its arrival (adds 1 to
 * depart), polls until the counters are reset and retries (counted in {@link LockStats#retries()}).
 * The threshold bounds the counters and a head writer's wait for a stream of readers: the counters
 * are rebased by the next head writer or, with no writer queued, reset to 0 by the reader that
 * balances them (counted in {@link LockStats#resets()}). Arrivals under the flag never undo, so a
 * head writer's count of the readers before its flag drains by their departures alone.
 *
 * <p>Writers wait for readers to drain before blocking new ones, so the lock prefers readers up to
 * the threshold (why RMA-RW loses under TPC-C, ShiftLock §4.4). Uncontended cycle: reader 2
 * MFAA128; writer MCAS128 + MFAA128 to acquire, MCAS128 to release.
 *
 * <p><b>Fencing</b>: strict (modulo 2^24 in the word). Writers' tokens go up by one per grant,
 * through handovers and through the entry's release count, which the writer leaving writer mode
 * sets to its token + 1 in the atomic that clears the flag; a reader's token is the release count
 * of the entry in which it saw the flag clear. No fault tolerance: a crashed client breaks the
 * queue or leaves the counters unbalanced forever.
 *
 * <p><b>Time breakdown</b> ({@link LatencyBreakdown}, ShiftLock's Table 2 items): reader acquire IA
 * (the first MFAA128), WW (polling while the write flag is set) and RT (steps out over the
 * threshold and their polls); writer acquire IA (the tail swap), NP (the Successor SEND), WP
 * (waiting for Handover / ModeChanged) and WR (the head's wait for readers, its flag and rebase);
 * release IA (a reader's depart, a writer's emptying CAS) and NS (a writer's wait for a late
 * Successor and its hand-over).
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint. One client per endpoint and table.
 */
final class RmaRwClient implements LockClient {
    private static final Int128 ONLY_TAIL = Int128.of(RmaRwLayout.TAIL_MASK, 0);
    private static final Int128 ONLY_COUNTERS = Int128.of(0, -1L);

    private final QueuePair qp;
    private final Table table;
    private final TableInbox inbox;
    private final long me;
    private final TruncatedExponentialBackoff backoff;
    private final long writeThreshold;
    private final long readerThreshold;
    private final Clock clock;
    private final LatencyBreakdown.Recorder times;
    private long retries;
    private long resets;

    RmaRwClient(Endpoint endpoint, Table table, long writeThreshold, long readerThreshold, long backoffInitNs) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.inbox = new TableInbox(endpoint, table);
        this.me = endpoint.id().pack();
        this.clock = endpoint.clock();
        this.times = new LatencyBreakdown.Recorder(clock.timesBreakdowns());
        this.backoff = new TruncatedExponentialBackoff(clock, endpoint.random(), backoffInitNs);
        this.writeThreshold = writeThreshold;
        this.readerThreshold = readerThreshold;
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        long addr = address(lockId);
        return mode == Mode.SHARED ? acquireShared(lockId, addr) : acquireExclusive(lockId, addr);
    }

    private Grant acquireShared(long lockId, long addr) {
        long since = times.start(clock);
        for (int attempt = 0; ; attempt++) {
            Int128 old = qp.maskedFaa128(addr, RmaRwLayout.ONE_ARRIVE, RmaRwLayout.BOUNDARY);
            since = times.lap(clock, Part.READER_ACQUIRE, attempt == 0 ? Item.IA : Item.RT, since);
            if (RmaRwLayout.writeFlag(old) || RmaRwLayout.arrive(old) < readerThreshold) {
                // Counted in: granted now, or once the writers hand the lock to the readers.
                long token = RmaRwLayout.releaseCount(old);
                if (RmaRwLayout.writeFlag(old)) {
                    // Poll the counter word for the flag, then read the queue word for the token:
                    // a 16-byte READ is atomic per word only, and a READ that takes the queue word
                    // before the flag clears and the counter word after would pair an old release
                    // count with a clear flag. Once the flag is clear the count cannot move until
                    // this reader departs (the next head writer waits for it).
                    Int128 e = old;
                    for (int poll = 0; RmaRwLayout.writeFlag(e); poll++) {
                        backoff.backoff(poll);
                        e = Int128.of(0, qp.read8(addr + RmaRwLayout.COUNTER_WORD_OFFSET));
                    }
                    token = RmaRwLayout.releaseCount(Int128.of(qp.read8(addr), 0));
                    times.lap(clock, Part.READER_ACQUIRE, Item.WW, since);
                }
                backoff.completed();
                times.completed(Part.READER_ACQUIRE);
                return new RmaRwGrant(lockId, Mode.SHARED, token, 0);
            }
            // Over the threshold: step out until the counters are reset.
            retries++;
            depart(addr);
            Int128 e;
            int poll = attempt;
            do {
                backoff.backoff(poll++);
                e = qp.read16(addr);
                maybeResetCounters(addr, e);
            } while (RmaRwLayout.arrive(e) >= readerThreshold);
            since = times.lap(clock, Part.READER_ACQUIRE, Item.RT, since);
        }
    }

    /** Adds 1 to depart; the client that balances a full counter with no writer queued resets it. */
    private void depart(long addr) {
        Int128 old = qp.maskedFaa128(addr, RmaRwLayout.ONE_DEPART, RmaRwLayout.BOUNDARY);
        Int128 now = Int128.of(old.lo(), old.hi() + RmaRwLayout.ONE_DEPART.hi());
        maybeResetCounters(addr, now);
    }

    /** Readers' reset: counters full and balanced, no flag, no writer queued. */
    private void maybeResetCounters(long addr, Int128 e) {
        if (RmaRwLayout.writeFlag(e) || RmaRwLayout.tail(e) != 0 || RmaRwLayout.arrive(e) < readerThreshold
                || RmaRwLayout.readers(e) != 0) {
            return;
        }
        Int128 old = qp.maskedCas128(addr, Int128.of(0, e.hi()), Int128.of(RmaRwLayout.TAIL_MASK, -1L),
                Int128.ZERO, ONLY_COUNTERS);
        if (RmaRwLayout.tail(old) == 0 && old.hi() == e.hi()) {
            resets++;
        }
    }

    private Grant acquireExclusive(long lockId, long addr) {
        long issued = times.start(clock);
        Int128 old = qp.maskedCas128(addr, Int128.ZERO, Int128.ZERO, Int128.of(me, 0), ONLY_TAIL);
        long since = times.lap(clock, Part.WRITER_ACQUIRE, Item.IA, issued);
        EndpointId pred = RmaRwLayout.tailEndpoint(old);
        if (pred == null) {
            return timedHead(lockId, addr, RmaRwLayout.releaseCount(old), old, since);
        }
        send(pred, RmaRwLayout.SUCCESSOR, lockId, 0, 0);
        since = times.lap(clock, Part.WRITER_ACQUIRE, Item.NP, since);
        Message m = inbox.await(lockId, RmaRwLayout.HANDOVER, RmaRwLayout.MODE_CHANGED);
        since = times.lap(clock, Part.WRITER_ACQUIRE, Item.WP, since);
        if (m.type() == RmaRwLayout.HANDOVER) {
            times.completed(Part.WRITER_ACQUIRE);
            return new RmaRwGrant(lockId, Mode.EXCLUSIVE, m.a(), m.b());
        }
        return timedHead(lockId, addr, m.a(), qp.read16(addr), since);
    }

    /** {@link #becomeHead}, its time counted as WR from {@code since}. */
    private Grant timedHead(long lockId, long addr, long token, Int128 seen, long since) {
        Grant g = becomeHead(lockId, addr, token, seen);
        times.lap(clock, Part.WRITER_ACQUIRE, Item.WR, since);
        times.completed(Part.WRITER_ACQUIRE);
        return g;
    }

    /**
     * The queue head takes writer mode: it waits for every reader counted in to leave (read
     * preference), sets the flag, waits for the readers counted before the flag to leave, and
     * rebases the counters (depart back to 0, readers counted after the flag kept: they wait).
     */
    private Grant becomeHead(long lockId, long addr, long token, Int128 seen) {
        Int128 e = seen;
        for (int poll = 0; RmaRwLayout.readers(e) != 0; poll++) {
            backoff.backoff(poll);
            e = qp.read16(addr);
        }
        Int128 old = qp.maskedFaa128(addr, RmaRwLayout.SET_WRITE_FLAG, RmaRwLayout.BOUNDARY);
        if (RmaRwLayout.writeFlag(old)) {
            throw new IllegalStateException("rmarw lock " + lockId + ": write flag already set for the queue head: " + old);
        }
        long before = RmaRwLayout.arrive(old);
        e = Int128.of(old.lo(), old.hi() | RmaRwLayout.WRITE_FLAG);
        for (int poll = 0; RmaRwLayout.depart(e) < before; poll++) {
            backoff.backoff(poll);
            e = qp.read16(addr);
        }
        while (RmaRwLayout.depart(e) != 0) {
            long rebased = RmaRwLayout.counterWord(true, RmaRwLayout.readers(e), 0);
            Int128 was = qp.maskedCas128(addr, Int128.of(0, e.hi()), ONLY_COUNTERS, Int128.of(0, rebased), ONLY_COUNTERS);
            if (was.hi() == e.hi()) {
                resets++;
                break;
            }
            retries++;
            e = was;
        }
        return new RmaRwGrant(lockId, Mode.EXCLUSIVE, token, 1);
    }

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof RmaRwGrant g)) {
            throw new IllegalArgumentException("not a grant of this rmarw client: " + grant);
        }
        long addr = address(g.lockId());
        long since = times.start(clock);
        if (g.mode() == Mode.SHARED) {
            depart(addr);
            times.lap(clock, Part.RELEASE, Item.IA, since);
            times.completed(Part.RELEASE);
            return;
        }
        long next = g.fencingToken() + 1;
        Message succ = inbox.take(RmaRwLayout.SUCCESSOR, g.lockId());
        if (succ == null) {
            // Empty the queue and leave writer mode in one atomic, if nobody queued behind us.
            Int128 old = qp.maskedCas128(addr, Int128.of(me, 0), ONLY_TAIL,
                    Int128.of(RmaRwLayout.queueWord(next, 0), 0), Int128.of(-1L, RmaRwLayout.WRITE_FLAG));
            since = times.lap(clock, Part.RELEASE, Item.IA, since);
            if (RmaRwLayout.tail(old) == me) {
                times.completed(Part.RELEASE);
                return;
            }
            retries++;
            succ = inbox.await(g.lockId(), RmaRwLayout.SUCCESSOR);
        }
        try {
            handOver(g, addr, succ, next);
        } finally {
            times.lap(clock, Part.RELEASE, Item.NS, since);
            times.completed(Part.RELEASE);
        }
    }

    /** Hands the lock to the writer that sent {@code succ}, or to the readers after a run of {@code write-threshold}. */
    private void handOver(RmaRwGrant g, long addr, Message succ, long next) {
        if (g.consecutive() < writeThreshold) {
            send(succ.from(), RmaRwLayout.HANDOVER, g.lockId(), next, g.consecutive() + 1);
            return;
        }
        // Enough writers in a row: readers get the lock; our successor becomes the queue head.
        qp.maskedCas128(addr, Int128.ZERO, Int128.ZERO, Int128.of(RmaRwLayout.queueWord(next, 0), 0),
                Int128.of(RmaRwLayout.COUNT_FIELD_MASK, RmaRwLayout.WRITE_FLAG));
        send(succ.from(), RmaRwLayout.MODE_CHANGED, g.lockId(), next, 0);
    }

    private void send(EndpointId to, int type, long lockId, long a, long b) {
        try {
            inbox.send(to, type, lockId, a, b);
        } catch (PeerUnreachableException e) {
            throw new LockUnavailableException("rmarw lock " + lockId + ": queue neighbour " + to
                    + " is gone; rmarw has no recovery, the lock is broken");
        }
    }

    @Override
    public long locks() {
        return table.spec().locks();
    }

    @Override
    public LockStats stats() {
        return times.snapshot().addTo(LockStats.builder().counter(LockStats.RETRIES, retries)
                .counter(LockStats.ABORTS, 0).counter(LockStats.RESETS, resets)).build();
    }

    private long address(long lockId) {
        return LockTables.entryAddress(table, lockId, RmaRwLayout.ENTRY_BYTES);
    }

    /** {@code consecutive}: this writer's number in the current run of writers (0 for readers). */
    private record RmaRwGrant(long lockId, Mode mode, long fencingToken, long consecutive) implements Grant {
    }
}
