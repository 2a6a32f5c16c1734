package io.lockfabric.lock.shiftlock;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.LatencyBreakdown;
import io.lockfabric.lock.LatencyBreakdown.Item;
import io.lockfabric.lock.LatencyBreakdown.Part;
import io.lockfabric.lock.shiftlock.ShiftLockProbe;
import io.lockfabric.lock.shiftlock.ShiftLockProtocol;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ShiftLock on the simulator, deterministic (fixed seeds): one round trip per uncontended acquire
 * and release, the consecutive-writer threshold N (readers wait at most N writers), write
 * preference (a queued writer is not overtaken by later readers).
 */
class ShiftLockSimTest {

    /** One client's grant of lock 0: when asked, granted, released (observer time). */
    record Hold(int client, Mode mode, long requestedAt, long grantedAt, long releasedAt, long token) {
    }

    /**
     * A small simulated run of ShiftLock clients on one lock, recording every hold and checking
     * mutual exclusion as grants happen (the simulator runs one client at a time, so plain fields
     * suffice). A probe may crash or pause a client at a protocol point.
     */
    static final class Harness {
        final SimFabric fabric;
        final LockOptions options;
        final List<Endpoint> endpoints = new ArrayList<>();
        final List<ClientThread> threads = new ArrayList<>();
        final List<LockClient> clients = new ArrayList<>();
        final List<Hold> holds = new ArrayList<>();
        final List<Hold> open = new ArrayList<>();
        final List<String> violations = new ArrayList<>();
        /** Clients whose holds may overlap others' (paused past the lease: the hazard the lease excludes). */
        final Set<Integer> exempt = new HashSet<>();
        ShiftLockProbe probe = ShiftLockProbe.NONE;
        long crashedAtNs = -1;
        int crashedClient = -1;
        private LockProtocol protocol;

        Harness(long seed, LockOptions options) {
            this.fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(seed).build());
            this.options = options;
        }

        long now() {
            return fabric.observerNanoTime();
        }

        int index(Endpoint e) {
            return endpoints.indexOf(e);
        }

        /** Crashes the calling client (from a probe): it never runs again, its open hold ends now. */
        void crashHere(Endpoint e) {
            crashedAtNs = now();
            crashedClient = index(e);
            open.removeIf(h -> h.client() == crashedClient);
            fabric.simulation().crash(fabric.simulation().current());
        }

        /** Adds a client that loops acquire / hold {@code csNs} / release / think until {@code untilNs}. */
        void client(Mode mode, long csNs, long thinkNs, long untilNs) {
            Endpoint e = fabric.newEndpoint();
            endpoints.add(e);
            clients.add(null);
            int idx = endpoints.size() - 1;
            threads.add(fabric.spawn("c" + idx, () -> {
                if (protocol == null) {
                    protocol = ShiftLockProtocol.withProbe((point, lock, ep) -> probe.at(point, lock, ep));
                }
                LockClient c = protocol.open(e, "t", 1, options);
                clients.set(idx, c);
                while (now() < untilNs) {
                    long asked = now();
                    Grant g = c.acquire(0, mode);
                    long granted = now();
                    if (crashedClient == idx) {
                        break; // crashed by the probe at its grant: it stops at its next step, holding
                    }
                    var h = new Hold(idx, mode, asked, granted, -1, g.fencingToken());
                    for (Hold o : open) {
                        if (o.mode().conflictsWith(mode) && !exempt.contains(o.client()) && !exempt.contains(idx)) {
                            violations.add("client " + idx + " granted " + mode + " at " + granted + " while client "
                                    + o.client() + " holds " + o.mode() + " since " + o.grantedAt());
                        }
                    }
                    open.add(h);
                    e.clock().sleepNanos(csNs);
                    open.remove(h);
                    holds.add(new Hold(idx, mode, asked, granted, now(), g.fencingToken()));
                    c.release(g);
                    if (thinkNs > 0) {
                        e.clock().sleepNanos(thinkNs);
                    }
                }
            }));
        }

        void runAll() {
            for (ClientThread t : threads) {
                t.join();
            }
            for (ClientThread t : threads) {
                if (t instanceof SimProcess p && p.failure() != null) {
                    throw new AssertionError(p.name() + " failed", p.failure());
                }
            }
        }

        List<Hold> grantedBetween(long from, long to) {
            return holds.stream().filter(h -> h.grantedAt() > from && h.grantedAt() < to).toList();
        }

        LockStats totalStats() {
            LockStats s = LockStats.ZERO;
            for (LockClient c : clients) {
                if (c != null) {
                    s = s.plus(c.stats());
                }
            }
            return s;
        }

        /**
         * From a fresh client after the run: the entry is idle and consistent, i.e. a writer and
         * then a reader are each granted by their single atomic, with no READ, SEND or rpc.
         */
        void assertEntryIdle() {
            Endpoint e = fabric.newEndpoint();
            CounterSnapshot[] cost = new CounterSnapshot[1];
            fabric.spawn("idle-check", () -> {
                LockClient c = new ShiftLockProtocol().open(e, "t", 1, options);
                CounterSnapshot before = e.counters();
                c.release(c.acquire(0, Mode.EXCLUSIVE));
                c.release(c.acquire(0, Mode.SHARED));
                cost[0] = e.counters().minus(before);
            }).join();
            assertEquals(2, cost[0].ops(VerbKind.MCAS128), cost[0].toString());
            assertEquals(2, cost[0].ops(VerbKind.MFAA128), cost[0].toString());
            assertEquals(4, cost[0].oneSidedOps() + cost[0].ops(VerbKind.SEND) + cost[0].ops(VerbKind.RPC),
                    "nothing but the four atomics: the entry was idle, " + cost[0]);
        }

        void close() {
            fabric.close();
        }
    }

    @Test
    void uncontendedAcquireAndReleaseTakeOneRoundTripEach() {
        var fabric = new SimFabric(SimConfig.builder().seed(3).build());
        try {
            Endpoint e = fabric.newEndpoint();
            long[] took = new long[4];
            CounterSnapshot[] d = new CounterSnapshot[1];
            fabric.spawn("solo", () -> {
                LockClient c = new ShiftLockProtocol().open(e, "t", 8, LockOptions.DEFAULTS);
                c.release(c.acquire(5, Mode.EXCLUSIVE));
                CounterSnapshot before = e.counters();
                int i = 0;
                for (Mode m : new Mode[] {Mode.EXCLUSIVE, Mode.SHARED}) {
                    long t0 = fabric.observerNanoTime();
                    Grant g = c.acquire(5, m);
                    long t1 = fabric.observerNanoTime();
                    c.release(g);
                    took[i++] = t1 - t0;
                    took[i++] = fabric.observerNanoTime() - t1;
                }
                d[0] = e.counters().minus(before);
            }).join();
            assertEquals(1, d[0].ops(VerbKind.MCAS128) / 2, d[0].toString());
            assertEquals(2, d[0].ops(VerbKind.MCAS128));
            assertEquals(2, d[0].ops(VerbKind.MFAA128));
            assertEquals(4, d[0].oneSidedOps() + d[0].ops(VerbKind.SEND) + d[0].ops(VerbKind.RPC), d[0].toString());
            long rtt = 2 * fabric.config().networkOneWayNs();
            for (long t : took) {
                assertTrue(t > rtt && t < 2 * rtt, "one round trip (" + rtt + " ns of wire), took " + t);
            }
        } finally {
            fabric.close();
        }
    }

    @Test
    void readersGetTheLockAfterAtMostNWritersUnderAStreamOfWriters() {
        int n = 4;
        var h = new Harness(5, LockOptions.parse(List.of("threshold=" + n)));
        try {
            long until = 3_000_000;
            for (int i = 0; i < 5; i++) {
                h.client(Mode.EXCLUSIVE, 2_000, 0, until); // back-to-back writers: the queue never drains
            }
            h.client(Mode.SHARED, 1_000, 20_000, until);
            h.runAll();
            assertEquals(List.of(), h.violations);
            List<Hold> reads = h.holds.stream().filter(x -> x.mode() == Mode.SHARED).toList();
            assertTrue(reads.size() > 50, "the reader is served again and again: " + reads.size());
            int worst = 0;
            for (Hold r : reads) {
                int writers = (int) h.grantedBetween(r.requestedAt(), r.grantedAt()).stream()
                        .filter(x -> x.mode() == Mode.EXCLUSIVE).count();
                worst = Math.max(worst, writers);
            }
            assertTrue(worst <= n, "a reader waited for " + worst + " writer grants > N = " + n);
            assertTrue(worst >= n - 1, "the writers did keep the lock for about N grants: " + worst);
        } finally {
            h.close();
        }
    }

    @Test
    void withoutAThresholdTheSameReaderWaitsLonger() {
        var h = new Harness(5, LockOptions.parse(List.of("threshold=inf")));
        try {
            long until = 3_000_000;
            for (int i = 0; i < 5; i++) {
                h.client(Mode.EXCLUSIVE, 2_000, 0, until);
            }
            h.client(Mode.SHARED, 1_000, 20_000, until);
            h.runAll();
            assertEquals(List.of(), h.violations);
            long reads = h.holds.stream().filter(x -> x.mode() == Mode.SHARED).count();
            assertTrue(reads <= 1, "with N = inf a stream of writers keeps the lock from the reader: " + reads + " reads");
        } finally {
            h.close();
        }
    }

    @Test
    void writersAreGrantedUnderAStreamOfReadersAndLaterReadersWait() {
        var h = new Harness(9, LockOptions.DEFAULTS);
        try {
            long until = 3_000_000;
            for (int i = 0; i < 6; i++) {
                h.client(Mode.SHARED, 3_000, 0, until); // overlapping readers: RdrCnt never drops to 0 on its own
            }
            h.client(Mode.EXCLUSIVE, 1_000, 30_000, until);
            h.runAll();
            assertEquals(List.of(), h.violations);
            List<Hold> writes = h.holds.stream().filter(x -> x.mode() == Mode.EXCLUSIVE).toList();
            assertTrue(writes.size() > 30, "the writer is served again and again: " + writes.size());
            long margin = 3 * h.fabric.config().networkOneWayNs(); // the writer's enqueue has landed by then
            for (Hold w : writes) {
                for (Hold r : h.grantedBetween(w.requestedAt(), w.grantedAt())) {
                    assertTrue(r.requestedAt() < w.requestedAt() + margin, "reader asked at " + r.requestedAt()
                            + " overtook the writer queued since " + w.requestedAt());
                }
                assertTrue(w.grantedAt() - w.requestedAt() < 10_000, "the writer waits only for readers already in");
            }
        } finally {
            h.close();
        }
    }

    @Test
    void tokensFollowTheGrantOrderWithoutFaults() {
        var h = new Harness(13, LockOptions.parse(List.of("threshold=3")));
        try {
            for (int i = 0; i < 8; i++) {
                h.client(i % 3 == 0 ? Mode.EXCLUSIVE : Mode.SHARED, 1_000, 500, 2_000_000);
            }
            h.runAll();
            assertEquals(List.of(), h.violations);
            List<Hold> byGrant = h.holds.stream().sorted(java.util.Comparator.comparingLong(Hold::grantedAt)).toList();
            long lastExclusive = Long.MIN_VALUE;
            for (Hold x : byGrant) {
                if (x.mode() == Mode.EXCLUSIVE) {
                    assertTrue(x.token() > lastExclusive, "exclusive tokens strictly increase");
                    lastExclusive = x.token();
                }
                for (Hold e : byGrant) {
                    if (e.mode() == Mode.EXCLUSIVE && e.releasedAt() < x.requestedAt()) {
                        assertTrue(x.token() > e.token(), "a grant's token passes every writer released before");
                    }
                }
            }
            LockStats stats = h.totalStats();
            assertEquals(List.of(0L, 0L, 0L), List.of(stats.retries(), stats.aborts(), stats.resets()),
                    "no retries, restarts or recoveries without faults");
            h.assertEntryIdle();
        } finally {
            h.close();
        }
    }

    @Test
    void eachClientItemizesItsTimeAsTheTable2OfThePaper() {
        var h = new Harness(17, LockOptions.parse(List.of("threshold=4")));
        try {
            for (int i = 0; i < 4; i++) {
                h.client(Mode.EXCLUSIVE, 1_000, 0, 2_000_000);
            }
            for (int i = 0; i < 2; i++) {
                h.client(Mode.SHARED, 1_000, 0, 2_000_000);
            }
            h.runAll();
            LatencyBreakdown b = LatencyBreakdown.of(h.totalStats());
            long writes = h.holds.stream().filter(x -> x.mode() == Mode.EXCLUSIVE).count();
            long reads = h.holds.size() - writes;
            assertEquals(writes, b.operations(Part.WRITER_ACQUIRE), b.toString());
            assertEquals(reads, b.operations(Part.READER_ACQUIRE), b.toString());
            assertEquals(h.holds.size(), b.operations(Part.RELEASE), b.toString());
            long rtt = 2 * h.fabric.config().networkOneWayNs();
            for (Part p : new Part[] {Part.WRITER_ACQUIRE, Part.READER_ACQUIRE, Part.RELEASE}) {
                double ia = b.averageNs(p, Item.IA);
                assertTrue(ia > rtt && ia < 2 * rtt, p + ": the initial atomic is about a round trip, " + ia);
            }
            assertTrue(b.averageNs(Part.WRITER_ACQUIRE, Item.WP) > rtt, "writers queue behind writers: " + b);
            assertTrue(b.averageNs(Part.READER_ACQUIRE, Item.WW) > rtt, "readers wait for writers: " + b);
            assertTrue(b.totalNs(Part.RELEASE, Item.NS) > 0, "writers notify successors: " + b);
            assertEquals(0, b.totalNs(Part.READER_ACQUIRE, Item.WP), "readers never wait for a predecessor");
            assertEquals(0, b.totalNs(Part.WRITER_ACQUIRE, Item.WW), "writers never wait for the epoch");
        } finally {
            h.close();
        }
    }
}
