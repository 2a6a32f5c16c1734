package io.lockfabric.lock.declock;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.Inbox;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * DecLock's cooperative queue-notify lock (Huang et al., DecLock §4; memory in {@link CqlLayout},
 * messages in {@link CqlMessages}).
 *
 * <p><b>State on the memory node, ownership by message.</b> A lock is an 8-byte header (RST, wcnt,
 * qsize, qhead, reset count) and a circular queue of waiter entries. <em>Acquire</em>: one FAA adds
 * the client to qsize (and a writer to wcnt); the old header decides: granted at once if the queue
 * was empty, or for a reader if no writer is queued — and then nothing else is written. Otherwise
 * the client WRITEs its entry {op, its mailbox address, version of its index} at index
 * {@code qhead + qsize} and waits for a GRANT message. <em>Release</em>: one {@link Batch} (one
 * doorbell) of the FAA that dequeues (qhead + 1, qsize − 1, a writer wcnt − 1) and a READ of the
 * queue behind it. With the old header, {@code h = qhead + 1} is the next participant. A releasing
 * reader with writers queued finds them: it counts valid exclusive entries in the queue and
 * re-READs until it sees wcnt of them (a writer may not have written its entry yet; readers granted
 * at once never do), and notifies the writer at {@code h} if there is one (it was the last reader).
 * A releasing writer re-READs the entry at {@code h} until valid and notifies that writer, or the
 * run of readers from {@code h} up to the next writer. FIFO across readers and writers; no remote
 * retries; acquire 1 (+1 WRITE when waiting), release 1 FAA + 1 READ in one round trip.
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
 * for DONE (or READ the header now and then) and retry; one that sees RST for {@code 2 × lease}
 * takes the reset over (CAS adds one to the reset count while RST stays set: a dead resetter's
 * late header CAS then fails). Releases that meet RST are ignored. Grants carry the fencing token,
 * which contains the reset count, so a grant from before a reset is dropped.
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
 * notification is dropped and the real waiter times out into another reset).
 *
 * <p><b>Measurements.</b> {@link #stats()} counts resets this client performed (completed),
 * aborted acquisitions and failed guarded CASes; {@link #resetLatenciesNs()} is each completed
 * reset's duration from RST set to the fresh header in place (the lock usable again), on this
 * client's clock; {@link #refetchReads()} the extra READs of entries not written yet.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
public final class CqlClient implements LockClient {
    /** A CQL grant: the reset count and queue index it was granted at, and when. */
    record CqlGrant(long lockId, Mode mode, long fencingToken, long rstcnt, long index, long grantedAtNs)
            implements Grant {
    }

    private record Signal(EndpointId from, long rstcnt) {
    }

    private static final long NOT_WAITING = -1;
    /** Fast (FAA) release only within lease / this of the grant. */
    private static final int LATE_RELEASE_FRACTION = 4;
    /** Silent members are re-signalled this many times per lease. */
    private static final int PROBES_PER_LEASE = 8;
    /** A waiter for a reset READs the header this many times per lease if no DONE comes. */
    private static final int CHECKS_PER_LEASE = 4;
    /** Leases of RST before a waiter takes a reset over. */
    private static final int TAKEOVER_LEASES = 2;

    private final QueuePair qp;
    private final Table table;
    private final Clock clock;
    private final Mailbox mailbox;
    private final Inbox inbox;
    private final EndpointId me;
    private final int channel;
    private final CqlLayout layout;
    private final long leaseNs;
    private final long timeoutNs;
    private final long signalPollNs;
    private final int maxRestarts;
    private final Batch batch = new Batch();

    private final Map<Long, CqlGrant> held = new HashMap<>();
    private final Map<Long, List<Signal>> deferred = new HashMap<>();
    private long waitingLock = NOT_WAITING;
    private long waitingRstcnt;
    private boolean aborted;

    private long retries;
    private long aborts;
    private long resets;
    private long takeovers;
    private long timeouts;
    private long presumedDead;
    private long refetchReads;
    private long ignoredReleases;
    private long[] resetLatencies = new long[8];
    private int resetLatencyCount;

    CqlClient(Endpoint endpoint, Table table, CqlProtocol.Settings settings) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.clock = endpoint.clock();
        this.mailbox = endpoint.mailbox();
        this.inbox = Inbox.of(mailbox);
        this.me = mailbox.id();
        this.channel = Inbox.channelOf(table);
        this.layout = settings.layout();
        this.leaseNs = settings.leaseNs();
        this.timeoutNs = settings.timeoutNs();
        this.signalPollNs = settings.signalPollNs();
        this.maxRestarts = settings.maxRestarts();
        register();
    }

    /** Takes a member slot (FAA on the count) and writes this client's address into it. */
    private void register() {
        long slot = qp.faa(table.at(CqlLayout.MEMBER_COUNT_OFFSET), 1);
        if (slot >= layout.maxClients()) {
            throw new IllegalStateException(table.spec() + " is full: it admits " + layout.maxClients()
                    + " clients (max-clients, at most 2 x capacity - 1); open it with a larger capacity");
        }
        qp.write8(table.at(layout.memberSlotOffset((int) slot)), me.pack());
    }

    // ---------------------------------------------------------------- acquire

    @Override
    public Grant acquire(long lockId, Mode mode) {
        long hdr = headerAddress(lockId);
        if (held.containsKey(lockId)) {
            throw new IllegalStateException("this client already holds cql lock " + lockId);
        }
        for (int restart = 0; ; restart++) {
            CqlGrant g = attempt(lockId, hdr, mode);
            if (g != null) {
                held.put(lockId, g);
                return g;
            }
            aborts++;
            if (restart >= maxRestarts) {
                throw new LockUnavailableException("cql lock " + lockId + ": " + mode + " acquisition restarted "
                        + (restart + 1) + " times (resets); gave up after max-restarts=" + maxRestarts);
            }
        }
    }

    private CqlGrant attempt(long lockId, long hdr, Mode mode) {
        serviceControl();
        boolean exclusive = mode == Mode.EXCLUSIVE;
        long old = qp.faa(hdr, exclusive ? layout.acquireExclusiveDelta() : layout.acquireSharedDelta());
        long rstcnt = layout.rstcnt(old);
        if (CqlLayout.rst(old)) {
            awaitReset(lockId, hdr, rstcnt);
            return null;
        }
        long qsize = layout.qsize(old);
        long index = layout.qhead(old) + qsize;
        if (qsize >= layout.capacity() || index >= layout.indexLimit()) {
            resetNow(lockId, hdr, rstcnt); // overflow or version exhaustion
            return null;
        }
        long token = CqlLayout.token(rstcnt, index);
        inbox.discard(channel, lockId, m -> (m.type() == CqlMessages.GRANT && m.a() != token)
                || (m.type() == CqlMessages.DONE && m.a() <= rstcnt) || m.type() == CqlMessages.ACK);
        if (qsize == 0 || (!exclusive && layout.wcnt(old) == 0)) {
            return new CqlGrant(lockId, mode, token, rstcnt, index, clock.nanoTime());
        }
        qp.write8(hdr + layout.entryOffset(index), layout.entry(exclusive, me, index));
        long deadline = clock.nanoTime() + timeoutNs;
        waitingLock = lockId;
        waitingRstcnt = rstcnt;
        aborted = false;
        try {
            while (true) {
                long slice = Math.min(deadline, clock.nanoTime() + signalPollNs);
                Message m = inbox.await(channel, lockId, x -> x.type() == CqlMessages.GRANT && x.a() == token, slice);
                serviceControl();
                if (aborted) {
                    // a reset of this epoch is under way: a grant sent before it is not used
                    awaitReset(lockId, hdr, rstcnt);
                    return null;
                }
                if (m != null) {
                    return new CqlGrant(lockId, mode, token, rstcnt, index, clock.nanoTime());
                }
                if (clock.nanoTime() - deadline >= 0) {
                    timeouts++;
                    resetNow(lockId, hdr, rstcnt);
                    return null;
                }
            }
        } finally {
            waitingLock = NOT_WAITING;
        }
    }

    // ---------------------------------------------------------------- release

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof CqlGrant g) || held.get(g.lockId()) != g) {
            throw new IllegalArgumentException("not a grant this cql client holds: " + grant);
        }
        serviceControl(); // signals for this lock arrived by now are deferred to here
        held.remove(g.lockId());
        List<Signal> signals = deferred.remove(g.lockId());
        if (signals != null) {
            boolean resetting = signals.stream().anyMatch(s -> s.rstcnt() >= g.rstcnt());
            signals.forEach(s -> ack(s.from(), g.lockId(), s.rstcnt()));
            if (resetting) {
                ignoredReleases++; // the lock is being reset: the resetter rewrites the header
                return;
            }
        }
        long hdr = headerAddress(g.lockId());
        long delta = g.mode() == Mode.EXCLUSIVE ? layout.releaseExclusiveDelta() : layout.releaseSharedDelta();
        long old;
        long[] queue;
        if (clock.nanoTime() - g.grantedAtNs() < leaseNs / LATE_RELEASE_FRACTION) {
            batch.clear();
            int faa = batch.faa(hdr, delta);
            int read = batch.read(hdr + CqlLayout.WORD_BYTES, (int) layout.queueBytes());
            qp.execute(batch);
            old = batch.longResult(faa);
            queue = words(batch.bytesResult(read));
        } else {
            while (true) {
                long h = qp.read8(hdr);
                if (CqlLayout.rst(h) || layout.rstcnt(h) != g.rstcnt()) {
                    ignoredReleases++;
                    return;
                }
                batch.clear();
                int cas = batch.cas(hdr, h, h + delta);
                int read = batch.read(hdr + CqlLayout.WORD_BYTES, (int) layout.queueBytes());
                qp.execute(batch);
                if (batch.longResult(cas) == h) {
                    old = h;
                    queue = words(batch.bytesResult(read));
                    break;
                }
                retries++;
            }
        }
        if (CqlLayout.rst(old) || layout.rstcnt(old) != g.rstcnt()) {
            ignoredReleases++;
            serviceControl(); // answer the reset's signal if it is here already
            return;
        }
        handOver(g, hdr, old, queue);
    }

    /** Notifies whoever the release made a holder (§4.2 cases 4 and 5, §4.3). */
    private void handOver(CqlGrant g, long hdr, long old, long[] queue) {
        long qsize = layout.qsize(old);
        if (qsize <= 1) {
            return;
        }
        long next = layout.qhead(old) + 1;
        long end = layout.qhead(old) + qsize;
        if (qsize > layout.capacity() || end > layout.indexLimit()) {
            return; // a participant overflowed the queue or exhausted the versions: it resets the lock
        }
        long deadline = clock.nanoTime() + timeoutNs;
        if (g.mode() == Mode.SHARED) {
            long wcnt = layout.wcnt(old);
            if (wcnt == 0) {
                return; // the rest are readers holding already
            }
            IdleStrategy idle = clock.idleStrategy();
            while (true) {
                long writers = 0;
                for (long i = next; i < end; i++) {
                    long e = queue[layout.slotOf(i)];
                    if (layout.overwritten(e, i)) {
                        resetNow(g.lockId(), hdr, g.rstcnt());
                        return;
                    }
                    if (layout.valid(e, i) && CqlLayout.entryExclusive(e)) {
                        writers++;
                    }
                }
                if (writers >= wcnt) {
                    break;
                }
                if (clock.nanoTime() - deadline >= 0) {
                    resetNow(g.lockId(), hdr, g.rstcnt()); // a writer never wrote its entry: it died after its FAA
                    return;
                }
                idle.idle();
                refetchReads++;
                queue = words(qp.read(hdr + CqlLayout.WORD_BYTES, (int) layout.queueBytes()));
            }
            long e = queue[layout.slotOf(next)];
            if (layout.valid(e, next) && CqlLayout.entryExclusive(e)) {
                notify(g, hdr, next, e); // this was the last reader
            }
            return;
        }
        for (long i = next; i < end; i++) {
            long e = validEntry(g, hdr, i, queue[layout.slotOf(i)], deadline);
            if (e == 0) {
                return;
            }
            if (CqlLayout.entryExclusive(e)) {
                if (i == next) {
                    notify(g, hdr, i, e);
                }
                return;
            }
            if (!notify(g, hdr, i, e)) {
                return;
            }
        }
    }

    /** The entry of index {@code i}, re-READ until valid; 0 if it never was (the lock was reset). */
    private long validEntry(CqlGrant g, long hdr, long i, long fetched, long deadline) {
        long e = fetched;
        IdleStrategy idle = clock.idleStrategy();
        while (!layout.valid(e, i)) {
            if (layout.overwritten(e, i) || clock.nanoTime() - deadline >= 0) {
                resetNow(g.lockId(), hdr, g.rstcnt());
                return 0;
            }
            idle.idle();
            refetchReads++;
            e = qp.read8(hdr + layout.entryOffset(i));
        }
        return e;
    }

    /** Sends the grant of index {@code i}; a dead waiter would block the queue: reset. */
    private boolean notify(CqlGrant g, long hdr, long i, long entry) {
        try {
            mailbox.send(CqlLayout.entryClient(entry), channel, CqlMessages.GRANT, g.lockId(),
                    CqlLayout.token(g.rstcnt(), i), 0);
            return true;
        } catch (PeerUnreachableException e) {
            resetNow(g.lockId(), hdr, g.rstcnt());
            return false;
        }
    }

    // ---------------------------------------------------------------- reset

    /** Resets the lock if its reset count is still {@code rstcnt}, reading its header first. */
    private void resetNow(long lockId, long hdr, long rstcnt) {
        reset(lockId, hdr, rstcnt, qp.read8(hdr));
    }

    /**
     * Resets the lock unless that is no longer needed: {@code seen} is a header read at or after
     * the trouble, which was seen in reset epoch {@code rstcnt}.
     */
    private void reset(long lockId, long hdr, long rstcnt, long seen) {
        long h = seen;
        while (true) {
            if (layout.rstcnt(h) != rstcnt) {
                return; // reset by someone else since
            }
            if (CqlLayout.rst(h)) {
                awaitReset(lockId, hdr, rstcnt);
                return;
            }
            long prev = qp.cas(hdr, h, h | CqlLayout.RST);
            if (prev == h) {
                break;
            }
            retries++;
            h = prev;
        }
        runReset(lockId, hdr, rstcnt, clock.nanoTime());
    }

    /** Steps 2 and 3 for the lock whose header has RST set with reset count {@code rstcnt}. */
    private void runReset(long lockId, long hdr, long rstcnt, long startNs) {
        long[] members = words(qp.read(table.at(CqlLayout.MEMBER_COUNT_OFFSET), (int) layout.memberBytes()));
        long count = Math.min(members[0], layout.maxClients());
        List<EndpointId> live = new ArrayList<>();
        Set<EndpointId> silent = new LinkedHashSet<>();
        for (int i = 0; i < count; i++) {
            EndpointId id = EndpointId.unpack(members[1 + i]);
            // a slot not written yet: that client has not finished opening, so it takes part in nothing
            if (id != null && !id.equals(me) && signal(id, lockId, rstcnt)) {
                live.add(id);
                silent.add(id);
            }
        }
        long deadline = startNs + leaseNs;
        long probeNs = Math.max(1, leaseNs / PROBES_PER_LEASE);
        long nextProbe = clock.nanoTime() + probeNs;
        while (!silent.isEmpty() && clock.nanoTime() - deadline < 0) {
            Message m = inbox.await(channel, lockId, x -> x.type() == CqlMessages.ACK && x.a() == rstcnt,
                    Math.min(deadline, Math.min(nextProbe, clock.nanoTime() + signalPollNs)));
            if (m != null) {
                silent.remove(m.from());
            }
            serviceControl();
            if (clock.nanoTime() - nextProbe >= 0) {
                silent.removeIf(id -> !signal(id, lockId, rstcnt));
                nextProbe = clock.nanoTime() + probeNs;
            }
        }
        presumedDead += silent.size();
        qp.write(hdr + CqlLayout.WORD_BYTES, new byte[(int) layout.queueBytes()]);
        while (true) {
            long h = qp.read8(hdr);
            if (!CqlLayout.rst(h) || layout.rstcnt(h) != rstcnt) {
                return; // taken over: this reset was presumed dead
            }
            if (qp.cas(hdr, h, layout.freshHeader(rstcnt + 1)) == h) {
                break;
            }
            retries++;
        }
        recordReset(clock.nanoTime() - startNs);
        inbox.discard(channel, lockId, x -> x.type() == CqlMessages.ACK && x.a() <= rstcnt);
        for (EndpointId id : live) {
            try {
                mailbox.send(id, channel, CqlMessages.DONE, lockId, rstcnt + 1, 0);
            } catch (PeerUnreachableException e) {
                presumedDead++;
            }
        }
    }

    private boolean signal(EndpointId to, long lockId, long rstcnt) {
        try {
            mailbox.send(to, channel, CqlMessages.SIGNAL, CqlMessages.CONTROL, lockId, rstcnt);
            return true;
        } catch (PeerUnreachableException e) {
            return false;
        }
    }

    /** Waits until the reset of reset count {@code rstcnt} is over, taking it over if it stalls. */
    private void awaitReset(long lockId, long hdr, long rstcnt) {
        long epoch = rstcnt;
        long since = clock.nanoTime();
        long checkNs = Math.max(1, leaseNs / CHECKS_PER_LEASE);
        long nextCheck = since + checkNs;
        while (true) {
            long e = epoch;
            Message m = inbox.await(channel, lockId, x -> x.type() == CqlMessages.DONE && x.a() > e,
                    Math.min(nextCheck, clock.nanoTime() + signalPollNs));
            serviceControl();
            if (m != null) {
                return;
            }
            if (clock.nanoTime() - nextCheck < 0) {
                continue;
            }
            nextCheck = clock.nanoTime() + checkNs;
            long h = qp.read8(hdr);
            if (!CqlLayout.rst(h)) {
                return;
            }
            if (layout.rstcnt(h) != epoch) {
                epoch = layout.rstcnt(h); // taken over by someone: give that reset its time
                since = clock.nanoTime();
                continue;
            }
            if (clock.nanoTime() - since >= TAKEOVER_LEASES * leaseNs && qp.cas(hdr, h, h + layout.takeoverDelta()) == h) {
                takeovers++;
                runReset(lockId, hdr, epoch + 1, clock.nanoTime());
                return;
            }
        }
    }

    /**
     * Answers the reset signals that have arrived: a lock this client holds is answered when it is
     * released; an attempt waiting on a lock being reset is aborted; anything else at once.
     */
    private void serviceControl() {
        inbox.drain();
        for (Message m = inbox.take(channel, CqlMessages.CONTROL, x -> x.type() == CqlMessages.SIGNAL); m != null;
             m = inbox.take(channel, CqlMessages.CONTROL, x -> x.type() == CqlMessages.SIGNAL)) {
            long lockId = m.a();
            long rstcnt = m.b();
            CqlGrant g = held.get(lockId);
            if (g != null && g.rstcnt() <= rstcnt) {
                deferred.computeIfAbsent(lockId, k -> new ArrayList<>()).add(new Signal(m.from(), rstcnt));
                continue;
            }
            if (lockId == waitingLock && waitingRstcnt <= rstcnt) {
                aborted = true;
            }
            ack(m.from(), lockId, rstcnt);
        }
    }

    private void ack(EndpointId to, long lockId, long rstcnt) {
        try {
            mailbox.send(to, channel, CqlMessages.ACK, lockId, rstcnt, 0);
        } catch (PeerUnreachableException e) {
            // the resetter died: a waiter will take its reset over
        }
    }

    private void recordReset(long ns) {
        resets++;
        if (resetLatencyCount == resetLatencies.length) {
            resetLatencies = Arrays.copyOf(resetLatencies, resetLatencies.length * 2);
        }
        resetLatencies[resetLatencyCount++] = ns;
    }

    // ---------------------------------------------------------------- misc

    private long headerAddress(long lockId) {
        long locks = table.spec().locks();
        if (lockId < 0 || lockId >= locks) {
            throw new IllegalArgumentException("lock " + lockId + " outside [0, " + locks + ")");
        }
        return table.at(layout.headerOffset(lockId));
    }

    private static long[] words(byte[] bytes) {
        long[] out = new long[bytes.length / CqlLayout.WORD_BYTES];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(out);
        return out;
    }

    @Override
    public long locks() {
        return table.spec().locks();
    }

    /** Retries: failed CASes (RST, late releases, header rewrite); resets: resets completed by this client. */
    @Override
    public LockStats stats() {
        return new LockStats(retries, aborts, resets);
    }

    /** The duration of each reset this client completed, RST set to fresh header in place, in order. */
    public long[] resetLatenciesNs() {
        return Arrays.copyOf(resetLatencies, resetLatencyCount);
    }

    /** READs of queue entries that were not written yet when first read (§4.3 refetching). */
    public long refetchReads() {
        return refetchReads;
    }

    /** Acquisitions that waited {@code timeout-ns} without a grant (each started a reset). */
    public long timeouts() {
        return timeouts;
    }

    /** Members a reset of this client did not hear from within the lease. */
    public long presumedDead() {
        return presumedDead;
    }

    /** Resets this client took over from a resetter that stalled. */
    public long takeovers() {
        return takeovers;
    }

    /** Releases that met a reset and changed nothing. */
    public long ignoredReleases() {
        return ignoredReleases;
    }

    @Override
    public String toString() {
        return "CqlClient[" + me + ", " + layout + "]";
    }
}
