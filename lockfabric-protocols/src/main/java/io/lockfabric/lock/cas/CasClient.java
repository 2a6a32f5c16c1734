package io.lockfabric.lock.cas;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
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
 * <p>No fault tolerance: a holder that crashes blocks the lock forever (that is the baseline).
 */
final class CasClient implements LockClient {
    private final QueuePair qp;
    private final Table table;
    private final long owner;
    private final TruncatedExponentialBackoff backoff;
    private long retries;

    CasClient(Endpoint endpoint, Table table, long backoffInitNs) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.owner = CasLayout.ownerField(endpoint.ordinal());
        this.backoff = new TruncatedExponentialBackoff(endpoint.clock(), endpoint.random(), backoffInitNs);
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        long addr = address(lockId);
        for (int attempt = 0; ; attempt++) {
            long old = qp.maskedCas(addr, 0, CasLayout.OWNER_MASK, owner, CasLayout.OWNER_MASK);
            if (CasLayout.owner(old) == 0) {
                backoff.completed();
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
        qp.cas(address(g.lockId()), CasLayout.held(g.fencingToken(), owner), CasLayout.releasedAfter(g.fencingToken()));
    }

    @Override
    public long locks() {
        return table.spec().locks();
    }

    @Override
    public LockStats stats() {
        return new LockStats(retries, 0, 0);
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
