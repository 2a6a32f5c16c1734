package io.lockfabric.lock.dslr;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.TruncatedExponentialBackoff;

/**
 * DSLR client (Yoon, Chowdhury, Mozafari, SIGMOD'18; layout in {@link DslrLayout}).
 *
 * <p><b>Acquire</b>: one FAA takes a ticket (+1 on maxS or maxX); the returned word {@code prev}
 * says who is ahead. A reader is granted once {@code nX == prev.maxX} (every earlier writer is
 * done), a writer once also {@code nS == prev.maxS}. Until then it READs the word, waiting before
 * each READ {@code ω × (writers ahead + readers ahead / 10)} (readers ahead count only for
 * writers), capped. <b>Release</b>: one FAA (+1 on nS or nX). Uncontended cycle: 2 FAA.
 *
 * <p><b>Overflow reset</b>: if {@code prev} shows a max at or past {@code countMax}, a reset is
 * under way: the client undoes its FAA, backs off and retries. The client whose ticket is
 * {@code countMax − 1} (the last valid one) is the resetter: after its own release it CASes the
 * word from "every valid ticket released" to 0, retrying while holders finish and undos land.
 * Because tickets restart at each reset, fencing tokens (the ticket) are not strict.
 *
 * <p>Lease-based recovery from crashed holders is not implemented yet: a crashed holder blocks
 * the lock.
 */
final class DslrClient implements LockClient {
    /** Writers weigh readers ahead of them at one tenth (DSLR's dynamic interval). */
    static final int READER_WEIGHT_DIVISOR = 10;

    private final QueuePair qp;
    private final Table table;
    private final Clock clock;
    private final long omegaNs;
    private final long maxWaitNs;
    private final int countMax;
    private final TruncatedExponentialBackoff resetBackoff;
    private long retries;
    private long resets;

    DslrClient(Endpoint endpoint, Table table, long omegaNs, long maxWaitNs, int countMax, long resetBackoffNs) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.clock = endpoint.clock();
        this.omegaNs = omegaNs;
        this.maxWaitNs = maxWaitNs;
        this.countMax = countMax;
        this.resetBackoff = new TruncatedExponentialBackoff(clock, endpoint.random(), resetBackoffNs);
    }

    @Override
    public Grant acquire(long lockId, Mode mode) {
        long addr = address(lockId);
        boolean shared = mode == Mode.SHARED;
        long delta = shared ? DslrLayout.ONE_MAX_S : DslrLayout.ONE_MAX_X;
        long prev;
        for (int attempt = 0; ; attempt++) {
            prev = qp.faa(addr, delta);
            if (DslrLayout.maxS(prev) < countMax && DslrLayout.maxX(prev) < countMax) {
                break;
            }
            qp.faa(addr, -delta); // a reset is under way: give the ticket back
            retries++;
            resetBackoff.backoff(attempt);
        }
        resetBackoff.completed();
        int ticket = shared ? DslrLayout.maxS(prev) : DslrLayout.maxX(prev);
        int waitX = DslrLayout.maxX(prev);
        int waitS = DslrLayout.maxS(prev);
        long word = prev;
        while (!granted(word, shared, waitX, waitS)) {
            clock.sleepNanos(waitNanos(word, shared, waitX, waitS));
            word = qp.read8(addr);
        }
        return new DslrGrant(lockId, mode, ticket, prev);
    }

    private static boolean granted(long word, boolean shared, int waitX, int waitS) {
        return DslrLayout.nX(word) == waitX && (shared || DslrLayout.nS(word) == waitS);
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
        qp.faa(addr, shared ? DslrLayout.ONE_N_S : DslrLayout.ONE_N_X);
        if (g.fencingToken() == countMax - 1) {
            resetAfterOverflow(addr, shared, g.prev());
        }
    }

    /**
     * The last valid ticket's holder resets the word once every valid ticket is released. No
     * ticket is handed out meanwhile (every FAA sees a max at countMax and is undone), so "every
     * valid ticket released" is a single known value.
     */
    private void resetAfterOverflow(long addr, boolean shared, long prev) {
        int finalX = shared ? DslrLayout.maxX(prev) : countMax;
        int finalS = shared ? countMax : DslrLayout.maxS(prev);
        long allDone = DslrLayout.word(finalX, finalS, finalX, finalS);
        for (int attempt = 0; qp.cas(addr, allDone, 0) != allDone; attempt++) {
            resetBackoff.backoff(attempt);
        }
        resets++;
    }

    @Override
    public long locks() {
        return table.spec().locks();
    }

    @Override
    public LockStats stats() {
        return new LockStats(retries, 0, resets);
    }

    private long address(long lockId) {
        if (lockId < 0 || lockId >= table.spec().locks()) {
            throw new IllegalArgumentException("lock " + lockId + " outside [0, " + table.spec().locks() + ")");
        }
        return table.address() + lockId * DslrLayout.WORD_BYTES;
    }

    /** The ticket is the fencing token; {@code prev} is the word the ticket FAA returned. */
    private record DslrGrant(long lockId, Mode mode, long fencingToken, long prev) implements Grant {
    }
}
