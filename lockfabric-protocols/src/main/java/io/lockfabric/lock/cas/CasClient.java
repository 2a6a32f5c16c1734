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
 * CAS spinlock client. Acquire is one masked CAS that installs the owner iff the owner field is 0
 * (comparing only the owner bits, so the epoch of {@link CasLayout} needs no prior READ); it
 * returns the whole old word, whose epoch is the fencing token. On failure it retries, at once or
 * after a {@link TruncatedExponentialBackoff}. Release is one CAS from the held word to the next
 * epoch with owner 0, as in the ShiftLock artifact (whose release is a CAS, so its verb counts and
 * the memory node's atomic counters include it). Uncontended cycle: 1 MCAS + 1 CAS. Shared requests
 * are granted exclusive.
 *
 * <p>Times its phases as ShiftLock's Table 4 does for CAS ({@link LatencyBreakdown}): acquire IA
 * (the first CAS) and RT (the failed CASes and backoff after it), under the requested mode's part;
 * release IA.
 *
 * <p>No fault tolerance: a holder that crashes blocks the lock forever (that is the baseline).
 */
final class CasClient implements LockClient {
    private final QueuePair qp;
    private final Table table;
    private final long owner;
    private final TruncatedExponentialBackoff backoff;
    private final Clock clock;
    private final LatencyBreakdown.Recorder times;
    private long retries;

    CasClient(Endpoint endpoint, Table table, long backoffInitNs) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.owner = CasLayout.ownerField(endpoint.ordinal());
        this.clock = endpoint.clock();
        this.times = new LatencyBreakdown.Recorder(clock.timesBreakdowns());
        this.backoff = new TruncatedExponentialBackoff(clock, endpoint.random(), backoffInitNs);
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        long addr = address(lockId);
        Part part = mode == Mode.SHARED ? Part.READER_ACQUIRE : Part.WRITER_ACQUIRE;
        long since = times.start(clock);
        for (int attempt = 0; ; attempt++) {
            long old = qp.maskedCas(addr, 0, CasLayout.OWNER_MASK, owner, CasLayout.OWNER_MASK);
            if (attempt == 0) {
                since = times.lap(clock, part, Item.IA, since);
            }
            if (CasLayout.owner(old) == 0) {
                backoff.completed();
                times.lap(clock, part, Item.RT, since);
                times.completed(part);
                return new CasGrant(lockId, CasLayout.epoch(old));
            }
            retries++;
            backoff.backoff(attempt);
        }
    }

    @Override
    public void release(Grant grant) {
        if (!(grant instanceof CasGrant g)) {
            throw new IllegalArgumentException("not a grant of this cas client: " + grant);
        }
        long issued = times.start(clock);
        // signaled, not posted: a releaser that went on at once would win its next contended CAS
        // against the waiters backing off (on tcp, Zipf 0.99: p99 up 1.4-1.65x, no gain in goodput)
        qp.cas(address(g.lockId()), CasLayout.held(g.fencingToken(), owner), CasLayout.releasedAfter(g.fencingToken()));
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
        return LockTables.entryAddress(table, lockId, CasLayout.WORD_BYTES);
    }

    private record CasGrant(long lockId, long fencingToken) implements Grant {
        @Override
        public Mode mode() {
            return Mode.EXCLUSIVE;
        }
    }
}
