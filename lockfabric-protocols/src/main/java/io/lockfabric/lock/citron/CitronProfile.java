package io.lockfabric.lock.citron;

import io.lockfabric.lock.LockStats;

/**
 * Where one citron client's acquisitions spent their time, on its own clock (virtual time on the
 * simulator), by phase of Algorithm 2, plus the counts that explain the phases. Every nanosecond
 * between the start and the return of an {@code acquire} is in exactly one phase:
 * <ul>
 * <li>{@code ticketNs}: step (a), the MFAA on TMax (with the fast path's ancestor READs) and the
 * wait for TCnt to reach the ticket;</li>
 * <li>{@code ancestorNs}: step (b), the ancestor READs and the waits for an occupied ancestor;</li>
 * <li>{@code lockNs}: steps (c)+(d), the round trips of the leaf MCAS or the Occ MFAA, of the
 * notifications with the root READ, of the fast path's child MCASes and their undo, and of the
 * fencing token;</li>
 * <li>{@code leafRetryNs}: after a failed leaf MCAS: the rollback of the notifications and the
 * poll pause before step (b) again;</li>
 * <li>{@code tWaitNs}: an occupier's sleep until t0 + T_wait;</li>
 * <li>{@code descendantNs}: the descendant check (DCnt = DMax) and the leaf-parent's stale-bit
 * check;</li>
 * <li>{@code backoffNs}: giving back an aborted node and the randomized pause after an abort or
 * restart;</li>
 * <li>{@code otherNs}: the rest (spillover mutex, step 1, bookkeeping).</li>
 * </ul>
 * Counts: acquisitions begun, node attempts (one pass of steps (a)–(d), however it ended), nodes
 * acquired, failed leaf MCASes, fast-path child locks that found a child busy. Inequation (1):
 * {@code spans} notifications checked and their summed {@code spanNs} = t2 − t1 (from posting the
 * last ancestor READs to the notifications' completion, the interval T_wait must cover), of which
 * {@code ancestorReadNs} went to the ancestor READ batch's round trip. Cumulative since the client
 * was opened; {@link #minus} gives a phase of a run. A client reports its profile in its
 * {@link LockStats} as counters named {@code profile.*} ({@link #of} reads it back).
 */
public record CitronProfile(long acquisitions, long nodeAttempts, long nodesAcquired, long leafCasFailures,
                            long childLockFailures, long ticketNs, long ancestorNs, long lockNs, long leafRetryNs,
                            long tWaitNs, long descendantNs, long backoffNs, long otherNs, long spans, long spanNs,
                            long ancestorReadNs) {
    /** Nothing counted. */
    public static final CitronProfile ZERO = new CitronProfile(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    /** The profile's statistics are named {@code profile.<count>} and {@code profile.<phase>-ns}. */
    public static final String STAT_PREFIX = "profile.";
    /** The profile's statistics, in the order of the record's components. */
    private static final String[] STATS = {"acquisitions", "node-attempts", "nodes-acquired", "leaf-cas-failures",
            "child-lock-failures", "ticket-ns", "ancestor-ns", "lock-ns", "leaf-retry-ns", "t-wait-ns",
            "descendant-ns", "backoff-ns", "other-ns", "spans", "span-ns", "ancestor-read-ns"};

    /**
     * The profile a citron client reported in {@code stats}; {@link #ZERO} for statistics without
     * one (another protocol's).
     */
    public static CitronProfile of(LockStats stats) {
        long[] v = new long[STATS.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = stats.counter(STAT_PREFIX + STATS[i]);
        }
        return new CitronProfile(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12],
                v[13], v[14], v[15]);
    }

    /** Whether {@code stats} hold a citron profile (a citron client's, or a sum of them). */
    public static boolean reportedBy(LockStats stats) {
        return stats.has(STAT_PREFIX + STATS[0]);
    }

    /** Adds this profile to {@code stats}: what {@link #of} reads back. */
    LockStats.Builder addTo(LockStats.Builder stats) {
        long[] v = {acquisitions, nodeAttempts, nodesAcquired, leafCasFailures, childLockFailures, ticketNs,
                ancestorNs, lockNs, leafRetryNs, tWaitNs, descendantNs, backoffNs, otherNs, spans, spanNs,
                ancestorReadNs};
        for (int i = 0; i < v.length; i++) {
            stats.counter(STAT_PREFIX + STATS[i], v[i]);
        }
        return stats;
    }

    /** The phases of Algorithm 2 (and around it) an acquisition's time is split into. */
    enum Phase { TICKET, ANCESTORS, LOCK, LEAF_RETRY, T_WAIT, DESCENDANTS, BACKOFF, OTHER }

    /** All time inside acquire, in nanoseconds. */
    public long totalNs() {
        return ticketNs + ancestorNs + lockNs + leafRetryNs + tWaitNs + descendantNs + backoffNs + otherNs;
    }

    public CitronProfile plus(CitronProfile o) {
        return new CitronProfile(acquisitions + o.acquisitions, nodeAttempts + o.nodeAttempts,
                nodesAcquired + o.nodesAcquired, leafCasFailures + o.leafCasFailures,
                childLockFailures + o.childLockFailures, ticketNs + o.ticketNs, ancestorNs + o.ancestorNs,
                lockNs + o.lockNs, leafRetryNs + o.leafRetryNs, tWaitNs + o.tWaitNs, descendantNs + o.descendantNs,
                backoffNs + o.backoffNs, otherNs + o.otherNs, spans + o.spans, spanNs + o.spanNs,
                ancestorReadNs + o.ancestorReadNs);
    }

    public CitronProfile minus(CitronProfile o) {
        return new CitronProfile(acquisitions - o.acquisitions, nodeAttempts - o.nodeAttempts,
                nodesAcquired - o.nodesAcquired, leafCasFailures - o.leafCasFailures,
                childLockFailures - o.childLockFailures, ticketNs - o.ticketNs, ancestorNs - o.ancestorNs,
                lockNs - o.lockNs, leafRetryNs - o.leafRetryNs, tWaitNs - o.tWaitNs, descendantNs - o.descendantNs,
                backoffNs - o.backoffNs, otherNs - o.otherNs, spans - o.spans, spanNs - o.spanNs,
                ancestorReadNs - o.ancestorReadNs);
    }

    /** Accumulates a client's profile: the phase under way and when it began. Not thread-safe. */
    static final class Recorder {
        private final long[] ns = new long[Phase.values().length];
        private Phase phase;
        private long since;
        long acquisitions;
        long nodeAttempts;
        long nodesAcquired;
        long leafCasFailures;
        long childLockFailures;
        long spans;
        long spanNs;
        long ancestorReadNs;

        /** Ends the phase under way (if any) at {@code now} and begins {@code next} (null: none). */
        void enter(Phase next, long now) {
            if (phase != null) {
                ns[phase.ordinal()] += now - since;
            }
            phase = next;
            since = now;
        }

        CitronProfile snapshot() {
            return new CitronProfile(acquisitions, nodeAttempts, nodesAcquired, leafCasFailures, childLockFailures,
                    ns[Phase.TICKET.ordinal()], ns[Phase.ANCESTORS.ordinal()], ns[Phase.LOCK.ordinal()],
                    ns[Phase.LEAF_RETRY.ordinal()], ns[Phase.T_WAIT.ordinal()], ns[Phase.DESCENDANTS.ordinal()],
                    ns[Phase.BACKOFF.ordinal()], ns[Phase.OTHER.ordinal()], spans, spanNs, ancestorReadNs);
        }
    }
}
