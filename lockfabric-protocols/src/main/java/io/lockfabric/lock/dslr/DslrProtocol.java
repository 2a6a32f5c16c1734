package io.lockfabric.lock.dslr;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.FabricTiming;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.TruncatedExponentialBackoff;

import java.util.List;

/**
 * {@code dslr}: DSLR's bakery reader-writer lock with lease-based recovery from crashed holders.
 * See {@link DslrClient} for the protocol and which tickets a lease reset skips. Option
 * {@code waiting=backoff} makes it DSLR+ (DecLock's baseline: truncated exponential backoff between
 * polls, {@link DslrPlusBackoff}); the default keeps DSLR's dynamic interval.
 */
public final class DslrProtocol implements LockProtocol {
    public static final String NAME = "dslr";
    public static final LockOption OMEGA_NS = new LockOption("omega-ns", 20_000,
            "dynamic waiting interval per holder or waiter ahead (authors: 20 us; ShiftLock artifact: 1862 ns)");
    public static final LockOption MAX_WAIT_NS = new LockOption("max-wait-ns", 1_000_000,
            "cap on one dynamic wait before a READ");
    public static final LockOption COUNT_MAX = new LockOption("count-max", DslrLayout.COUNT_MAX,
            "ticket count that triggers the overflow reset (at most 32768)");
    public static final LockOption RESET_BACKOFF_NS = new LockOption("reset-backoff-ns",
            TruncatedExponentialBackoff.DEFAULT_INIT_NS,
            "initial backoff of a client that met a reset in progress (and of the resetter's CAS)");
    /**
     * DSLR's lease: 10 ms in the paper, on RDMA; as many round trips on another fabric, and at
     * least {@link FabricTiming#LEASE_STALLS} of its stalls (shm: 200 ms, not 10 ms).
     */
    public static final long DEFAULT_LEASE_NS = 10_000_000;
    public static final LockOption LEASE_NS = LockOption.wait("lease-ns",
            t -> t.scaledAtLeast(DEFAULT_LEASE_NS, FabricTiming.LEASE_STALLS),
            "longest a holder may keep the lock; waiters skip counters stuck for 2 x lease (inf: no recovery)");
    public static final LockOption MAX_RESTARTS = new LockOption("max-restarts", 8,
            "fresh tickets an acquisition takes after its ticket was skipped, before giving up");
    /** Index of {@link #WAITING}'s DSLR+ choice. */
    public static final long WAITING_BACKOFF = 1;
    public static final LockOption WAITING = LockOption.choice("waiting",
            "how a waiter spaces its polls: DSLR's dynamic interval (omega-ns per holder or waiter ahead), or "
                    + "DSLR+'s truncated exponential backoff as DecLock's evaluation ran it (its artifact's 100 ns "
                    + "doubling to at most 3.2 us, plus up to 2 us jitter)", "dynamic", "backoff");
    /** A lease must leave room for round trips and timer slack. */
    public static final long MIN_LEASE_NS = 100_000;
    /** The lease must be at least this many poll caps, so a waiter notices its grant early in it. */
    public static final int LEASE_PER_MAX_WAIT = 4;
    /**
     * Round trips, CAS retries and timer overshoot allowed for in the recovery bound (a cold JVM's
     * class loading or a descheduled thread can exceed it on a real clock; virtual time cannot).
     */
    public static final long RECOVERY_SLACK_NS = 500_000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "DSLR bakery reader-writer lock: FAA tickets, READ polling with dynamic intervals";
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    /** Tickets restart at every overflow reset. */
    @Override
    public boolean strictFencing() {
        return false;
    }

    @Override
    public List<LockOption> options() {
        return List.of(OMEGA_NS, MAX_WAIT_NS, COUNT_MAX, RESET_BACKOFF_NS, LEASE_NS, MAX_RESTARTS, WAITING);
    }

    /**
     * With a lease {@code L} and poll cap {@code P = max-wait}: a crashed client (a holder, or a
     * waiter whose turn comes) blocks the lock for at most {@code 2L + 3P + slack}, counted from
     * the later of the crash and the first waiter's request: the waiter first sees the stuck
     * counters within one poll, resets {@code 2L} later (a writer stuck only on crashed readers of
     * its group: {@code 3L/2} after its turn began) at its next poll, and the ticket next in line
     * sees the reset at its next poll. Slack: round trips and timer overshoot. {@code k} crashed
     * clients in line cost up to {@code k} bounds. Holders must finish within {@code L} of their
     * grant on their own clock (DSLR's assumption); a starved live waiter may be skipped and
     * restart, which the bound does not cover.
     */
    @Override
    public FailureModel failureModel(LockOptions options) {
        long lease = validLease(options);
        if (lease == Long.MAX_VALUE) {
            return FailureModel.NONE;
        }
        long bound;
        try {
            bound = Math.addExact(Math.addExact(Math.multiplyExact(2, lease), Math.multiplyExact(3, options.get(MAX_WAIT_NS))),
                    RECOVERY_SLACK_NS);
        } catch (ArithmeticException huge) {
            bound = Long.MAX_VALUE;
        }
        return FailureModel.lease(lease, bound, "waiters skip a crashed writer after 2 x lease, a writer skips"
                + " crashed readers of its group after 1.5 x lease; a holder past its lease does not release"
                + " blindly (writer: guarded CAS, reader: dropped)");
    }

    private static long validLease(LockOptions options) {
        long lease = options.get(LEASE_NS);
        if (lease == Long.MAX_VALUE) {
            return lease;
        }
        long maxWait = options.get(MAX_WAIT_NS);
        if (lease < MIN_LEASE_NS) {
            throw new IllegalArgumentException("lease-ns must be >= " + MIN_LEASE_NS + " (or inf), got " + lease);
        }
        if (maxWait > lease / LEASE_PER_MAX_WAIT) {
            throw new IllegalArgumentException("lease-ns (" + lease + ") must be at least " + LEASE_PER_MAX_WAIT
                    + " x max-wait-ns (" + maxWait + "): lower max-wait-ns or raise the lease");
        }
        return lease;
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        return LockTables.fixedStride(tableName, NAME, locks, DslrLayout.WORD_BYTES);
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        long countMax = options.get(COUNT_MAX);
        if (countMax < 2 || countMax > DslrLayout.COUNT_MAX) {
            throw new IllegalArgumentException("count-max must be in [2, " + DslrLayout.COUNT_MAX + "], got " + countMax);
        }
        long omega = options.get(OMEGA_NS);
        long maxWait = options.get(MAX_WAIT_NS);
        if (omega < 0 || maxWait < 0) {
            throw new IllegalArgumentException("omega-ns and max-wait-ns must be >= 0");
        }
        long maxRestarts = options.get(MAX_RESTARTS);
        if (maxRestarts < 0 || maxRestarts > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("max-restarts must be in [0, " + Integer.MAX_VALUE + "], got " + maxRestarts);
        }
        return new DslrClient(endpoint, table, omega, maxWait, (int) countMax, options.get(RESET_BACKOFF_NS),
                validLease(options), (int) maxRestarts, options.get(WAITING) == WAITING_BACKOFF);
    }
}
