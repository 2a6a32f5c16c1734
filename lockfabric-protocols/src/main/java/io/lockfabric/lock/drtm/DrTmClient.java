package io.lockfabric.lock.drtm;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LatencyBreakdown;
import io.lockfabric.lock.LatencyBreakdown.Item;
import io.lockfabric.lock.LatencyBreakdown.Part;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.TruncatedExponentialBackoff;

/**
 * DrTM's lease-based reader-writer lock (Wei et al., SOSP'15 §4.2; ShiftLock's DrTM baseline,
 * §4.1; word in {@link DrTmLayout}).
 *
 * <p>One 64-bit word per lock holds a write-lock bit or the end time of a shared read lease. A
 * <b>writer</b> CASes the word from 0 to write-locked; if it finds a read lease it waits until the
 * lease has expired on its own clock, {@code now > end + DELTA}, and CASes from that lease word;
 * if it finds a write lock it backs off (SMART's truncated exponential backoff) and tries from 0
 * again. It releases with a WRITE of 0. A <b>reader</b> CASes the word from 0 to a lease ending
 * at {@code now + LEASE}. If it finds a lease that is still valid for a new reader,
 * {@code now < end − DELTA − TX_TIME}, it shares it: granted with no write. A lease no longer valid
 * is replaced by a fresh one with a CAS from that word (a later end, so readers holding the old one
 * stay covered); a write lock means back off and retry. Readers never release remotely: the lease
 * runs out. Uncontended cycle: writer CAS + WRITE; reader one CAS (the first CAS expects 0 and
 * fails on an old lease, so a reader coming back after its lease expired pays a second CAS).
 *
 * <p><b>Time and its assumption.</b> Lease ends are nanoseconds of <em>cluster time</em>: the
 * endpoint's {@link Clock} minus the table's epoch base, agreed on by the first client (see
 * {@link DrTmLayout}). DrTM needs clocks synchronized within {@code DELTA} (it runs PTP; ShiftLock
 * assumes 50 µs): a reader shares a lease only while {@code now < end − DELTA − TX_TIME}, a writer
 * takes it once {@code now > end + DELTA}, and the reader, holding at most {@code TX_TIME}, is gone
 * before any writer whose clock is less than {@code 2 DELTA + TX_TIME} ahead of its own. The
 * fabric's {@code Clock} promises only a rate of 1 ± δ and no resync: on the local fabric all
 * clients read one clock (skew 0); on the simulator clocks start together at virtual time 0 and
 * drift apart by up to {@code 2δt}, past 50 µs after 250 ms at δ = 1e-4 (a contract stress of drtm
 * runs about 1 s of virtual time). So a writer waits longer: until
 * {@code now > end + S(now)}, {@code S = DELTA + 2δ/(1−δ) × (time since the epoch)}, with
 * δ = {@code drift-ppm}. The protocol assumes the clocks agree within {@code DELTA} when the table
 * is created (true on both fabrics for a table created before a run, or within 250 ms of the
 * simulator's start) and drift at most δ since; then the reader's margin
 * {@code DELTA + S + TX_TIME} covers the skew at any time. Only writers pay for the drift (readers
 * keep DrTM's rules and lease length, so there is no feedback from longer leases to longer runs):
 * 2 ms more per wait for a lease after 10 s at the default 100 ppm (the simulator's default drift
 * and ShiftLock's δ). {@code drift-ppm = 0} is DrTM's fixed {@code DELTA}: a PTP-synchronized
 * cluster, the simulator with {@code clockDrift} 0, or the local fabric. Two further assumptions
 * are DrTM's: a reader's critical section ends within {@code TX_TIME} of its grant on its own
 * clock (a reader that overran learns it at release, where it validates its lease as DrTM does at
 * commit, and is counted in {@link #stats()} as {@link DrTmProtocol#LEASE_OVERRUNS}; it cannot be
 * undone: it may have overlapped a writer, the hazard {@link DrTmProtocol#failureModel} declares),
 * and a write holder never crashes.
 *
 * <p><b>Failures</b>: a crashed reader costs nothing (its lease expires); a crashed writer keeps
 * the word locked forever (no writer lease here, as in DrTM). <b>Fencing</b>: not strict. The word
 * keeps no grant count (a writer releases to 0, readers never write on release); a writer's token
 * is its cluster time at the grant, a reader's its lease's end, both from clocks synchronized only
 * within DELTA. {@link LockStats#retries()} counts failed CASes.
 *
 * <p><b>Time breakdown</b> ({@link LatencyBreakdown}), as ShiftLock's Table 4 times the spinning
 * locks: acquire IA (the first CAS) and RT (failed CASes, backoff and waits for a lease to expire);
 * release IA (a writer's WRITE; a reader's release issues no verb and counts as an operation with
 * no time).
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class DrTmClient implements LockClient {
    private final QueuePair qp;
    private final Table table;
    private final Clock clock;
    private final long epochBase;
    private final long lockWord;
    private final long leaseNs;
    private final long deltaNs;
    /** Growth of the skew bound per ns since the epoch: 2δ / (1 − δ). */
    private final double skewGrowth;
    private final long txTimeNs;
    private final TruncatedExponentialBackoff backoff;
    private final LatencyBreakdown.Recorder times;
    private long retries;
    private long leaseOverruns;
    private long acquireSince;
    private boolean initialAtomicPending;

    DrTmClient(Endpoint endpoint, Table table, long leaseNs, long deltaNs, double driftRate, long txTimeNs,
               long backoffInitNs) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.clock = endpoint.clock();
        this.times = new LatencyBreakdown.Recorder(clock.timesBreakdowns());
        this.lockWord = DrTmLayout.locked(DrTmLayout.ownerOf(endpoint.ordinal()));
        this.leaseNs = leaseNs;
        this.deltaNs = deltaNs;
        this.skewGrowth = 2 * driftRate / (1 - driftRate);
        this.txTimeNs = txTimeNs;
        this.backoff = new TruncatedExponentialBackoff(clock, endpoint.random(), backoffInitNs);
        this.epochBase = agreeOnEpoch();
    }

    /** Reads the table's epoch base, setting it from this client's clock if nobody has. */
    private long agreeOnEpoch() {
        long addr = DrTmProtocol.epochAddress(table);
        long base = qp.read8(addr);
        if (base == 0) {
            long mine = DrTmLayout.epochWord(clock.nanoTime() - DrTmLayout.EPOCH_SLACK_NS);
            long old = qp.cas(addr, 0, mine);
            base = old == 0 ? mine : old;
        }
        return base;
    }

    /** Nanoseconds of cluster time on this client's clock. */
    long clusterNanos() {
        long t = clock.nanoTime() - epochBase;
        if (t < 1 || t > DrTmLayout.LEASE_MAX) {
            throw new IllegalStateException("drtm cluster time " + t + " ns is outside the lease field; "
                    + "this clock disagrees with the table's epoch by more than " + DrTmLayout.EPOCH_SLACK_NS + " ns");
        }
        return t;
    }

    /**
     * How far past a lease's end a writer waits at {@code now}: DELTA plus the drift since the
     * epoch, which bounds how far behind ours another client's cluster time may be, less DELTA.
     */
    long skewBound(long now) {
        long sinceEpoch = Math.max(0, now - DrTmLayout.EPOCH_SLACK_NS);
        return deltaNs + (long) Math.ceil(skewGrowth * sinceEpoch);
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        long addr = DrTmProtocol.lockAddress(table, lockId);
        Part part = mode == Mode.SHARED ? Part.READER_ACQUIRE : Part.WRITER_ACQUIRE;
        acquireSince = times.start(clock);
        initialAtomicPending = true;
        Grant g = mode == Mode.SHARED ? acquireShared(lockId, addr) : acquireExclusive(lockId, addr);
        times.lap(clock, part, Item.RT, acquireSince);
        times.completed(part);
        return g;
    }

    /** Times the first CAS of an acquisition as IA; the rest until the grant is RT. */
    private void casDone(Part part) {
        if (initialAtomicPending) {
            acquireSince = times.lap(clock, part, Item.IA, acquireSince);
            initialAtomicPending = false;
        }
    }

    private Grant acquireExclusive(long lockId, long addr) {
        long expect = 0;
        for (int attempt = 0; ; attempt++) {
            long old = qp.cas(addr, expect, lockWord);
            casDone(Part.WRITER_ACQUIRE);
            if (old == expect) {
                backoff.completed();
                return new DrTmGrant(lockId, Mode.EXCLUSIVE, clusterNanos(), 0);
            }
            retries++;
            if (DrTmLayout.writeLocked(old)) {
                backoff.backoff(attempt);
                expect = 0;
                continue;
            }
            // A read lease: wait until it has expired on every clock within the skew bound of ours.
            long end = DrTmLayout.leaseEnd(old);
            for (long now = clusterNanos(); now <= end + skewBound(now); now = clusterNanos()) {
                clock.sleepNanos(end + skewBound(now) - now + 1);
            }
            expect = old;
        }
    }

    private Grant acquireShared(long lockId, long addr) {
        long expect = 0;
        for (int attempt = 0; ; attempt++) {
            long end = clusterNanos() + leaseNs;
            long old = qp.cas(addr, expect, DrTmLayout.lease(end));
            casDone(Part.READER_ACQUIRE);
            if (old == expect) {
                backoff.completed();
                return new DrTmGrant(lockId, Mode.SHARED, end, end - deltaNs);
            }
            retries++;
            if (DrTmLayout.writeLocked(old)) {
                backoff.backoff(attempt);
                expect = 0;
                continue;
            }
            long seenEnd = DrTmLayout.leaseEnd(old);
            if (clusterNanos() < seenEnd - deltaNs - txTimeNs) {
                backoff.completed();
                return new DrTmGrant(lockId, Mode.SHARED, seenEnd, seenEnd - deltaNs);
            }
            // Too little of that lease is left for us: extend it (our end is later than its).
            expect = old;
        }
    }

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof DrTmGrant g)) {
            throw new IllegalArgumentException("not a grant of this drtm client: " + grant);
        }
        if (g.mode() == Mode.EXCLUSIVE) {
            long issued = times.start(clock);
            qp.write8(DrTmProtocol.lockAddress(table, g.lockId()), 0); // signaled, as cas's release: see CasClient
            times.lap(clock, Part.RELEASE, Item.IA, issued);
            times.completed(Part.RELEASE);
            return;
        }
        times.completed(Part.RELEASE);
        // Readers write nothing. DrTM validates a read lease at commit (VALID(end): now < end − DELTA):
        // a reader that fails it held past its lease's safe end and may have overlapped a writer.
        if (clusterNanos() >= g.validUntil()) {
            leaseOverruns++;
        }
    }

    @Override
    public long locks() {
        return table.spec().locks();
    }

    @Override
    public LockStats stats() {
        return times.snapshot().addTo(LockStats.builder().counter(LockStats.RETRIES, retries).counter(LockStats.ABORTS, 0)
                .counter(LockStats.RESETS, 0).counter(DrTmProtocol.LEASE_OVERRUNS, leaseOverruns)).build();
    }

    /** {@code validUntil}: for a reader, the cluster time by which it must have released. */
    private record DrTmGrant(long lockId, Mode mode, long fencingToken, long validUntil) implements Grant {
    }
}
