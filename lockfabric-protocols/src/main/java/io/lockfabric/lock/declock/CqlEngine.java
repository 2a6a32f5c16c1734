package io.lockfabric.lock.declock;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.MemoryNodeRestartedException;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.Inbox;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.ValueHistogram;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * One participant's side of DecLock's cooperative queue-notify lock, CQL (Zhang, Cheng, Chen, Wei
 * and Chen, "DecLock: A Case of Decoupled Locking for Disaggregated Memory", arXiv 2505.17641,
 * 2025, §4 and Appendices A–B; memory in {@link CqlLayout}, messages in {@link CqlMessages}):
 * the enqueue, the release with its handover, the reset and the answering of reset signals.
 * {@link CqlClient} runs it for one client; {@link DecLockClient} for the compute node's
 * representative of the moment (§5: one queue participant per compute node). Who holds a lock, and
 * so answers a reset signal only after releasing it, is the caller's knowledge, asked through
 * {@link Holds}.
 *
 * <p><b>State on the memory node, ownership by message</b> (§4, Fig. 4). The queue of waiters is
 * kept on the memory node, where every participant sees it in FIFO order; ownership moves from
 * holder to waiter in a GRANT message between compute nodes. The memory node is touched only to
 * enqueue and dequeue, never polled: the point of the paper is the memory node's NIC IOPS. A lock
 * is an atomic control plane, an 8-byte <em>header</em>, and a non-atomic data plane, a circular
 * queue of 8-byte <em>entries</em>, contiguous so that one READ fetches both.
 *
 * <p><b>Header FAA</b> (§4.1). The header is changed by FAA only (and by CAS during a reset): an
 * FAA always succeeds, so readers and writers are ordered FIFO with no retries toward the memory
 * node. Hence no field may borrow from or carry into the next: qsize and wcnt are one bit wider
 * than the capacity needs, so an overflowing queue shows as {@code qsize ≥ capacity} before it can
 * carry, and qhead is not allowed to wrap (an index at {@link CqlLayout#indexLimit()} is version
 * exhaustion and resets the lock first).
 *
 * <p><b>Acquire</b> (§4.2, Fig. 7 lines 1–5). One FAA adds us to qsize (a writer also to wcnt); the
 * old header decides. RST set: wait for the reset and retry. Old qsize at capacity, or our index
 * at the version limit: reset, retry. Old qsize = 0, or a reader and old wcnt = 0: granted by the
 * FAA (case ➀), and <em>no entry is written</em>. Otherwise (case ➁) one WRITE puts our entry {op,
 * member slot, version of our index, timestamp} at index {@code qhead + qsize}, and we wait for the
 * GRANT whose fencing token names this attempt. So acquire costs 1 verb, 2 when waiting.
 *
 * <p><b>Release</b> (§4.2, Fig. 7 lines 6–19, cases ➂–➄), one doorbell: the FAA that dequeues us (qhead + 1,
 * qsize − 1, a writer wcnt − 1) and a READ of the whole queue behind it. With the old header,
 * {@code qhead + 1} is the next participant. Old qsize ≤ 1: nobody else (➂). A releasing reader
 * with writers queued finds them: the entries of readers granted at once were never written, but
 * every waiting writer writes one, so it counts valid exclusive entries and re-READs the queue
 * until it sees wcnt of them (§4.3 "shared holders"; a writer may not have written its entry yet);
 * if the next entry is a writer, this was the last reader: notify it (➃); else readers remain (➂).
 * A releasing writer re-READs the next entry until valid (§4.3 "read-write conflicts") and notifies
 * that writer (➃), or the run of readers from it up to the next writer (➄).
 *
 * <p><b>Queue entry versions</b> (§4.3). The version of index i is the number of traversals of the
 * circular buffer, stored complemented so that a zeroed queue reads "never written". An entry is
 * valid for its index iff the versions match; a newer version means it was overwritten (an
 * overflow), which resets the lock.
 *
 * <p><b>Invariants</b> (Appendix A). wcnt ≥ 1 while a writer holds, and qsize ≥ 1 while anyone
 * holds, so the FAA grants nobody against them (Invariants 2.1, 2.2). Every waiter whose entry is in
 * the queue is notified by a holder ahead of it when that one releases (Lemma 2), which is why a
 * releaser re-READs an entry not yet valid instead of skipping it: the waiter's WRITE may lag its
 * FAA.
 *
 * <p><b>Reset</b> (§4.4, Appendix B). Triggers: queue overflow, an overwritten entry, version
 * exhaustion, a waiter that times out ({@code timeout-ns}: a crashed holder or queue member), a
 * waiter that cannot be notified (dead). (1) Set RST with CAS, unless a reset is under way (then
 * wait for it). (2) SIGNAL every other member registered in the table (on a control key that every
 * wait of every client services at least every {@code signal-poll-ns}); holders answer ACK after
 * they release, waiters abort and answer, others answer at once; a member whose SEND fails is not
 * awaited, the silent ones are signalled again and after a lease taken for dead. (3) WRITE the
 * queue to zero and CAS in a fresh header with the reset count (RSTCNT) + 1; tell the members DONE.
 * Acquisitions that met RST wait for DONE (or READ the header now and then) and retry after a
 * random jitter. The paper's per-CN reset counter is RSTCNT, which every FAA returns; grants carry
 * it in their fencing token, so a grant from before a reset never matches an attempt after it
 * ("expired notifications"), and a client checks for a reset signal of its epoch before it uses
 * any grant, even one its FAA gave. Appendix B's takeover of a dead resetter: a waiter that sees RST
 * for {@code 2 × lease} adds one to RSTCNT by CAS while RST stays set (the dead resetter's late
 * header CAS then fails) and runs the reset itself. Where the paper keeps a reset ID (the
 * resetter's CN) in the low header bits, we keep the artifact's RST bit and RSTCNT.
 *
 * <p><b>Leases.</b> A holder releases with the FAA only within {@code lease/4} of its grant: a
 * resetter waits at most a lease after its signal, which a holder gets before it could have been
 * granted, so such an FAA lands before the header is rewritten. Later, the release READs the header
 * and CASes the same delta only if RSTCNT is still its grant's and RST is clear, so a holder
 * presumed dead never corrupts the next epoch. Acquisitions that meet RST are retried; releases
 * that meet it change nothing. The hazards left are listed in {@link CqlClient}.
 *
 * <p><b>Lost messages</b> (which RDMA's reliable connections never lose silently; the simulator's
 * {@code drop} fault does): a lost GRANT leaves its waiter to time out ({@code timeout-ns}) and
 * reset the lock, as for a crashed holder; a lost SIGNAL or ACK makes a member silent, re-signalled
 * and after {@code lease-ns} taken for dead (a live holder has released by then); a lost DONE is
 * made up for by the waiters' READs of the header. So a lost message costs at most a timeout and a
 * reset, within the recovery bound, and never exclusion.
 *
 * <p><b>Memory-node restarts</b> (Appendix B "MN failures": "all lock operations towards failed
 * MNs are paused until the MNs recover. After the recovery, DecLock aborts all paused operations
 * and resets all locks on the failed MN before executing any new lock operation"). The memory node
 * comes back with its memory lost: every header, queue and member slot reads as zero. Clients learn
 * of it from the failure detector, {@link Endpoint#memoryNodeGeneration} (the paper's reliable
 * coordinator, which clients "check when waiting for the completion of RDMA operations"), and from
 * their verbs, which fail with {@link MemoryNodeRestartedException} while the node is down and,
 * after, until they reconnect. What a client does then:
 * <ol>
 * <li>abort: the attempt under way returns (an attempt's verb that fails, or a wait that sees the
 * generation change, aborts it, as a reset signal would); a release of a grant of the lost
 * generation changes nothing (its lock word is gone) and notifies nobody;</li>
 * <li>before its next operation ({@link #joinGeneration}): reconnect, retrying every
 * {@code signal-poll-ns} while the node is down;</li>
 * <li>wait a lease from the moment it learned of the restart (every wait looks at the failure
 * detector, so that is within {@code signal-poll-ns} of the failure for a client that was waiting
 * or working, whatever it does next), answering signals meanwhile. This
 * is the reset's step 2 for every lock at once: the restart lost the queues and members that tell
 * who holds what, so instead of asking the holders it waits out the longest they may hold (the
 * lease, the protocol's assumption: a holder past it is the lease hazard as for any reset). No
 * grant of the lost generation is made after the restart (every wait checks the generation, and
 * {@link DecLockClient} makes no local handover under a CQL grant of an older generation), and
 * every one made before it ends within a lease, so none overlaps a grant of the new one;</li>
 * <li>register again in the member region (the zeroed table is the reset state of every lock:
 * a zero header is a free lock of reset count 0, a zero queue never written), and go on.</li>
 * </ol>
 * The fencing token carries the generation above the reset count ({@link CqlLayout#token(long,
 * long, long)}), so tokens still increase across the restart, and a GRANT of the lost generation
 * never matches an attempt of the new one.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class CqlEngine {
    /**
     * A CQL grant: reset count and queue index it was granted at, when, and the earliest remote
     * waiter's timestamp; {@code leaseStartNs} is when its attempt's enqueueing FAA was issued: a
     * reset of its epoch sets RST after that FAA landed and waits a lease from then, so no reset
     * gives the lock away before a lease has passed since it.
     */
    record CqlGrant(long lockId, Mode mode, long fencingToken, long rstcnt, long index, long grantedAtNs,
                    long earliestRemoteTs, long generation, long leaseStartNs) implements Grant {
    }

    /** A reset signal kept until the lock it is about is released. */
    record Signal(EndpointId from, long rstcnt) {
    }

    /** Who holds what: decides whether a reset signal is answered now or after a release. */
    interface Holds {
        /**
         * Called for a reset signal of {@code lockId} at reset count {@code rstcnt}: keep it and
         * return true if the lock is held (by this client, or its compute node) in that reset
         * count or an earlier one; return false to have it answered at once.
         */
        boolean defer(long lockId, long rstcnt, EndpointId from);
    }

    /** No timestamp: in a grant message, no remote waiter is known. */
    static final long NO_TIMESTAMP = -1;

    private static final long NOT_WAITING = -1;
    /** Fast (FAA) release only within lease / this of the grant. */
    private static final int LATE_RELEASE_FRACTION = 4;
    /** Silent members are re-signalled this many times per lease. */
    private static final int PROBES_PER_LEASE = 8;
    /** A waiter for a reset READs the header this many times per lease if no DONE comes. */
    private static final int CHECKS_PER_LEASE = 4;
    /** Leases of RST before a waiter takes a reset over. */
    private static final int TAKEOVER_LEASES = 2;
    /** The wait for the holders of a lost generation is a lease and this fraction of it (clock drift). */
    private static final int DRIFT_MARGIN_FRACTION = 64;
    /** Retry jitter after an aborted attempt: a few round trips to the memory node. */
    private static final long RETRY_JITTER_NS = 8_000;

    private final QueuePair qp;
    private final Endpoint endpoint;
    private final Table table;
    private final Clock clock;
    private final RandomGenerator random;
    private final Mailbox mailbox;
    private final Inbox inbox;
    private final EndpointId me;
    private final int channel;
    private final CqlLayout layout;
    private final long leaseNs;
    private final long timeoutNs;
    private final long signalPollNs;
    private final int maxRestarts;
    /** The release's FAA (or CAS) + READ, reused. */
    private final Batch batch = new Batch();

    private final Holds holds;
    private final boolean hierarchical;
    /** The memory node's generation this client works in (registered, grants made in it). */
    private long generation;
    /** The latest generation the failure detector showed this client, and when it first did. */
    private long seenGeneration;
    private long seenAtNs;
    private long mnRecoveries;
    /** Our member slot: the client id our queue entries carry. */
    private int mySlot;
    /** Member addresses by slot, as far as READ (slots are written once). */
    private EndpointId[] members = new EndpointId[0];
    /** The lock and epoch of the attempt under way ({@link #NOT_WAITING}: none), for {@link #serviceControl}. */
    private long waitingLock = NOT_WAITING;
    private long waitingRstcnt;
    /** A reset signal of the attempt's epoch came: the attempt must not use any grant, and retries. */
    private boolean aborted;

    private long retries;
    private long aborts;
    private long resets;
    private long handovers;
    private long takeovers;
    private long timeouts;
    private long presumedDead;
    private long refetchReads;
    private long memberReads;
    private long ignoredReleases;
    private long forcedResets;
    private long[] resetLatencies = new long[8];
    private int resetLatencyCount;

    CqlEngine(Endpoint endpoint, Table table, CqlProtocol.Settings settings, Holds holds, boolean hierarchical) {
        this.holds = holds;
        this.hierarchical = hierarchical;
        this.qp = endpoint.queuePair(table.memoryNode());
        this.endpoint = endpoint;
        this.table = table;
        this.clock = endpoint.clock();
        this.random = endpoint.random();
        this.mailbox = endpoint.mailbox();
        this.inbox = Inbox.of(endpoint);
        this.me = mailbox.id();
        this.channel = Inbox.channelOf(table);
        this.layout = settings.layout();
        this.leaseNs = settings.leaseNs();
        this.timeoutNs = settings.timeoutNs();
        this.signalPollNs = settings.signalPollNs();
        this.maxRestarts = settings.maxRestarts();
        this.generation = endpoint.memoryNodeGeneration(table.memoryNode());
        this.seenGeneration = generation;
        register();
    }

    /**
     * The failure detector's generation of the memory node; the first time it shows a new one,
     * notes when (at or after the failure: the wait for the lost generation's holders runs from
     * there). Every wait of the client looks, through {@link #serviceControl}, so a client learns
     * of a failure within {@code signal-poll-ns} even if it makes no verb.
     */
    private long noticeGeneration() {
        long g = endpoint.memoryNodeGeneration(table.memoryNode());
        if (g != seenGeneration) {
            seenGeneration = g;
            seenAtNs = clock.nanoTime();
        }
        return g;
    }

    /** Whether the memory node restarted since this client joined its generation (a local look). */
    boolean generationChanged() {
        return noticeGeneration() != generation;
    }

    /** Whether grant {@code g} was made in the memory node's current generation. */
    boolean current(CqlGrant g) {
        return g.generation() == endpoint.memoryNodeGeneration(table.memoryNode());
    }

    /**
     * After a restart of the memory node (see the class comment): reconnects once it is back,
     * waits a lease from now for the holders of the lost generation, registers again. Nothing if
     * it did not restart.
     */
    void joinGeneration() {
        int mn = table.memoryNode();
        while (generationChanged()) {
            long learnedAt = seenAtNs;
            while (true) {
                try {
                    endpoint.reconnect(mn);
                    break;
                } catch (MemoryNodeRestartedException down) {
                    serviceControl();
                    clock.sleepNanos(signalPollNs);
                }
            }
            long joined = endpoint.memoryNodeGeneration(mn);
            long until = learnedAt + leaseNs + leaseNs / DRIFT_MARGIN_FRACTION;
            while (clock.nanoTime() - until < 0) {
                serviceControl();
                clock.sleepNanos(Math.min(signalPollNs, until - clock.nanoTime()));
            }
            if (endpoint.memoryNodeGeneration(mn) != joined) {
                continue; // restarted again meanwhile
            }
            try {
                members = new EndpointId[0];
                generation = joined;
                register();
                mnRecoveries++;
            } catch (MemoryNodeRestartedException again) {
                generation = -1; // failed again while registering: start over
            }
        }
    }

    /**
     * Takes a member slot (FAA on the count) and writes this client's address into it. The member
     * region serves two ends: a queue entry names its waiter by slot (16 bits, not a whole
     * address), and a resetter signals every member (step 2 of §4.4 must reach every client that
     * may hold or wait). In hierarchical mode the participants are compute nodes: more of them than
     * qsize can count is refused.
     */
    private void register() {
        long slot = qp.faa(table.at(CqlLayout.MEMBER_COUNT_OFFSET), 1);
        if (slot >= layout.maxClients()) {
            throw new IllegalStateException(table.spec() + " is full: it admits " + layout.maxClients()
                    + " clients (max-clients); open it with larger max-clients"
                    + (hierarchical ? "" : " and capacity (max-clients <= 2 x capacity - 1)"));
        }
        qp.write8(table.at(layout.memberSlotOffset((int) slot)), me.pack());
        mySlot = (int) slot;
        if (hierarchical) {
            long[] members = words(qp.read(table.at(CqlLayout.MEMBER_COUNT_OFFSET), (int) layout.memberBytes()));
            long count = Math.min(members[0], layout.maxClients());
            long nodes = java.util.stream.LongStream.range(0, count).map(i -> members[CqlLayout.MEMBER_HEADER_WORDS + (int) i])
                    .filter(v -> v != 0).map(v -> EndpointId.unpack(v).node()).distinct().count();
            if (nodes > layout.maxParticipants()) {
                throw new IllegalStateException(table.spec() + " has clients on " + nodes + " compute nodes; capacity "
                        + layout.capacity() + " counts at most " + layout.maxParticipants() + ": open it with a larger cns (or capacity)");
            }
        }
    }

    // ---------------------------------------------------------------- acquire

    /**
     * Enqueues on lock {@code lockId} and returns once granted; {@code timestamp} goes into the
     * entry when this client must wait (hierarchical mode).
     *
     * @throws LockUnavailableException after {@code max-restarts} aborted attempts
     */
    CqlGrant acquire(long lockId, Mode mode, long timestamp) {
        long hdr = headerAddress(lockId);
        for (int restart = 0; ; restart++) {
            CqlGrant g;
            try {
                joinGeneration();
                g = attempt(lockId, hdr, mode, timestamp);
            } catch (MemoryNodeRestartedException e) {
                g = null; // Appendix B: an operation paused by a memory-node failure is aborted
            }
            if (g != null) {
                return g;
            }
            aborts++;
            if (restart >= maxRestarts) {
                throw new LockUnavailableException("cql lock " + lockId + ": " + mode + " acquisition restarted "
                        + (restart + 1) + " times (resets); gave up after max-restarts=" + maxRestarts);
            }
            // every waiter of a reset lock retries when it ends: spread them, or an overflowing
            // queue overflows again in the same order each time. The window does not grow with
            // restarts: a client that lost often must not come last again.
            clock.sleepNanos(random.nextLong(RETRY_JITTER_NS));
        }
    }

    /** One FAA on the header and what it decides (§4.2 cases ➀ and ➁); null if the attempt was aborted by a reset. */
    private CqlGrant attempt(long lockId, long hdr, Mode mode, long timestamp) {
        serviceControl(); // a resetter may be waiting for our answer: do not make it wait a whole acquisition
        boolean exclusive = mode == Mode.EXCLUSIVE;
        long startNs = clock.nanoTime(); // the grant's lease start: a reset of its epoch sets RST after this FAA landed
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
        long token = layout.token(generation, rstcnt, index);
        // A new attempt: grants for earlier attempts (another index or epoch), DONEs of resets known
        // to be over and ACKs for resets we no longer run would only be matched by mistake.
        inbox.discard(channel, lockId, m -> (m.type() == CqlMessages.GRANT && m.a() != token)
                || (m.type() == CqlMessages.DONE && m.a() <= rstcnt) || m.type() == CqlMessages.ACK);
        waitingLock = lockId;
        waitingRstcnt = rstcnt;
        aborted = false;
        try {
            if (qsize == 0 || (!exclusive && layout.wcnt(old) == 0)) {
                // granted by the FAA; but a client stalled since may find this epoch reset already
                serviceControl();
                if (aborted) {
                    awaitReset(lockId, hdr, rstcnt);
                    return null;
                }
                if (generationChanged()) {
                    return null; // the memory node failed since our FAA: its grant is not used
                }
                return new CqlGrant(lockId, mode, token, rstcnt, index, clock.nanoTime(), NO_TIMESTAMP, generation,
                        startNs);
            }
            qp.write8(hdr + layout.entryOffset(index), layout.entry(exclusive, mySlot, index, timestamp));
            // Waiting for ever is not an option: a crashed holder or member never notifies (§4.4 "CN failure").
            long deadline = clock.nanoTime() + timeoutNs;
            while (true) {
                long slice = Math.min(deadline, clock.nanoTime() + signalPollNs);
                Message m = inbox.await(channel, lockId, x -> x.type() == CqlMessages.GRANT && x.a() == token, slice);
                serviceControl();
                if (aborted) {
                    // a reset of this epoch is under way: a grant sent before it is not used
                    awaitReset(lockId, hdr, rstcnt);
                    return null;
                }
                if (generationChanged()) {
                    return null; // the memory node failed: its queue is lost, no grant will come
                }
                if (m != null) {
                    handovers++;
                    return new CqlGrant(lockId, mode, token, rstcnt, index, clock.nanoTime(), m.b(), generation,
                            startNs);
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

    /** Counts a release that met a reset signal and so changes nothing (the resetter rewrites the lock). */
    void ignoreRelease() {
        ignoredReleases++;
    }

    /**
     * Releases {@code g} on the memory node (guarded if late) and notifies the next holder(s). A
     * grant of a generation the memory node lost is released by nothing: its lock word is gone.
     */
    void release(CqlGrant g) {
        if (!current(g)) {
            ignoredReleases++;
            return;
        }
        try {
            // a hierarchical client may release a grant its node's representative took in a
            // generation this client has not joined yet (its queue pair still fails): join first
            // (the wait for the lost generation's holders is over by then, as the grant shows)
            joinGeneration();
            releaseCurrent(g);
        } catch (MemoryNodeRestartedException e) {
            ignoredReleases++; // it failed meanwhile: same as above
        }
    }

    private void releaseCurrent(CqlGrant g) {
        long hdr = headerAddress(g.lockId());
        long delta = g.mode() == Mode.EXCLUSIVE ? layout.releaseExclusiveDelta() : layout.releaseSharedDelta();
        long old;
        long[] queue;
        // Within lease/4 of the grant a resetter cannot have rewritten the header yet (it waits a
        // lease for our answer): the blind FAA is safe. Later, only a CAS on a header of our epoch.
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

    /**
     * Notifies whoever the release made a holder (§4.2 cases ➃ and ➄, §4.3), from the old header
     * the release's FAA returned and the queue READ behind it.
     */
    private void handOver(CqlGrant g, long hdr, long old, long[] queue) {
        long qsize = layout.qsize(old);
        if (qsize <= 1) {
            return; // case ➂: nobody else
        }
        long next = layout.qhead(old) + 1;
        long end = layout.qhead(old) + qsize;
        if (qsize > layout.capacity() || end > layout.indexLimit()) {
            return; // a participant overflowed the queue or exhausted the versions: it resets the lock
        }
        // Refetching an entry a waiter has not written yet is bounded: a waiter that died between
        // its FAA and its WRITE would block the queue for good.
        long deadline = clock.nanoTime() + timeoutNs;
        if (g.mode() == Mode.SHARED) {
            readerReleased(g, hdr, old, queue, next, end, deadline);
        } else {
            writerReleased(g, hdr, queue, next, end, deadline);
        }
    }

    /**
     * A reader released (Fig. 7 lines 11–13): with writers queued, finds them, and notifies the one
     * at {@code next} if there is one (this was the last reader, case ➃). Readers after it hold
     * already (case ➂).
     */
    private void readerReleased(CqlGrant g, long hdr, long old, long[] fetched, long next, long end, long deadline) {
        long wcnt = layout.wcnt(old);
        if (wcnt == 0) {
            return; // the rest are readers holding already
        }
        long[] queue = locateWriters(g, hdr, fetched, next, end, wcnt, deadline);
        if (queue == null) {
            return;
        }
        long e = queue[layout.slotOf(next)];
        if (layout.valid(e, next) && CqlLayout.entryExclusive(e)) {
            notify(g, hdr, next, e, earliest(queue, next + 1, end)); // this was the last reader
        }
    }

    /**
     * §4.3 "shared holders": the queue as READ until it shows {@code wcnt} valid exclusive entries
     * in [next, end). Readers granted at once never write an entry, so the writers are the only
     * entries a releasing reader can rely on; a writer that has done its FAA but not yet its WRITE
     * is waited for by re-READing the queue. Null if the lock had to be reset (an overwritten
     * entry, or a writer that never wrote within the deadline: it died after its FAA).
     */
    private long[] locateWriters(CqlGrant g, long hdr, long[] fetched, long next, long end, long wcnt,
                                 long deadline) {
        long[] queue = fetched;
        IdleStrategy idle = clock.idleStrategy();
        while (true) {
            long writers = 0;
            for (long i = next; i < end; i++) {
                long e = queue[layout.slotOf(i)];
                if (layout.overwritten(e, i)) {
                    resetNow(g.lockId(), hdr, g.rstcnt());
                    return null;
                }
                if (layout.valid(e, i) && CqlLayout.entryExclusive(e)) {
                    writers++;
                }
            }
            if (writers >= wcnt) {
                return queue;
            }
            if (clock.nanoTime() - deadline >= 0) {
                resetNow(g.lockId(), hdr, g.rstcnt()); // a writer never wrote its entry: it died after its FAA
                return null;
            }
            idle.idle();
            refetchReads++;
            queue = words(qp.read(hdr + CqlLayout.WORD_BYTES, (int) layout.queueBytes()));
        }
    }

    /**
     * A writer released (Fig. 7 lines 11–19): the entry at {@code next} (re-READ until valid) is
     * a writer, notified alone (case ➃), or the first of a run of readers, all notified up to the
     * next writer (case ➄). The grants carry the earliest timestamp among the waiters left behind
     * them (§5.3's prefetched remote timestamp, refreshed by the grant).
     */
    private void writerReleased(CqlGrant g, long hdr, long[] queue, long next, long end, long deadline) {
        long first = validEntry(g, hdr, next, queue[layout.slotOf(next)], deadline);
        if (first == 0) {
            return;
        }
        if (CqlLayout.entryExclusive(first)) {
            notify(g, hdr, next, first, earliest(queue, next + 1, end));
            return;
        }
        // the run of readers from next up to the first writer
        long runEnd = next + 1;
        List<Long> run = new ArrayList<>();
        run.add(first);
        while (runEnd < end) {
            long e = validEntry(g, hdr, runEnd, queue[layout.slotOf(runEnd)], deadline);
            if (e == 0) {
                return;
            }
            if (CqlLayout.entryExclusive(e)) {
                break;
            }
            run.add(e);
            runEnd++;
        }
        long rest = earliest(queue, runEnd, end);
        for (int k = 0; k < run.size(); k++) {
            if (!notify(g, hdr, next + k, run.get(k), rest)) {
                return; // that reader was dead: the reset aborts the others, who retry
            }
        }
    }

    /** The earliest timestamp among the valid entries of indices [from, to), or {@link #NO_TIMESTAMP}. */
    private long earliest(long[] queue, long from, long to) {
        if (!hierarchical) {
            return NO_TIMESTAMP;
        }
        long best = NO_TIMESTAMP;
        for (long i = from; i < to; i++) {
            long e = queue[layout.slotOf(i)];
            if (layout.valid(e, i)) {
                long ts = layout.entryTimestamp(e);
                if (best == NO_TIMESTAMP || Timestamps.earlier(ts, best, layout.timestampBits())) {
                    best = ts;
                }
            }
        }
        return best;
    }

    /**
     * Whether shared grant {@code g} still stands with no one waiting behind it: one READ of the
     * lock's header shows g's epoch, no reset under way and no writer in the queue ({@code wcnt =
     * 0}). Every other participant is then a reader, which its own FAA granted at once, so another
     * reader sharing g delays no waiter (a writer that comes later waits for the holders of the
     * moment, as it would for any reader the FAA admits).
     */
    boolean noneWaitBehind(CqlGrant g) {
        long h = qp.read8(headerAddress(g.lockId()));
        return g.mode() == Mode.SHARED && !CqlLayout.rst(h) && layout.rstcnt(h) == g.rstcnt() && layout.wcnt(h) == 0;
    }

    /**
     * Prefetch (§5.3): READs lock {@code lockId}'s header and queue and returns the earliest
     * timestamp among the waiters queued there that are not on compute node {@code node}, or
     * {@link #NO_TIMESTAMP}.
     */
    long earliestRemoteWaiter(long lockId, int node) {
        long hdr = headerAddress(lockId);
        long[] lock = words(qp.read(hdr, (int) layout.lockBytes()));
        long h = lock[0];
        if (CqlLayout.rst(h) || layout.qsize(h) > layout.capacity()) {
            return NO_TIMESTAMP;
        }
        long best = NO_TIMESTAMP;
        for (long i = layout.qhead(h); i < layout.qhead(h) + layout.qsize(h); i++) {
            long e = lock[1 + layout.slotOf(i)];
            EndpointId client = layout.valid(e, i) ? member(CqlLayout.entrySlot(e)) : null;
            if (client != null && client.node() != node) {
                long ts = layout.entryTimestamp(e);
                if (best == NO_TIMESTAMP || Timestamps.earlier(ts, best, layout.timestampBits())) {
                    best = ts;
                }
            }
        }
        return best;
    }

    /**
     * The entry of index {@code i}, re-READ until valid (§4.3 "read-write conflicts": the waiter's
     * WRITE may land after our READ of the queue); 0 if it never was (the lock was reset).
     */
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
    private boolean notify(CqlGrant g, long hdr, long i, long entry, long earliestRest) {
        EndpointId to = member(CqlLayout.entrySlot(entry));
        if (to != null) {
            try {
                mailbox.send(to, channel, CqlMessages.GRANT, g.lockId(), layout.token(g.generation(), g.rstcnt(), i),
                        earliestRest);
                return true;
            } catch (PeerUnreachableException e) {
                // dead waiter: reset below
            }
        }
        resetNow(g.lockId(), hdr, g.rstcnt()); // a dead waiter (or no member in that slot) blocks the queue
        return false;
    }

    // ---------------------------------------------------------------- reset

    /**
     * Resets lock {@code lockId} now, as a waiter that timed out would (experiments and tests:
     * Fig. 16's reset latency). The caller must not hold the lock. If a reset is under way
     * already, waits for it instead. A completed reset is recorded in {@link #resetLatenciesNs()}.
     */
    void forceReset(long lockId) {
        long hdr = headerAddress(lockId);
        try {
            joinGeneration();
            long h = qp.read8(hdr);
            forcedResets++;
            reset(lockId, hdr, layout.rstcnt(h), h);
        } catch (MemoryNodeRestartedException e) {
            // the memory node failed: every lock on it is reset by the restart
        }
    }

    /** Resets the lock if its reset count is still {@code rstcnt}, reading its header first. */
    private void resetNow(long lockId, long hdr, long rstcnt) {
        reset(lockId, hdr, rstcnt, qp.read8(hdr));
    }

    /**
     * Step 1 of a reset (§4.4): sets RST by CAS unless that is no longer needed, then runs steps 2
     * and 3. {@code seen} is a header read at or after the trouble, which was seen in reset epoch
     * {@code rstcnt}; a reset under way is waited for instead, so that one client runs it.
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

    /**
     * Steps 2 and 3 for the lock whose header has RST set with reset count {@code rstcnt}, begun
     * at {@code startNs} (the reset latency of Fig. 16 runs from there to the fresh header).
     */
    private void runReset(long lockId, long hdr, long rstcnt, long startNs) {
        List<EndpointId> live = signalMembers(lockId, rstcnt, startNs);
        qp.write(hdr + CqlLayout.WORD_BYTES, new byte[(int) layout.queueBytes()]);
        while (true) {
            long h = qp.read8(hdr);
            if (!CqlLayout.rst(h) || layout.rstcnt(h) != rstcnt) {
                return; // taken over: this reset was presumed dead
            }
            if (qp.cas(hdr, h, layout.freshHeader(rstcnt + 1)) == h) {
                break;
            }
            retries++; // acquisitions still FAA the header while RST is set (they see it and wait)
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

    /**
     * Step 2: SIGNALs every other registered member and waits, at most a lease from
     * {@code startNs}, for their ACKs. Meanwhile it answers signals itself (the resetter of another
     * lock may be waiting for our ACK while we wait for its) and signals the silent ones again
     * {@link #PROBES_PER_LEASE} times a lease: a SEND that fails shows a member that died since,
     * which is then not awaited. The ones still silent after the lease are presumed dead. Returns
     * the members that were signalled, to be told DONE.
     */
    private List<EndpointId> signalMembers(long lockId, long rstcnt, long startNs) {
        long[] members = words(qp.read(table.at(CqlLayout.MEMBER_COUNT_OFFSET), (int) layout.memberBytes()));
        long count = Math.min(members[0], layout.maxClients());
        List<EndpointId> live = new ArrayList<>();
        Set<EndpointId> silent = new LinkedHashSet<>();
        for (int i = 0; i < count; i++) {
            EndpointId id = EndpointId.unpack(members[CqlLayout.MEMBER_HEADER_WORDS + i]);
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
            if (generationChanged()) {
                throw new MemoryNodeRestartedException(table.memoryNode(),
                        endpoint.memoryNodeGeneration(table.memoryNode()), false); // the lock is gone: so is its reset
            }
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
        return live;
    }

    /** The member in {@code slot}, READing the member region if this client has not seen it yet; null if none. */
    private EndpointId member(int slot) {
        if (slot >= members.length || members[slot] == null) {
            memberReads++;
            long[] words = words(qp.read(table.at(CqlLayout.MEMBER_COUNT_OFFSET), (int) layout.memberBytes()));
            int count = (int) Math.min(words[0], layout.maxClients());
            EndpointId[] fresh = new EndpointId[count];
            for (int i = 0; i < count; i++) {
                fresh[i] = EndpointId.unpack(words[CqlLayout.MEMBER_HEADER_WORDS + i]);
            }
            members = fresh;
        }
        return slot < members.length ? members[slot] : null;
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
            if (m != null || generationChanged()) {
                return;
            }
            if (clock.nanoTime() - nextCheck < 0) {
                continue;
            }
            // No DONE may come: the resetter died, or signalled before we registered. Look.
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
            // Appendix B: a resetter presumed dead. A live one ends within a lease of ACK waiting
            // plus its own verbs; the CAS adds one to RSTCNT, so its late header CAS fails.
            if (clock.nanoTime() - since >= TAKEOVER_LEASES * leaseNs && qp.cas(hdr, h, h + layout.takeoverDelta()) == h) {
                takeovers++;
                runReset(lockId, hdr, epoch + 1, clock.nanoTime());
                return;
            }
        }
    }

    /**
     * Answers the reset signals that have arrived (§4.4 step 2): a lock this client holds is
     * answered when it is released; an attempt waiting on a lock being reset is aborted; anything
     * else at once. Signals come on a control key, not the lock's, because every member must answer
     * whatever it is waiting for: every wait of the engine calls this at least every
     * {@code signal-poll-ns}.
     */
    void serviceControl() {
        noticeGeneration();
        inbox.drain();
        for (Message m = inbox.take(channel, CqlMessages.CONTROL, x -> x.type() == CqlMessages.SIGNAL); m != null;
             m = inbox.take(channel, CqlMessages.CONTROL, x -> x.type() == CqlMessages.SIGNAL)) {
            long lockId = m.a();
            long rstcnt = m.b();
            if (holds.defer(lockId, rstcnt, m.from())) {
                continue;
            }
            if (lockId == waitingLock && waitingRstcnt <= rstcnt) {
                aborted = true;
            }
            ack(m.from(), lockId, rstcnt);
        }
    }

    /** Answers {@code to}'s reset signal for {@code lockId} at reset count {@code rstcnt}. */
    void ack(EndpointId to, long lockId, long rstcnt) {
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

    long locks() {
        return table.spec().locks();
    }

    /**
     * Retries: failed CASes (RST, late releases, header rewrite); resets: resets completed by this
     * client; and the counts and reset latencies of {@link DecLockCounters}.
     */
    LockStats.Builder stats() {
        LockStats.Builder b = LockStats.builder();
        if (mnRecoveries > 0) {
            b.counter(DecLockCounters.MN_RECOVERIES, mnRecoveries); // only in runs with a memory-node restart
        }
        return b.counter(LockStats.RETRIES, retries).counter(LockStats.ABORTS, aborts)
                .counter(LockStats.RESETS, resets).counter(LockStats.HANDOVERS, handovers)
                .counter(DecLockCounters.FORCED_RESETS, forcedResets)
                .counter(DecLockCounters.REFETCH_READS, refetchReads).counter(DecLockCounters.MEMBER_READS, memberReads)
                .histogram(DecLockCounters.RESET_LATENCY_NS, ValueHistogram.of(resetLatenciesNs()));
    }

    Clock clock() {
        return clock;
    }

    Inbox inbox() {
        return inbox;
    }

    Mailbox mailbox() {
        return mailbox;
    }

    int channel() {
        return channel;
    }

    long signalPollNs() {
        return signalPollNs;
    }

    long leaseNs() {
        return leaseNs;
    }

    int maxRestarts() {
        return maxRestarts;
    }

    /** The duration of each reset this client completed, RST set to fresh header in place, in order. */
    long[] resetLatenciesNs() {
        return Arrays.copyOf(resetLatencies, resetLatencyCount);
    }

    /** READs of the member list, made when a queue entry names a slot this client has not seen yet. */
    long memberReads() {
        return memberReads;
    }

    /** READs of queue entries that were not written yet when first read (§4.3 refetching). */
    long refetchReads() {
        return refetchReads;
    }

    /** Acquisitions that waited {@code timeout-ns} without a grant (each started a reset). */
    long timeouts() {
        return timeouts;
    }

    /** Members a reset of this client did not hear from within the lease. */
    long presumedDead() {
        return presumedDead;
    }

    /** Memory-node restarts this client recovered from ({@link #joinGeneration}). */
    long mnRecoveries() {
        return mnRecoveries;
    }

    /** Resets this client took over from a resetter that stalled. */
    long takeovers() {
        return takeovers;
    }

    /** Resets asked for through {@link #forceReset} (each completed one is also in the reset latencies). */
    long forcedResets() {
        return forcedResets;
    }

    /** True for the client in member slot 0, the first to open the table. */
    boolean firstMember() {
        return mySlot == 0;
    }

    /** Releases that met a reset and changed nothing. */
    long ignoredReleases() {
        return ignoredReleases;
    }

    @Override
    public String toString() {
        return "CqlEngine[" + me + ", " + layout + "]";
    }
}
