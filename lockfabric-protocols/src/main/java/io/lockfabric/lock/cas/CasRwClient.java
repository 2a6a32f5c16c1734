package io.lockfabric.lock.cas;

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
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.TruncatedExponentialBackoff;

/**
 * Reader-writer word client (layout in {@link CasRwLayout}).
 *
 * <ul>
 *   <li>Shared acquire: FAA +1 on the shared count. Granted if there was no owner; otherwise the
 *       reader keeps its count (so no new writer can enter) and READs until the owner is gone.
 *       Shared release: FAA −1.</li>
 *   <li>Exclusive acquire: masked CAS installing the owner iff owner and shared count are both 0,
 *       retried after a truncated exponential backoff. Exclusive release: one MFAA that clears the
 *       owner and advances the epoch.</li>
 * </ul>
 *
 * Readers are preferred: a writer waits until no reader holds or waits. Uncontended cycles:
 * shared 2 FAA; exclusive 1 MCAS + 1 MFAA. No fault tolerance.
 *
 * <p>Times its phases in ShiftLock's Table 2 items ({@link LatencyBreakdown}): reader acquire IA
 * (the FAA) and WW (READs until the writer is gone); writer acquire IA (the first masked CAS) and
 * RT (the failed CASes and backoff after it); release IA.
 */
final class CasRwClient implements LockClient {
    private final QueuePair qp;
    private final Table table;
    private final Clock clock;
    private final long ownerField;
    private final long pollIntervalNs;
    private final TruncatedExponentialBackoff backoff;
    private final LatencyBreakdown.Recorder times;
    private long retries;

    CasRwClient(Endpoint endpoint, Table table, long backoffInitNs, long pollIntervalNs) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.clock = endpoint.clock();
        this.times = new LatencyBreakdown.Recorder(clock.timesBreakdowns());
        this.ownerField = CasRwLayout.ownerField(endpoint.ordinal());
        this.pollIntervalNs = pollIntervalNs;
        this.backoff = new TruncatedExponentialBackoff(clock, endpoint.random(), backoffInitNs);
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        long addr = address(lockId);
        long since = times.start(clock);
        if (mode == Mode.SHARED) {
            long word = qp.faa(addr, CasRwLayout.ONE_READER);
            since = times.lap(clock, Part.READER_ACQUIRE, Item.IA, since);
            if (CasRwLayout.shared(word) >= CasRwLayout.MAX_SHARED) {
                qp.faa(addr, -CasRwLayout.ONE_READER);
                throw new IllegalStateException("lock " + lockId + " has more than " + CasRwLayout.MAX_SHARED + " readers");
            }
            while (CasRwLayout.owner(word) != 0) {
                clock.sleepNanos(pollIntervalNs);
                word = qp.read8(addr);
            }
            times.lap(clock, Part.READER_ACQUIRE, Item.WW, since);
            times.completed(Part.READER_ACQUIRE);
            return new CasRwGrant(lockId, Mode.SHARED, CasRwLayout.epoch(word));
        }
        long busy = CasRwLayout.OWNER_MASK | CasRwLayout.SHARED_MASK;
        for (int attempt = 0; ; attempt++) {
            long old = qp.maskedCas(addr, 0, busy, ownerField, CasRwLayout.OWNER_MASK);
            if (attempt == 0) {
                since = times.lap(clock, Part.WRITER_ACQUIRE, Item.IA, since);
            }
            if ((old & busy) == 0) {
                backoff.completed();
                times.lap(clock, Part.WRITER_ACQUIRE, Item.RT, since);
                times.completed(Part.WRITER_ACQUIRE);
                return new CasRwGrant(lockId, Mode.EXCLUSIVE, CasRwLayout.epoch(old));
            }
            retries++;
            backoff.backoff(attempt);
        }
    }

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof CasRwGrant g)) {
            throw new IllegalArgumentException("not a grant of this cas-rw client: " + grant);
        }
        long addr = address(g.lockId());
        long issued = times.start(clock);
        if (g.mode() == Mode.SHARED) {
            qp.faa(addr, -CasRwLayout.ONE_READER); // signaled, as cas's release: see CasClient.release
        } else {
            qp.maskedFaa(addr, CasRwLayout.exclusiveReleaseAdd(ownerField), CasRwLayout.BOUNDARIES);
        }
        times.lap(clock, Part.RELEASE, Item.IA, issued);
        times.completed(Part.RELEASE);
    }

    @Override
    public long locks() {
        return table.spec().locks();
    }

    @Override
    public LockStats stats() {
        return times.snapshot().addTo(LockStats.builder().counter(LockStats.RETRIES, retries)
                .counter(LockStats.ABORTS, 0).counter(LockStats.RESETS, 0)).build();
    }

    private long address(long lockId) {
        return LockTables.entryAddress(table, lockId, CasRwLayout.WORD_BYTES);
    }

    private record CasRwGrant(long lockId, Mode mode, long fencingToken) implements Grant {
    }
}
