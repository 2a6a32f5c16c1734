package io.lockfabric.lock.declock;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.ForwardingEndpoint;
import io.lockfabric.fabric.ForwardingQueuePair;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code cql} on the local fabric: exact verb counts and round trips, overflow and exhaustion resets, bad input. */
@Timeout(60)
class CqlLocalTest {
    private static final CqlProtocol CQL = (CqlProtocol) LockProtocols.byName("cql");

    /** An endpoint whose queue pairs count round trips: single verbs and batches. */
    static final class CountingEndpoint extends ForwardingEndpoint {
        long roundTrips;
        final List<List<VerbKind>> batches = new ArrayList<>();

        CountingEndpoint(Endpoint inner) {
            super(inner);
        }

        @Override
        public QueuePair queuePair(int memoryNode) {
            return new ForwardingQueuePair(inner.queuePair(memoryNode)) {
                @Override
                public Object execute(Verb verb) {
                    roundTrips++;
                    return super.execute(verb);
                }

                @Override
                public void execute(Batch batch) {
                    roundTrips++;
                    batches.add(batch.verbs().stream().map(Verb::kind).toList());
                    super.execute(batch);
                }

                @Override
                public byte[] rpc(int service, byte[] request) {
                    roundTrips++;
                    return super.rpc(service, request);
                }
            };
        }
    }

    private static Map<VerbKind, Long> perCycle(CounterSnapshot d, int cycles) {
        Map<VerbKind, Long> out = new EnumMap<>(VerbKind.class);
        for (VerbKind k : VerbKind.values()) {
            if (d.ops(k) != 0) {
                assertEquals(0, d.ops(k) % cycles, k + " not a whole number per cycle: " + d);
                out.put(k, d.ops(k) / cycles);
            }
        }
        return out;
    }

    @Test
    void uncontendedAcquireIsOneFaaAndReleaseOneBatchedFaaAndRead() {
        for (Mode mode : Mode.values()) {
            try (LocalFabric fabric = LocalFabric.builder().build()) {
                var e = new CountingEndpoint(fabric.newEndpoint());
                LockClient c = CQL.open(e, "t", 16, LockOptions.DEFAULTS);
                c.release(c.acquire(3, mode));
                CounterSnapshot before = e.counters();
                long trips = e.roundTrips;
                e.batches.clear();
                for (int i = 0; i < 10; i++) {
                    c.release(c.acquire(3, mode));
                }
                assertEquals(Map.of(VerbKind.FAA, 2L, VerbKind.READ, 1L), perCycle(e.counters().minus(before), 10), mode.toString());
                assertEquals(20, e.roundTrips - trips, mode + ": one round trip to acquire, one to release");
                assertEquals(10, e.batches.size());
                assertTrue(e.batches.stream().allMatch(b -> b.equals(List.of(VerbKind.FAA, VerbKind.READ))),
                        "release is FAA then READ in one batch: " + e.batches);
            }
        }
    }

    /** A waiter writes its entry (one WRITE) and is granted by message; readers granted at once write nothing. */
    @Test
    void aWaiterAddsOneWriteAndIsGrantedByMessage() throws Exception {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint();
             Endpoint b = fabric.newEndpoint(); Endpoint r = fabric.newEndpoint()) {
            LockClient ca = CQL.open(a, "t", 4, LockOptions.DEFAULTS);
            LockClient cb = CQL.open(b, "t", 4, LockOptions.DEFAULTS);
            LockClient cr = CQL.open(r, "t", 4, LockOptions.DEFAULTS);
            // readers share at once, writing nothing
            CounterSnapshot r0 = r.counters();
            Grant ra = ca.acquire(1, Mode.SHARED);
            Grant rr = cr.acquire(1, Mode.SHARED);
            assertEquals(Map.of(VerbKind.FAA, 1L), perCycle(r.counters().minus(r0), 1));
            cr.release(rr);
            ca.release(ra);

            Grant held = ca.acquire(1, Mode.EXCLUSIVE);
            CounterSnapshot b0 = b.counters();
            var waiter = fabric.spawn("waiter", () -> {
                Grant g = cb.acquire(1, Mode.EXCLUSIVE);
                cb.release(g);
            });
            // the waiter has enqueued when its entry shows: wait for it on the memory (no sleeping)
            CqlLayout l = CqlProtocol.settings(LockOptions.DEFAULTS).layout();
            Table t = a.openTable(CQL.tableSpec("t", 4, LockOptions.DEFAULTS));
            QueuePair qp = a.queuePair(t.memoryNode());
            long hdr = t.at(l.headerOffset(1));
            IdleUntil.until(a.clock(), () -> l.valid(qp.read8(hdr + l.entryOffset(l.qhead(qp.read8(hdr)) + 1)),
                    l.qhead(qp.read8(hdr)) + 1));
            CounterSnapshot a0 = a.counters();
            ca.release(held);
            waiter.join();
            assertEquals(1, a.counters().minus(a0).ops(VerbKind.SEND), "one grant message to the waiter");
            Map<VerbKind, Long> cost = perCycle(b.counters().minus(b0), 1);
            assertEquals(Map.of(VerbKind.FAA, 2L, VerbKind.WRITE, 1L, VerbKind.READ, 1L), cost, "waiter: FAA, WRITE; release FAA+READ");
            assertTrue(held.fencingToken() < ca.acquire(1, Mode.SHARED).fencingToken(), "tokens grow");
        }
    }

    /** Waits on a condition through the endpoint's clock. */
    static final class IdleUntil {
        static void until(Clock clock, java.util.function.BooleanSupplier cond) {
            var idle = clock.idleStrategy();
            long deadline = clock.nanoTime() + 10_000_000_000L;
            while (!cond.getAsBoolean()) {
                if (clock.nanoTime() > deadline) {
                    throw new AssertionError("condition not met in 10 s");
                }
                idle.idle();
            }
        }
    }

    /**
     * More clients than entries, under real-time contention: whatever overflows happen, mutual
     * exclusion holds (how many overflows happen depends on the scheduler; the next test makes one
     * for sure).
     */
    @Test
    void aQueueSmallerThanTheClientsStaysSafe() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            var options = LockOptions.parse(List.of("capacity=2"));
            var result = LockStress.run(fabric, CQL, LockStress.Config.of(3, 1, 0, 0.3, 2_000).withOptions(options));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(3 * 2_000, result.holds().size());
        }
    }

    /**
     * Capacity 2: A holds, B waits, C's FAA sees a full queue and resets the lock. B aborts at the
     * signal; A answers only after it releases; then B and C get the lock in the new epoch.
     */
    @Test
    void anOverflowResetsTheLockAndEveryoneGetsItAfterwards() throws Exception {
        // long timeout and lease: on a busy machine B must not time out into a reset of its own
        var options = LockOptions.parse(List.of("capacity=2", "timeout-ns=10s", "lease-ns=10s"));
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            Endpoint ea = fabric.newEndpoint();
            Endpoint eb = fabric.newEndpoint();
            Endpoint ec = fabric.newEndpoint();
            // lock 1 is A's alone: see below
            CqlClient a = (CqlClient) CQL.open(ea, "t", 2, options);
            CqlClient b = (CqlClient) CQL.open(eb, "t", 2, options);
            CqlClient c = (CqlClient) CQL.open(ec, "t", 2, options);
            CqlLayout l = CqlProtocol.settings(options).layout();
            Table t = ea.openTable(CQL.tableSpec("t", 2, options));
            long hdr = t.at(l.headerOffset(0));
            var held = new java.util.concurrent.CountDownLatch(1);
            var letGo = new java.util.concurrent.CountDownLatch(1);
            long[] tokens = new long[3];
            var ta = fabric.spawn("a", () -> {
                Grant g = a.acquire(0, Mode.EXCLUSIVE);
                tokens[0] = g.fencingToken();
                held.countDown();
                try {
                    letGo.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                a.release(g);
                // stay in the lock client until C's reset is over: a client that never calls it
                // again answers a signal only when the lease runs out (its release may come before
                // the signal). On lock 1, not 0: a third request on lock 0 in the new epoch could
                // overflow its queue (capacity 2) again, a second reset this test does not expect
                QueuePair mine = ea.queuePair(t.memoryNode());
                while (CqlLayout.rst(mine.read8(hdr)) || l.rstcnt(mine.read8(hdr)) == 0) {
                    a.release(a.acquire(1, Mode.SHARED));
                }
            });
            held.await();
            var tb = fabric.spawn("b", () -> {
                Grant g = b.acquire(0, Mode.EXCLUSIVE);
                tokens[1] = g.fencingToken();
                b.release(g);
            });
            QueuePair qp = ea.queuePair(t.memoryNode());
            IdleUntil.until(ea.clock(), () -> l.qsize(qp.read8(hdr)) == 2);
            var tc = fabric.spawn("c", () -> {
                Grant g = c.acquire(0, Mode.SHARED);
                tokens[2] = g.fencingToken();
                c.release(g);
            });
            IdleUntil.until(ea.clock(), () -> CqlLayout.rst(qp.read8(hdr)));
            letGo.countDown();
            ta.join();
            tb.join();
            tc.join();
            assertEquals(1, c.stats().resets(), "C reset the overflowing queue");
            assertEquals(1, c.resetLatenciesNs().length);
            assertTrue(b.stats().aborts() >= 1, "B's wait was aborted by the reset");
            assertEquals(1, l.rstcnt(qp.read8(hdr)), "one reset");
            assertEquals(0, c.presumedDead(), "every member answered");
            assertTrue(tokens[1] > tokens[0] && tokens[2] > tokens[0], "the new epoch's tokens are above the old");
            assertEquals(0, l.qsize(qp.read8(hdr)), "the lock ends free");
            assertEquals(1, a.ignoredReleases(), "A's release met the reset and changed nothing");
            assertEquals(1, a.stats().resets() + b.stats().resets() + c.stats().resets(), "C's was the only reset");
        }
    }

    /** A header whose qhead is near the version limit: the next cycles exhaust the versions and reset. */
    @Test
    void versionExhaustionResetsBeforeQheadCanWrap() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint()) {
            var options = LockOptions.parse(List.of("capacity=8"));
            CqlClient c = (CqlClient) CQL.open(a, "t", 2, options);
            CqlLayout l = CqlProtocol.settings(options).layout();
            Table t = a.openTable(CQL.tableSpec("t", 2, options));
            QueuePair qp = a.queuePair(t.memoryNode());
            long hdr = t.at(l.headerOffset(0));
            qp.write8(hdr, l.header(false, 0, 0, l.indexLimit() - 3, 5));
            long last = -1;
            for (int i = 0; i < 10; i++) {
                Grant g = c.acquire(0, Mode.EXCLUSIVE);
                assertTrue(g.fencingToken() > last, "tokens keep growing across the reset");
                last = g.fencingToken();
                c.release(g);
            }
            assertEquals(1, c.stats().resets());
            assertEquals(1, c.resetLatenciesNs().length);
            long h = qp.read8(hdr);
            assertEquals(6, l.rstcnt(h), "one reset");
            assertEquals(0, l.qsize(h));
            assertTrue(l.qhead(h) < 10, "qhead restarted: " + l.qhead(h));
        }
    }

    @Test
    void badInputIsRejected() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint()) {
            assertThrows(IllegalArgumentException.class, () -> CQL.open(a, "x", 4, LockOptions.parse(List.of("capacity=6"))));
            assertThrows(IllegalArgumentException.class, () -> CQL.open(a, "x", 4, LockOptions.parse(List.of("capacity=4", "max-clients=8"))));
            assertThrows(IllegalArgumentException.class, () -> CQL.open(a, "x", 4, LockOptions.parse(List.of("lease-ns=10ns"))));
            assertThrows(IllegalArgumentException.class, () -> CQL.open(a, "x", 4, LockOptions.parse(List.of("nope=1"))));
            LockClient c = CQL.open(a, "t", 4, LockOptions.DEFAULTS);
            assertThrows(IllegalArgumentException.class, () -> c.acquire(4, Mode.SHARED));
            assertThrows(IllegalArgumentException.class, () -> c.acquire(-1, Mode.SHARED));
            Grant g = c.acquire(0, Mode.SHARED);
            assertThrows(IllegalStateException.class, () -> c.acquire(0, Mode.SHARED));
            c.release(g);
            assertThrows(IllegalArgumentException.class, () -> c.release(g), "released twice");
        }
    }

    @Test
    void aFullTableRefusesAnotherClient() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            var options = LockOptions.parse(List.of("capacity=2"));
            for (int i = 0; i < 3; i++) {
                CQL.open(fabric.newEndpoint(), "t", 1, options);
            }
            var e = assertThrows(IllegalStateException.class, () -> CQL.open(fabric.newEndpoint(), "t", 1, options));
            assertTrue(e.getMessage().contains("full"), e.getMessage());
        }
    }
}
