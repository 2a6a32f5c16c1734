package io.lockfabric.lock.mcs;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
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

/**
 * Distributed MCS queue lock (Mellor-Crummey and Scott; ShiftLock §2.4 Algorithm 1, its MCS
 * baseline; layout in {@link McsLayout}).
 *
 * <p>The lock word is the tail of a FIFO queue of clients; each client knows only its successor,
 * learnt by message. <b>Acquire</b>: one fetch-and-store of the tail (masked CAS with
 * {@code cmpMask = 0}) puts this client at the end and returns the old tail. No predecessor: the
 * lock is ours, token = the word's release count. Otherwise SEND the predecessor
 * {@code Successor}, then wait (locally, no remote verb) for its {@code Handover}, which carries
 * our token. <b>Release</b>: with a successor known (its {@code Successor} arrived while we held
 * or waited: it is buffered), SEND it {@code Handover{token + 1}}. Otherwise CAS the word from
 * (count at our enqueue, tail = me) to (token + 1, null); if that fails someone swapped in behind
 * us: wait for its {@code Successor} and hand over. Uncontended cycle: 1 MCAS + 1 CAS; contended:
 * 1 MCAS + 2 SENDs per handover, and the waiter never polls remote memory.
 *
 * <p>Exclusive only (shared requests are granted exclusive). Fencing tokens are strict: they
 * increase by one from each grant to the next of the same lock, through handovers and through the
 * release count (modulo 2^24 in the word, see {@link McsLayout}). No fault tolerance: a crashed
 * holder or waiter breaks the queue and the lock blocks forever; a SEND to a dead peer fails the
 * acquisition or release with {@link LockUnavailableException}. A message lost between live
 * clients (which RDMA's reliable connections never do silently; the simulator's {@code drop} fault
 * does) is to its receiver the crash of its sender: a lost Successor or Handover blocks the queue
 * forever too, and the simulator asserts no liveness for mcs after one. {@link LockStats#retries()}
 * counts release CASes that lost to a new tail.
 *
 * <p>Times its phases as ShiftLock's writers ({@link LatencyBreakdown}), every request under writer
 * acquire: IA (the fetch-and-store), NP (the Successor SEND), WP (waiting for Handover); release IA
 * (the CAS, when no successor is known) and NS (waiting for a late Successor and the Handover SEND).
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint. One client per endpoint and table.
 */
final class McsClient implements LockClient {
    private final QueuePair qp;
    private final Table table;
    private final TableInbox inbox;
    private final long me;
    private final Clock clock;
    private final LatencyBreakdown.Recorder times;
    private long retries;
    private long handovers;

    McsClient(Endpoint endpoint, Table table) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.inbox = new TableInbox(endpoint, table);
        this.me = endpoint.id().pack();
        this.clock = endpoint.clock();
        this.times = new LatencyBreakdown.Recorder(clock.timesBreakdowns());
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        long addr = address(lockId);
        long issued = times.start(clock);
        long old = qp.maskedCas(addr, 0, 0, me, McsLayout.TAIL_MASK);
        long enqueued = times.lap(clock, Part.WRITER_ACQUIRE, Item.IA, issued);
        EndpointId pred = McsLayout.tailEndpoint(old);
        long count = McsLayout.count(old);
        if (pred == null) {
            times.completed(Part.WRITER_ACQUIRE);
            return new McsGrant(lockId, count, count);
        }
        send(pred, McsLayout.SUCCESSOR, lockId, 0);
        long sent = times.lap(clock, Part.WRITER_ACQUIRE, Item.NP, enqueued);
        Message handover = inbox.await(lockId, McsLayout.HANDOVER);
        times.lap(clock, Part.WRITER_ACQUIRE, Item.WP, sent);
        times.completed(Part.WRITER_ACQUIRE);
        handovers++;
        return new McsGrant(lockId, handover.a(), count);
    }

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof McsGrant g)) {
            throw new IllegalArgumentException("not a grant of this mcs client: " + grant);
        }
        long lockId = g.lockId();
        long next = g.fencingToken() + 1;
        long since = times.start(clock);
        Message succ = inbox.take(McsLayout.SUCCESSOR, lockId);
        if (succ == null) {
            long mine = McsLayout.word(g.enqueueCount(), me);
            long old = qp.cas(address(lockId), mine, McsLayout.word(next, 0));
            since = times.lap(clock, Part.RELEASE, Item.IA, since);
            if (old == mine) {
                times.completed(Part.RELEASE);
                return;
            }
            retries++;
            succ = inbox.await(lockId, McsLayout.SUCCESSOR);
        }
        send(succ.from(), McsLayout.HANDOVER, lockId, next);
        times.lap(clock, Part.RELEASE, Item.NS, since);
        times.completed(Part.RELEASE);
    }

    private void send(EndpointId to, int type, long lockId, long a) {
        try {
            inbox.send(to, type, lockId, a, 0);
        } catch (PeerUnreachableException e) {
            throw new LockUnavailableException("mcs lock " + lockId + ": queue neighbour " + to
                    + " is gone; mcs has no recovery, the lock is broken");
        }
    }

    @Override
    public long locks() {
        return table.spec().locks();
    }

    @Override
    public LockStats stats() {
        return times.snapshot().addTo(LockStats.builder().counter(LockStats.RETRIES, retries)
                .counter(LockStats.HANDOVERS, handovers)).build();
    }

    private long address(long lockId) {
        return LockTables.entryAddress(table, lockId, McsLayout.WORD_BYTES);
    }

    /** {@code enqueueCount}: the word's release count when this client swapped in. */
    private record McsGrant(long lockId, long fencingToken, long enqueueCount) implements Grant {
        @Override
        public Mode mode() {
            return Mode.EXCLUSIVE;
        }
    }
}
