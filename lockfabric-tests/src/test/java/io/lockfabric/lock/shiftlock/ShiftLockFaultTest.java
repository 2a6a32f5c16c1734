package io.lockfabric.lock.shiftlock;

import org.junit.jupiter.api.Tag;

import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.shiftlock.ShiftLockProbe.Point;
import io.lockfabric.lock.shiftlock.ShiftLockProtocol;
import io.lockfabric.lock.shiftlock.ShiftLockSimTest.Harness;
import io.lockfabric.lock.shiftlock.ShiftLockSimTest.Hold;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ShiftLock's recovery (§3.6) on the simulator, with the failure placed exactly: a probe crashes
 * (or pauses) one client at a chosen protocol point — a writer or reader holding the lock, a writer
 * queued after sending Successor, a writer that swapped the tail but has not sent Successor yet, a
 * reader waiting for the epoch. Four writers and two readers keep asking for the one lock; the
 * lease is 1 ms. After the failure no two live clients overlap, the lock is granted again within
 * the failure model's bound (3 leases to detect, one more for the poll gaps, plus drift and
 * slack) and never again stalls that long, the memory node's recovery is what revived it, and the
 * entry ends idle and consistent.
 */
@Tag("faults")
class ShiftLockFaultTest {
    static final long LEASE_NS = 1_000_000;
    static final LockOptions OPTIONS = LockOptions.parse(List.of("lease-ns=1ms"));
    static final long BOUND_NS = new ShiftLockProtocol().failureModel(OPTIONS).recoveryBoundNs();
    static final long RUN_NS = 20_000_000;
    static final int WRITERS = 4;
    static final int READERS = 2;

    private static Harness sixClients(long seed) {
        return sixClients(seed, OPTIONS);
    }

    private static Harness sixClients(long seed, LockOptions options) {
        var h = new Harness(seed, options);
        for (int i = 0; i < WRITERS; i++) {
            h.client(Mode.EXCLUSIVE, 5_000, 3_000, RUN_NS);
        }
        for (int i = 0; i < READERS; i++) {
            h.client(Mode.SHARED, 5_000, 10_000, RUN_NS);
        }
        return h;
    }

    /** Index of the victim: the first writer or the first reader. */
    private static int victim(Mode mode) {
        return mode == Mode.EXCLUSIVE ? 0 : WRITERS;
    }

    /** The longest time the lock went without a grant after {@code fromNs}, counted from {@code fromNs}. */
    private static long longestGapAfter(Harness h, long fromNs) {
        long last = fromNs;
        long worst = 0;
        for (Hold x : h.holds.stream().filter(x -> x.grantedAt() >= fromNs)
                .sorted(java.util.Comparator.comparingLong(Hold::grantedAt)).toList()) {
            worst = Math.max(worst, x.grantedAt() - last);
            last = x.grantedAt();
        }
        return worst;
    }

    @ParameterizedTest(name = "{0} crashes at {1} (occurrence {2}), seed {3}")
    @CsvSource({
            "EXCLUSIVE, GRANTED, 20, 1",
            "EXCLUSIVE, GRANTED, 37, 2",
            "SHARED, GRANTED, 20, 3",
            "EXCLUSIVE, WAITING_FOR_HANDOVER, 10, 4",
            "EXCLUSIVE, ENQUEUED_BEHIND, 10, 5",
            "EXCLUSIVE, ENQUEUED_BEHIND, 23, 6",
            "SHARED, READER_WAITING, 3, 7",
    })
    void aCrashAtThisPointIsRecoveredWithinTheBound(Mode mode, Point point, int occurrence, long seed) {
        var h = sixClients(seed);
        try {
            int victim = victim(mode);
            int[] seen = {0};
            h.probe = (p, lock, ep) -> {
                if (p == point && h.index(ep) == victim && ++seen[0] == occurrence) {
                    h.crashHere(ep);
                }
            };
            h.runAll();
            assertTrue(h.crashedAtNs > 0, "the victim reached " + point + " " + occurrence + " times");
            assertEquals(List.of(), h.violations);
            long crash = h.crashedAtNs;
            long gap = longestGapAfter(h, crash);
            assertTrue(gap <= BOUND_NS, "after the crash at " + crash + " the lock went " + gap + " ns without a grant"
                    + " (bound " + BOUND_NS + ")");
            assertTrue(gap >= 3 * LEASE_NS, "the crash did block the lock until a recovery: longest gap " + gap);
            assertTrue(h.totalStats().resets() >= 1, "a client's recovery rpc reset the lock: " + h.totalStats());
            long later = h.holds.stream().filter(x -> x.grantedAt() > crash + BOUND_NS).count();
            assertTrue(later > 100, "the lock is in steady use again after the recovery: " + later + " grants");
            h.assertEntryIdle();
        } finally {
            h.close();
        }
    }

    /**
     * A holder paused for six leases is recovered from like a crashed one, and when it resumes its
     * release must not land: the next era's entry stays consistent (and the late holder simply goes
     * on). Its own overlap with the next era's holders is the hazard the lease assumption excludes
     * (fencing tokens are the guard for that), so its holds are exempt from the overlap check.
     */
    @ParameterizedTest(name = "{0} paused at {1}")
    @CsvSource({
            "EXCLUSIVE, GRANTED, false",
            "SHARED, GRANTED, false",
            "EXCLUSIVE, WAITING_FOR_HANDOVER, true",
            "SHARED, READER_WAITING, true",
    })
    void aClientPausedPastItsLeaseDoesNotCorruptTheEntry(Mode mode, Point point, boolean noOverlapAtAll) {
        var h = sixClients(11);
        try {
            int victim = victim(mode);
            long pause = 6 * LEASE_NS;
            int[] seen = {0};
            long[] pausedAt = {-1};
            if (!noOverlapAtAll) {
                h.exempt.add(victim);
            }
            h.probe = (p, lock, ep) -> {
                if (p == point && h.index(ep) == victim && ++seen[0] == 10) {
                    pausedAt[0] = h.now();
                    h.fabric.pauseAt(h.fabric.simulation().current(), h.now(), pause);
                }
            };
            h.runAll();
            assertTrue(pausedAt[0] > 0, "the victim reached " + point);
            assertEquals(List.of(), h.violations);
            long gap = longestGapAfter(h, pausedAt[0]);
            assertTrue(gap <= BOUND_NS, "the others were blocked " + gap + " ns by the pause (bound " + BOUND_NS + ")");
            assertTrue(h.totalStats().resets() >= 1, "the pause was taken for a failure: " + h.totalStats());
            long victimLater = h.holds.stream().filter(x -> x.client() == victim && x.grantedAt() > pausedAt[0] + pause)
                    .count();
            assertTrue(victimLater > 10, "the paused client works normally after it resumes: " + victimLater);
            h.assertEntryIdle();
        } finally {
            h.close();
        }
    }

    /** With several era counters (the lock's era by hash) the recovery is the same. */
    @ParameterizedTest(name = "eras={0}")
    @CsvSource({"3", "8"})
    void severalEraCountersRecoverTheSame(int eras) {
        var h = sixClients(21, LockOptions.parse(List.of("lease-ns=1ms", "eras=" + eras)));
        try {
            int[] seen = {0};
            h.probe = (p, lock, ep) -> {
                if (p == Point.GRANTED && h.index(ep) == 0 && ++seen[0] == 15) {
                    h.crashHere(ep);
                }
            };
            h.runAll();
            assertEquals(List.of(), h.violations);
            long gap = longestGapAfter(h, h.crashedAtNs);
            assertTrue(gap >= 3 * LEASE_NS && gap <= BOUND_NS, "recovered after " + gap + " ns");
            assertEquals(1, h.totalStats().resets());
            h.assertEntryIdle();
        } finally {
            h.close();
        }
    }

    /** Sanity of the harness: without faults nothing recovers and nothing stalls. */
    @ParameterizedTest(name = "seed {0}")
    @CsvSource({"1", "2"})
    void withoutFaultsNothingIsRecovered(long seed) {
        var h = sixClients(seed);
        try {
            h.runAll();
            assertEquals(List.of(), h.violations);
            assertEquals(0, h.totalStats().resets() + h.totalStats().aborts() + h.totalStats().retries());
            assertTrue(longestGapAfter(h, 0) < 100_000, "no stall: " + longestGapAfter(h, 0));
            h.assertEntryIdle();
        } finally {
            h.close();
        }
    }
}
