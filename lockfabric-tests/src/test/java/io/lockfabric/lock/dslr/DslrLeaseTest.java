package io.lockfabric.lock.dslr;

import io.lockfabric.check.History;
import io.lockfabric.check.LockStress;
import io.lockfabric.check.MutualExclusionChecker;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.ForwardingEndpoint;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DSLR's lease-based recovery on the local fabric: crashed holders (an endpoint that never
 * releases) and crashed waiters (a raw ticket FAA nobody follows up) are skipped within the declared
 * recovery bound, holders past their lease do not corrupt the counters, and mutual exclusion holds.
 * Times are asserted only as generous upper bounds.
 */
@Tag("faults")
@Timeout(20)
class DslrLeaseTest {
    /** Short, but long enough that a 2-core machine under a Maven build rarely stalls a holder past it. */
    private static final long LEASE_NS = 10_000_000;
    /** Scheduling noise on a loaded 2-core machine; the point is "recovers", not the exact figure. */
    private static final long MARGIN_NS = 250_000_000;

    private final DslrProtocol dslr = new DslrProtocol();

    private static LockOptions shortLease(Map<String, Long> extra) {
        Map<String, Long> m = new HashMap<>(Map.of("lease-ns", LEASE_NS, "max-wait-ns", 500_000L, "omega-ns", 2_000L));
        m.putAll(extra);
        return LockOptions.of(m);
    }

    /** One client on its own endpoint and thread. */
    private final class Client implements AutoCloseable {
        final Endpoint endpoint;
        final DslrClient lock;
        final QueuePair qp;
        final long address;
        final History.Recorder recorder;

        Client(LocalFabric fabric, String table, LockOptions options, History history, int id) {
            this(fabric.newEndpoint(), table, options, history, id);
        }

        Client(Endpoint endpoint, String table, LockOptions options, History history, int id) {
            this.endpoint = endpoint;
            lock = (DslrClient) dslr.open(endpoint, table, 1, options);
            qp = endpoint.queuePair(0);
            address = endpoint.openTable(dslr.tableSpec(table, 1, options)).address();
            recorder = history == null ? null : history.recorder(id);
        }

        long word() {
            return qp.read8(address);
        }

        Grant acquire(Mode mode) {
            Grant g = lock.acquire(0, mode);
            if (recorder != null) {
                recorder.granted(g);
            }
            return g;
        }

        void release(Grant g) {
            if (recorder != null) {
                recorder.releasing(g);
            }
            lock.release(g);
        }

        /** Acquire, hold briefly, release, on a fresh thread; completes with the acquire latency. */
        CompletableFuture<Long> cycleAsync(LocalFabric fabric, Mode mode) {
            return CompletableFuture.supplyAsync(() -> {
                long start = fabric.observerNanoTime();
                Grant g = acquire(mode);
                long waited = fabric.observerNanoTime() - start;
                LockSupport.parkNanos(50_000);
                release(g);
                return waited;
            }, r -> Thread.ofPlatform().start(r));
        }

        @Override
        public void close() {
            endpoint.close();
        }
    }

    private static long await(CompletableFuture<Long> f) throws Exception {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    private long bound(LockOptions options) {
        return dslr.failureModel(options).recoveryBoundNs();
    }

    /**
     * One writer cycle, then the word must be idle and consistent. A reader stalled past its lease
     * drops its release by design; the writer's group-reader skip then restores n == max.
     */
    private static void settleAndAssertConsistent(Client c) {
        c.lock.release(c.lock.acquire(0, Mode.EXCLUSIVE));
        assertConsistentIdle(c.word());
    }

    private static void assertConsistentIdle(long word) {
        assertEquals(DslrLayout.maxX(word), DslrLayout.nX(word), "every exclusive ticket served or skipped");
        assertEquals(DslrLayout.maxS(word), DslrLayout.nS(word), "every shared ticket served or skipped");
    }

    @Test
    void failureModelDeclaresTheLeaseAndTheBound() {
        FailureModel m = dslr.failureModel(LockOptions.DEFAULTS);
        assertTrue(m.recoversFromCrash());
        assertEquals(DslrProtocol.DEFAULT_LEASE_NS, m.leaseNs());
        assertEquals(2 * 10_000_000L + 3 * 1_000_000L + DslrProtocol.RECOVERY_SLACK_NS, m.recoveryBoundNs());
        assertSame(FailureModel.NONE, dslr.failureModel(LockOptions.of(Map.of("lease-ns", Long.MAX_VALUE))));
        var tooShort = LockOptions.of(Map.of("lease-ns", 2_000_000L)); // max-wait stays 1 ms
        var e = assertThrows(IllegalArgumentException.class, () -> dslr.failureModel(tooShort));
        assertTrue(e.getMessage().contains("max-wait-ns"), e.getMessage());
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint()) {
            assertThrows(IllegalArgumentException.class, () -> dslr.open(a, "bad-lease", 1, tooShort));
            assertThrows(IllegalArgumentException.class,
                    () -> dslr.open(a, "bad-lease", 1, LockOptions.of(Map.of("lease-ns", 1_000L))));
        }
    }

    @Test
    void crashedWriterIsSkippedAndReadersAndWritersGetTheLockWithinTheBound() throws Exception {
        LockOptions options = shortLease(Map.of());
        History history = new History(System::nanoTime);
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Client crashed = new Client(fabric, "crash-w", options, null, 0);
            crashed.acquire(Mode.EXCLUSIVE); // and never releases
            List<Client> waiters = new ArrayList<>();
            List<CompletableFuture<Long>> cycles = new ArrayList<>();
            Mode[] modes = {Mode.SHARED, Mode.EXCLUSIVE, Mode.SHARED, Mode.EXCLUSIVE};
            for (int i = 0; i < modes.length; i++) {
                Client c = new Client(fabric, "crash-w", options, history, i + 1);
                waiters.add(c);
                cycles.add(c.cycleAsync(fabric, modes[i]));
            }
            long leaseResets = 0;
            for (int i = 0; i < cycles.size(); i++) {
                long waited = await(cycles.get(i));
                assertTrue(waited < bound(options) * (i + 1) + MARGIN_NS, "waited " + waited + " ns");
                leaseResets += waiters.get(i).lock.leaseResets();
            }
            assertTrue(leaseResets >= 1, "a reset skipped the crashed writer");
            assertTrue(MutualExclusionChecker.overlaps(history.holds()).isEmpty(), "no conflicting overlap");
            settleAndAssertConsistent(waiters.getFirst());
        }
    }

    @Test
    void severalCrashedClientsInARowAreSkippedOneByOne() throws Exception {
        LockOptions options = shortLease(Map.of());
        History history = new History(System::nanoTime);
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Client crashed = new Client(fabric, "crash-row", options, null, 0);
            crashed.acquire(Mode.EXCLUSIVE);
            // Two writers and a reader took tickets and died before their turn.
            crashed.qp.faa(crashed.address, DslrLayout.ONE_MAX_X);
            crashed.qp.faa(crashed.address, DslrLayout.ONE_MAX_X);
            crashed.qp.faa(crashed.address, DslrLayout.ONE_MAX_S);
            Client writer = new Client(fabric, "crash-row", options, history, 1);
            Client reader = new Client(fabric, "crash-row", options, history, 2);
            var w = writer.cycleAsync(fabric, Mode.EXCLUSIVE);
            var r = reader.cycleAsync(fabric, Mode.SHARED);
            // Three writers to skip (2 × lease each), then the dead reader of the writer's group (1.5 × lease).
            long waitedW = await(w);
            long waitedR = await(r);
            assertTrue(waitedW < 4 * bound(options) + MARGIN_NS, "writer waited " + waitedW + " ns");
            assertTrue(waitedR < 4 * bound(options) + MARGIN_NS, "reader waited " + waitedR + " ns");
            assertTrue(writer.lock.leaseResets() + reader.lock.leaseResets() >= 4, "three writers and one reader skipped");
            assertTrue(writer.lock.stats().resets() + reader.lock.stats().resets() >= 4);
            assertTrue(MutualExclusionChecker.overlaps(history.holds()).isEmpty());
            settleAndAssertConsistent(writer);
        }
    }

    @Test
    void crashedReaderAmongReadersDelaysOnlyTheNextWriter() throws Exception {
        LockOptions options = shortLease(Map.of());
        History history = new History(System::nanoTime);
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Client crashed = new Client(fabric, "crash-r", options, null, 0);
            crashed.acquire(Mode.SHARED);
            Client r1 = new Client(fabric, "crash-r", options, history, 1);
            Client r2 = new Client(fabric, "crash-r", options, history, 2);
            await(r1.cycleAsync(fabric, Mode.SHARED));
            await(r2.cycleAsync(fabric, Mode.SHARED));
            assertEquals(0, r1.lock.leaseResets() + r2.lock.leaseResets(), "readers share with the dead reader");
            Client w = new Client(fabric, "crash-r", options, history, 3);
            var writer = w.cycleAsync(fabric, Mode.EXCLUSIVE);
            var reader = r1.cycleAsync(fabric, Mode.SHARED); // behind the writer
            long waited = await(writer);
            await(reader);
            assertTrue(waited < bound(options) + MARGIN_NS, "writer waited " + waited + " ns");
            // Normally the writer skips the dead reader of its group itself (1.5 × lease) before the
            // reader behind it would skip the writer (2 × lease); a starved writer thread may lose.
            assertTrue(w.lock.leaseResets() + r1.lock.leaseResets() >= 1, "the dead reader was skipped");
            assertTrue(MutualExclusionChecker.overlaps(history.holds()).isEmpty());
            settleAndAssertConsistent(w);
        }
    }

    @Test
    void crashedLastExclusiveTicketDoesNotBlockTheOverflowReset() throws Exception {
        LockOptions options = shortLease(Map.of("count-max", 4L));
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Client a = new Client(fabric, "ovf-x", options, null, 0);
            for (int i = 0; i < 3; i++) {
                a.lock.release(a.acquire(Mode.EXCLUSIVE));
            }
            Grant last = a.acquire(Mode.EXCLUSIVE);
            assertEquals(3, last.fencingToken(), "the resetter's ticket");
            // a crashes holding it: every newcomer bounces off the overflow.
            Client b = new Client(fabric, "ovf-x", options, null, 1);
            Client c = new Client(fabric, "ovf-x", options, null, 2);
            var fb = b.cycleAsync(fabric, Mode.EXCLUSIVE);
            var fc = c.cycleAsync(fabric, Mode.SHARED);
            long waitedB = await(fb);
            long waitedC = await(fc);
            assertTrue(Math.max(waitedB, waitedC) < 2 * bound(options) + MARGIN_NS, "waited " + waitedB + "/" + waitedC);
            assertTrue(b.lock.leaseResets() + c.lock.leaseResets() >= 1, "the dead last writer was skipped");
            assertTrue(b.lock.stats().retries() + c.lock.stats().retries() > 0, "they bounced off the overflow");
            long word = b.word();
            assertTrue(DslrLayout.maxX(word) < 4 && DslrLayout.maxS(word) < 4, "a new epoch: " + Long.toHexString(word));
            settleAndAssertConsistent(b);
        }
    }

    @Test
    void crashedLastSharedTicketDoesNotBlockTheOverflowReset() throws Exception {
        LockOptions options = shortLease(Map.of("count-max", 4L));
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Client a = new Client(fabric, "ovf-s", options, null, 0);
            Client other = new Client(fabric, "ovf-s", options, null, 1);
            for (int i = 0; i < 2; i++) {
                a.lock.release(a.acquire(Mode.SHARED));
            }
            Grant live = other.acquire(Mode.SHARED); // ticket 2, alive
            Grant dead = a.acquire(Mode.SHARED);     // ticket 3, the resetter, crashes
            assertEquals(3, dead.fencingToken());
            other.lock.release(live);
            Client w = new Client(fabric, "ovf-s", options, null, 2);
            long waited = await(w.cycleAsync(fabric, Mode.EXCLUSIVE));
            assertTrue(waited < bound(options) + MARGIN_NS, "waited " + waited + " ns");
            assertTrue(w.lock.leaseResets() >= 1, "the bouncing writer skipped the dead last reader");
            assertTrue(w.lock.stats().resets() >= 2, "lease reset and the epoch reset: " + w.lock.stats());
            assertTrue(DslrLayout.maxS(w.word()) < 4, "a new epoch");
            settleAndAssertConsistent(w);
        }
    }

    @Test
    void crashJustBeforeTheLastTicketLetsTheResetterRecoverAndReset() throws Exception {
        LockOptions options = shortLease(Map.of("count-max", 4L));
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Client a = new Client(fabric, "ovf-pre", options, null, 0);
            for (int i = 0; i < 2; i++) {
                a.lock.release(a.acquire(Mode.EXCLUSIVE));
            }
            a.acquire(Mode.EXCLUSIVE); // ticket 2, crashes
            Client resetter = new Client(fabric, "ovf-pre", options, null, 1);
            var fr = CompletableFuture.supplyAsync(() -> {
                Grant g = resetter.acquire(Mode.EXCLUSIVE);
                resetter.release(g);
                return g.fencingToken();
            }, r -> Thread.ofPlatform().start(r));
            long token = fr.get(10, TimeUnit.SECONDS);
            assertEquals(3, token, "the waiter behind the crash held the last ticket");
            assertEquals(1, resetter.lock.leaseResets());
            assertEquals(2, resetter.lock.stats().resets(), "one lease reset, one overflow reset");
            assertEquals(0, resetter.word(), "the resetter's all-done CAS still ends the epoch");
        }
    }

    @Test
    void pausedWriterReleasingLateDoesNotFreeTheNextHoldersLock() throws Exception {
        LockOptions options = shortLease(Map.of());
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Client paused = new Client(fabric, "late-w", options, null, 0);
            Grant stale = paused.acquire(Mode.EXCLUSIVE);
            Client next = new Client(fabric, "late-w", options, null, 1);
            var f = CompletableFuture.supplyAsync(() -> next.acquire(Mode.EXCLUSIVE), r -> Thread.ofPlatform().start(r));
            Grant held = f.get(10, TimeUnit.SECONDS); // granted by skipping the paused writer
            assertEquals(1, next.lock.leaseResets());
            long before = paused.word();
            paused.lock.release(stale); // wakes up past its lease
            long after = paused.word();
            assertEquals(1, paused.lock.lateReleases());
            assertEquals(before, after, "the late release must not advance nX: that would admit the next ticket");
            assertEquals(held.fencingToken(), DslrLayout.nX(after), "still the new holder's turn");
            next.lock.release(held);
            assertConsistentIdle(next.word());
            // A late release that was NOT skipped still releases (guarded CAS succeeds).
            Grant alone = paused.acquire(Mode.EXCLUSIVE);
            LockSupport.parkNanos(2 * LEASE_NS);
            paused.lock.release(alone);
            assertEquals(2, paused.lock.lateReleases());
            assertConsistentIdle(paused.word());
        }
    }

    @Test
    void pausedReaderReleasingLateIsDroppedAndLaterWritersStillExclude() throws Exception {
        LockOptions options = shortLease(Map.of());
        History history = new History(System::nanoTime);
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Client paused = new Client(fabric, "late-r", options, null, 0);
            Grant stale = paused.acquire(Mode.SHARED);
            Client w1 = new Client(fabric, "late-r", options, history, 1);
            Grant held = CompletableFuture.supplyAsync(() -> w1.acquire(Mode.EXCLUSIVE), r -> Thread.ofPlatform().start(r))
                    .get(10, TimeUnit.SECONDS);
            long before = paused.word();
            paused.lock.release(stale);
            assertEquals(before, paused.word(), "a late reader release is dropped: the writer already counted it");
            Client w2 = new Client(fabric, "late-r", options, history, 2);
            var second = w2.cycleAsync(fabric, Mode.EXCLUSIVE);
            LockSupport.parkNanos(200_000);
            w1.release(held);
            await(second);
            assertEquals(0, w2.lock.leaseResets(), "no stall: the counters stayed exact");
            assertTrue(MutualExclusionChecker.overlaps(history.holds()).isEmpty());
            settleAndAssertConsistent(w2);
        }
    }

    @Test
    void aClientWhoseTicketWasSkippedRestartsAndGivesUpWhenBounded() throws Exception {
        for (long maxRestarts : new long[] {0, 1}) {
            LockOptions options = LockOptions.of(Map.of("lease-ns", 1_000_000_000L, "max-restarts", maxRestarts));
            try (LocalFabric fabric = LocalFabric.builder().build()) {
                Client dead = new Client(fabric, "skipped", options, null, 0);
                dead.qp.faa(dead.address, DslrLayout.ONE_MAX_X); // ticket 0, never released
                Client w = new Client(fabric, "skipped", options, null, 1);
                var f = CompletableFuture.supplyAsync(() -> w.acquire(Mode.EXCLUSIVE), r -> Thread.ofPlatform().start(r));
                long word;
                while (DslrLayout.maxX(word = dead.word()) < 2) {
                    Thread.onSpinWait();
                }
                // Someone else's reset skips both tickets 0 and 1 (the live waiter's).
                assertEquals(word, dead.qp.cas(dead.address, word, DslrLayout.withNX(word, 2)));
                if (maxRestarts == 0) {
                    var e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
                    assertInstanceOf(LockUnavailableException.class, e.getCause());
                    assertTrue(e.getCause().getMessage().contains("max-restarts=0"), e.getCause().getMessage());
                } else {
                    Grant g = f.get(10, TimeUnit.SECONDS);
                    assertEquals(2, g.fencingToken(), "a fresh ticket");
                    assertEquals(1, w.lock.stats().aborts());
                    w.lock.release(g);
                    assertConsistentIdle(w.word());
                }
            }
        }
    }

    @Test
    void aResetBehindAReaderAndAWriterSkipsOnlyTheCrashedWriter() throws Exception {
        LockOptions options = shortLease(Map.of());
        History history = new History(System::nanoTime);
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Client crashed = new Client(fabric, "skip-min", options, null, 0);
            crashed.acquire(Mode.EXCLUSIVE);
            Client reader = new Client(fabric, "skip-min", options, history, 1);
            Client writer = new Client(fabric, "skip-min", options, history, 2);
            var r = CompletableFuture.supplyAsync(() -> {
                Grant g = reader.acquire(Mode.SHARED);
                LockSupport.parkNanos(500_000); // the writer behind must wait for this
                reader.release(g);
                return g;
            }, t -> Thread.ofPlatform().start(t));
            while (DslrLayout.maxS(crashed.word()) < 1) {
                Thread.onSpinWait();
            }
            var w = writer.cycleAsync(fabric, Mode.EXCLUSIVE);
            await(w);
            r.get(10, TimeUnit.SECONDS);
            // "Jump to what I wait for" by the writer would have set nS past the reader and granted both.
            assertTrue(MutualExclusionChecker.overlaps(history.holds()).isEmpty(), "reader and writer overlapped");
            assertTrue(reader.lock.leaseResets() + writer.lock.leaseResets() >= 1, "the crashed writer was skipped");
            settleAndAssertConsistent(writer);
        }
    }

    @Test
    void aWaiterPausedWhileItsTurnCameDoesNotUseTheExpiredGrant() throws Exception {
        // long enough that setting the scene (three clients, two threads) on a loaded machine does not
        // outlast the first holder's lease: only the paused reader's may run out
        long lease = 200_000_000;
        LockOptions options = LockOptions.of(Map.of("lease-ns", lease, "max-wait-ns", 200_000L, "omega-ns", 2_000L));
        History history = new History(System::nanoTime);
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Client holder = new Client(fabric, "paused-waiter", options, history, 0);
            Grant h = holder.acquire(Mode.EXCLUSIVE);
            PausingEndpoint pausing = new PausingEndpoint(fabric.newEndpoint());
            Client reader = new Client(pausing, "paused-waiter", options, history, 1);
            Client writer = new Client(fabric, "paused-waiter", options, history, 2);
            var r = reader.cycleAsync(fabric, Mode.SHARED);
            while (DslrLayout.maxS(holder.word()) < 1) {
                Thread.onSpinWait();
            }
            var w = CompletableFuture.supplyAsync(() -> {
                Grant g = writer.acquire(Mode.EXCLUSIVE);
                try {
                    pausing.woke.await(lease * 3 / 4, TimeUnit.NANOSECONDS); // hold across the reader's wake-up
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                LockSupport.parkNanos(1_000_000);
                writer.release(g);
                return 0L;
            }, t -> Thread.ofPlatform().start(t));
            while (DslrLayout.maxX(holder.word()) < 2) {
                Thread.onSpinWait();
            }
            pausing.pauseNextSleepNs.set(2 * lease); // the reader stalls just as its turn comes
            assertTrue(pausing.pausing.await(5, TimeUnit.SECONDS), "the reader entered its stall");
            holder.release(h);
            await(w);
            await(r);
            assertEquals(1, writer.lock.leaseResets(), "the writer skipped the (paused) reader of its group");
            assertTrue(reader.lock.lateReleases() >= 1, "the reader saw its grant only after its lease and dropped it");
            assertEquals(1, reader.lock.stats().aborts(), "and took a fresh ticket");
            assertTrue(MutualExclusionChecker.overlaps(history.holds()).isEmpty(), "the stale grant was not used");
            settleAndAssertConsistent(writer);
        }
    }

    /** An endpoint whose clock can be told to stall its next sleep: a client paused mid-wait. */
    private static final class PausingEndpoint extends ForwardingEndpoint {
        final AtomicLong pauseNextSleepNs = new AtomicLong();
        final CountDownLatch pausing = new CountDownLatch(1);
        final CountDownLatch woke = new CountDownLatch(1);
        private final Clock clock;

        PausingEndpoint(Endpoint inner) {
            super(inner);
            Clock c = inner.clock();
            this.clock = new Clock() {
                @Override
                public long nanoTime() {
                    return c.nanoTime();
                }

                @Override
                public void sleepNanos(long nanos) {
                    long pause = pauseNextSleepNs.getAndSet(0);
                    if (pause > 0) {
                        pausing.countDown();
                    }
                    c.sleepNanos(nanos + pause);
                    if (pause > 0) {
                        woke.countDown();
                    }
                }

                @Override
                public IdleStrategy idleStrategy() {
                    return c.idleStrategy();
                }
            };
        }

        @Override
        public Clock clock() {
            return clock;
        }
    }

    @Test
    void mutualExclusionStressWithTheLeaseOn() {
        LockOptions options = LockOptions.of(Map.of("count-max", 64L, "omega-ns", 1_000L));
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            var result = LockStress.run(fabric, dslr, LockStress.Config.of(4, 2, 0, 0.5, 4_000).withOptions(options));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(16_000, result.holds().size());
        }
    }
}
