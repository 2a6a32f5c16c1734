package io.lockfabric.lock.citron;

import io.lockfabric.check.History;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CITRON scenarios on the deterministic simulator (tree N = 16 384: levels of 16 384, 4 096,
 * 1 024, 256 and 64 units): leaf starvation avoidance, the deadlock between an occupier and a
 * request holding a node below it, and uncontended latencies in virtual time.
 */
class CitronSimTest {
    private static final long US = 1_000;
    private static final long N = 16_384;

    private static SimFabric fabric() {
        return new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(5).build());
    }

    private static LockOptions options(String... extra) {
        List<String> o = new ArrayList<>(List.of("units=" + N));
        o.addAll(List.of(extra));
        return LockOptions.parse(o);
    }

    /** What one scripted client did. */
    private record Outcome(long requestedAt, long grantedAt, long escalations, long yields) {
        long waitNs() {
            return grantedAt - requestedAt;
        }
    }

    /**
     * Four clients keep a quarter of leaf [0, 64) each held nearly all the time, so the leaf is
     * almost never zero; a fifth wants the whole leaf. With starvation avoidance it gives the leaf
     * up for its parent's bakery lock, whose Occ holds the newcomers back, and is served quickly.
     */
    private static Outcome starvedLeaf(String starveNs) {
        try (SimFabric fabric = fabric()) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            AtomicBoolean done = new AtomicBoolean();
            List<ClientThread> threads = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int client = c;
                Endpoint e = fabric.newEndpoint();
                var locks = citron.open(e, "starve", options());
                var rec = history.recorder(client);
                threads.add(fabric.spawn("hammer-" + c, () -> {
                    e.clock().sleepNanos(client * 3 * US);
                    for (int i = 0; i < 400 && !done.get(); i++) {
                        RangeGrant g = locks.acquire(16L * client, 16L * client + 16, Mode.EXCLUSIVE);
                        rec.granted(g);
                        e.clock().sleepNanos(20 * US);
                        rec.releasing(g);
                        locks.release(g);
                        e.clock().sleepNanos(US);
                    }
                }));
            }
            Endpoint e = fabric.newEndpoint();
            var locks = (CitronClient) citron.open(e, "starve", options("starve-ns=" + starveNs));
            var rec = history.recorder(9);
            long[] times = new long[2];
            threads.add(fabric.spawn("starved", () -> {
                e.clock().sleepNanos(40 * US);
                times[0] = fabric.observerNanoTime();
                RangeGrant g = locks.acquire(0, 64, Mode.EXCLUSIVE);
                times[1] = fabric.observerNanoTime();
                rec.granted(g);
                done.set(true);
                e.clock().sleepNanos(5 * US);
                rec.releasing(g);
                locks.release(g);
            }));
            threads.forEach(ClientThread::join);
            var violations = RangeExclusionChecker.violations(history.holds());
            assertTrue(violations.isEmpty(), violations.toString());
            assertTrue(times[1] > 0, "the starved request was granted");
            return new Outcome(times[0], times[1], locks.escalations(), locks.yields());
        }
    }

    @Test
    void starvedLeafRequestEscalatesToItsParent() {
        Outcome with = starvedLeaf("50us");
        Outcome without = starvedLeaf("inf");
        System.out.printf("starved leaf request waited %.1f us with starve-ns=50us (%d escalation), %.1f us without%n",
                with.waitNs() / 1e3, with.escalations(), without.waitNs() / 1e3);
        assertEquals(1, with.escalations());
        assertEquals(0, without.escalations());
        assertTrue(with.waitNs() < 500 * US, "served soon after giving the leaf up: " + with.waitNs() + " ns");
        assertTrue(without.waitNs() > 4 * with.waitNs(), "without escalation it waits for a gap in the hammering: "
                + without.waitNs() + " vs " + with.waitNs() + " ns");
    }

    /**
     * W wants [192, 320): leaves 3 and 4, both under X = [0, 1024). C holds leaf 4 for 300 us, so
     * W holds leaf 3 and retries leaf 4 when O occupies X; O waits for W's notification (leaf 3)
     * while W would wait for O's Occ. W sees that X covers a node it holds, releases leaf 3 and
     * restarts once it has leaf 4; everyone finishes, O before W.
     */
    @Test
    void requestBelowAnOccupierReleasesItsEarlierNodes() {
        try (SimFabric fabric = fabric()) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            var granted = new ConcurrentHashMap<String, Long>();
            var opts = options("starve-ns=inf", "hold-wait-ns=inf");
            List<ClientThread> threads = new ArrayList<>();
            CitronClient[] w = new CitronClient[1];
            String[] names = {"C", "W", "O"};
            long[][] script = {{0, 256, 320, 300}, {10, 192, 320, 5}, {50, 0, 1024, 5}}; // start us, l, r, hold us
            for (int c = 0; c < 3; c++) {
                int client = c;
                Endpoint e = fabric.newEndpoint();
                var locks = (CitronClient) citron.open(e, "deadlock", opts);
                if (c == 1) {
                    w[0] = locks;
                }
                var rec = history.recorder(client);
                threads.add(fabric.spawn(names[c], () -> {
                    long[] s = script[client];
                    e.clock().sleepNanos(s[0] * US);
                    RangeGrant g = locks.acquire(s[1], s[2], Mode.EXCLUSIVE);
                    granted.put(names[client], fabric.observerNanoTime());
                    rec.granted(g);
                    e.clock().sleepNanos(s[3] * US);
                    rec.releasing(g);
                    locks.release(g);
                }));
            }
            threads.forEach(ClientThread::join);
            assertTrue(RangeExclusionChecker.violations(history.holds()).isEmpty());
            assertEquals(3, granted.size(), "all granted: " + granted);
            assertTrue(w[0].yields() >= 1, "W released leaf 3 for the occupier");
            assertTrue(granted.get("O") < granted.get("W"), "the occupier went first: " + granted);
        }
    }

    /**
     * A cycle through a bakery ticket: W holds leaf [192, 256) and waits for the ticket of
     * [256, 512) behind C; C waits in step (b) for O's Occ on [0, 1024); O waits for W's
     * notification. No occupied ancestor covers what W holds, so only the hold-wait timer can
     * break it: W releases its leaf after hold-wait-ns, O goes first, and everyone finishes.
     */
    @Test
    void holdWaitTimerBreaksACycleThroughATicket() {
        try (SimFabric fabric = fabric()) {
            var citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            var granted = new ConcurrentHashMap<String, Long>();
            var opts = options("starve-ns=inf", "hold-wait-ns=200us");
            List<ClientThread> threads = new ArrayList<>();
            CitronClient[] w = new CitronClient[1];
            String[] names = {"W", "O", "C"};
            long[][] script = {{0, 192, 512, 5_000}, {500, 0, 1024, 5_000}, {3_000, 256, 512, 5_000}}; // start ns, l, r, hold ns
            for (int c = 0; c < 3; c++) {
                int client = c;
                Endpoint e = fabric.newEndpoint();
                var locks = (CitronClient) citron.open(e, "cycle", opts);
                if (c == 0) {
                    w[0] = locks;
                }
                var rec = history.recorder(client);
                threads.add(fabric.spawn(names[c], () -> {
                    long[] s = script[client];
                    e.clock().sleepNanos(s[0]);
                    RangeGrant g = locks.acquire(s[1], s[2], Mode.EXCLUSIVE);
                    granted.put(names[client], fabric.observerNanoTime());
                    rec.granted(g);
                    e.clock().sleepNanos(s[3]);
                    rec.releasing(g);
                    locks.release(g);
                }));
            }
            threads.forEach(ClientThread::join);
            assertTrue(RangeExclusionChecker.violations(history.holds()).isEmpty());
            assertEquals(3, granted.size(), "all granted: " + granted);
            assertEquals(1, w[0].yields(), "W gave its leaf up once: " + granted);
            assertTrue(granted.get("O") < granted.get("W") && granted.get("O") > 200 * US,
                    "O was served once W yielded, after hold-wait-ns: " + granted);
        }
    }

    /**
     * Bob locks leaf [0, 8) and is paused (stop-the-world) for 40 us somewhere in his acquisition
     * while Alice occupies [0, 1024) above him. A sweep of pause times puts the pause between Bob's
     * ancestor READ and his notification: Alice then checks before his notification lands and is
     * granted; Bob must see that more than T_wait passed since his READ and abort, or both would
     * hold [0, 8).
     */
    @Test
    void lateNotificationAborts() {
        long timingAborts = 0;
        for (long pauseAt = 0; pauseAt <= 6 * US; pauseAt += 250) {
            try (SimFabric fabric = fabric()) {
                var citron = RangeLockProtocols.byName("citron");
                History history = new History(fabric::observerNanoTime);
                Endpoint be = fabric.newEndpoint();
                Endpoint ae = fabric.newEndpoint();
                var bob = (CitronClient) citron.open(be, "late", options());
                var alice = citron.open(ae, "late", options());
                var bobRec = history.recorder(1);
                var aliceRec = history.recorder(2);
                var bobThread = fabric.spawn("bob", () -> {
                    RangeGrant g = bob.acquire(0, 8, Mode.EXCLUSIVE);
                    bobRec.granted(g);
                    be.clock().sleepNanos(5 * US);
                    bobRec.releasing(g);
                    bob.release(g);
                });
                var aliceThread = fabric.spawn("alice", () -> {
                    ae.clock().sleepNanos(500);
                    RangeGrant g = alice.acquire(0, 1024, Mode.EXCLUSIVE);
                    aliceRec.granted(g);
                    ae.clock().sleepNanos(100 * US); // still holding when the paused Bob resumes
                    aliceRec.releasing(g);
                    alice.release(g);
                });
                fabric.pauseAt((io.lockfabric.sim.SimProcess) bobThread, pauseAt, 40 * US);
                bobThread.join();
                aliceThread.join();
                var violations = RangeExclusionChecker.violations(history.holds());
                assertTrue(violations.isEmpty(), "pause at " + pauseAt + " ns: " + violations);
                assertEquals(2, history.holds().size(), "both granted (pause at " + pauseAt + " ns)");
                timingAborts += CitronCounters.of(bob.stats()).timingAborts();
            }
        }
        assertTrue(timingAborts > 0, "some pause fell between Bob's READ and his notification");
    }

    /**
     * A cluster manager changes (m, T_wait) every 60 us with the two-phase commit while 8 clients
     * lock random ranges: the ranges stay exclusive through every change.
     */
    @Test
    void parametersChangeAtRunTimeWithTwoPhaseCommit() {
        try (SimFabric fabric = fabric()) {
            var tuning = new CitronTuning(4, 15 * US);
            var protocol = CitronProtocol.withTuning(tuning);
            var settings = List.of(new CitronTuning.Setting(2, 20 * US), new CitronTuning.Setting(1, 12 * US),
                    new CitronTuning.Setting(5, 25 * US), new CitronTuning.Setting(3, 15 * US));
            AtomicBoolean stop = new AtomicBoolean();
            long[] commits = new long[1];
            Endpoint cmEndpoint = fabric.newEndpoint();
            ClientThread cm = fabric.spawn("cluster-manager", () -> {
                for (int i = 0; !stop.get(); i++) {
                    tuning.propose(settings.get(i % settings.size()));
                    while (!tuning.commit()) {
                        cmEndpoint.clock().sleepNanos(5 * US);
                    }
                    commits[0]++;
                    cmEndpoint.clock().sleepNanos(60 * US);
                }
            });
            var cfg = new io.lockfabric.check.RangeLockStress.Config(8, N + 2_048, 10_000, 0, 600, 2 * US, 3,
                    options());
            var result = io.lockfabric.check.RangeLockStress.run(fabric, protocol, cfg);
            stop.set(true);
            cm.join();
            System.out.printf("parameter changes: %d commits during %d grants, %s%n", commits[0], result.holds().size(),
                    result.stats());
            assertTrue(result.violations().isEmpty(), result.summary());
            assertTrue(commits[0] >= 10, "the parameters changed many times: " + commits[0]);
        }
    }

    /** Virtual-time latency of one uncontended acquire. */
    private static long acquireNs(long l, long r, String... extra) {
        try (SimFabric fabric = fabric()) {
            Endpoint e = fabric.newEndpoint();
            var locks = RangeLockProtocols.byName("citron").open(e, "lat", options(extra));
            long[] ns = new long[1];
            fabric.spawn("c", () -> {
                locks.release(locks.acquire(l, r, Mode.EXCLUSIVE)); // warm nothing, but same path
                long t = fabric.observerNanoTime();
                RangeGrant g = locks.acquire(l, r, Mode.EXCLUSIVE);
                ns[0] = fabric.observerNanoTime() - t;
                locks.release(g);
            }).join();
            return ns[0];
        }
    }

    @Test
    void uncontendedLatencies() {
        long leafFast = acquireNs(70, 100);
        long leafSlow = acquireNs(70, 100, "fast-path=0");
        long lowFast = acquireNs(0, 256);
        long lowSlow = acquireNs(0, 256, "fast-path=0");
        long midFast = acquireNs(0, 1024);
        System.out.printf("uncontended acquire (us): leaf %.2f fast / %.2f slow; [0,256) %.2f fast / %.2f slow;"
                + " [0,1024) %.2f%n", leafFast / 1e3, leafSlow / 1e3, lowFast / 1e3, lowSlow / 1e3, midFast / 1e3);
        assertTrue(leafFast < leafSlow, "the fast path saves the notification round trip of a leaf");
        assertTrue(lowFast < 15 * US, "locking the leaf children skips T_wait");
        assertTrue(lowSlow >= 15 * US && midFast >= 15 * US, "an occupier waits T_wait");
    }
}
