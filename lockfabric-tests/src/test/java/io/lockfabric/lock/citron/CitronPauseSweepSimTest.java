package io.lockfabric.lock.citron;

import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.Fault;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 6's workload (the range contract's: 8 clients, 300 cycles each, ranges of 1 … 10 000 units
 * over [0, N + 4 096), N = 16 384, slow path, the tree scaling up under way) on the simulator,
 * with client pauses (not crashes) at seed-chosen moments: around a lease (0.5–2.5 × 200 us) and
 * around T_wait (2–30 us, many: slow round trips). An overlap or fencing inversion is a hazard
 * only if one of its holders held longer than its lease (paused while holding, the case fencing
 * tokens guard); any other is a violation.
 */
@Tag("seeds")
@Tag("faults")
class CitronPauseSweepSimTest {
    private static final long US = 1_000;
    private static final long N = 16_384;
    private static final long SPACE = N + 4_096;
    private static final long LEASE_NS = 200 * US;
    private static final int CLIENTS = 8;
    private static final int OPS = 300;
    private static final LockOptions OPTIONS = LockOptions.parse(List.of("units=" + N, "fast-path=0",
            "lease-ns=200us", "hold-wait-ns=50us", "starve-ns=40us", "scale-poll-ns=10us"));
    /** A run takes 20–30 ms of virtual time: the pauses fall over all of it. */
    private static final long HORIZON_NS = 25_000_000;

    private record Outcome(List<Violation> violations, int hazards, long scaleUps, long descendantResets) {
    }

    private static Outcome run(long seed, FaultPlan plan) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(CLIENTS / 2)
                .seed(seed).build())) {
            RangeLockProtocol citron = RangeLockProtocols.byName("citron");
            History history = new History(fabric::observerNanoTime);
            List<ClientThread> threads = new ArrayList<>();
            List<RangeLockClient> locks = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                int client = i;
                Endpoint e = fabric.newEndpoint();
                RangeLockClient l = citron.open(e, "sweep", OPTIONS);
                locks.add(l);
                var rec = history.recorder(client);
                threads.add(fabric.spawn("c" + client, () -> {
                    SplittableRandom rnd = new SplittableRandom(seed * 101 + client);
                    for (int op = 0; op < OPS; op++) {
                        long size = Math.max(1, Math.min(10_000, (long) Math.exp(rnd.nextDouble() * Math.log(10_001))));
                        long start = rnd.nextLong(SPACE - size + 1);
                        rec.requesting();
                        RangeGrant g = l.acquire(start, start + size, Mode.EXCLUSIVE);
                        rec.granted(g);
                        e.clock().sleepNanos(2 * US);
                        rec.releasing(g);
                        l.release(g);
                    }
                }));
            }
            List<Fault> faults = plan.schedule(seed, CLIENTS, 1, 0, HORIZON_NS);
            fabric.inject(plan, faults, threads);
            fabric.simulation().timeLimitNs(2_000_000_000L);
            threads.forEach(ClientThread::join);
            for (ClientThread t : threads) {
                assertTrue(((SimProcess) t).failure() == null, "seed " + seed + ": " + ((SimProcess) t).failure());
            }
            List<Violation> all = new ArrayList<>(RangeExclusionChecker.violations(history.holds()));
            all.addAll(RangeExclusionChecker.fencing(history.holds()));
            List<Violation> bad = all.stream().filter(v -> !involvesHoldPastLease(v)).toList();
            long ups = 0;
            long resets = 0;
            for (RangeLockClient l : locks) {
                ups += ((CitronClient) l).scaleUps();
                resets += CitronCounters.of(l.stats()).descendantResets();
            }
            return new Outcome(bad, all.size() - bad.size(), ups, resets);
        }
    }

    /** Whether one of the holders involved held past its lease (it was paused while holding). */
    static boolean involvesHoldPastLease(Violation v) {
        List<Hold> hs = switch (v) {
            case Violation.Overlap o -> List.of(o.first(), o.second());
            case Violation.Fencing f -> List.of(f.earlier(), f.later());
            default -> List.of();
        };
        return hs.stream().anyMatch(h -> h.releasedAt() - h.grantedAt() > LEASE_NS);
    }

    private static void sweep(String faults, long firstSeed, int seeds, boolean expectResets) {
        FaultPlan plan = FaultPlan.parse(faults);
        long hazards = 0;
        long scaleUps = 0;
        long resets = 0;
        for (long seed = firstSeed; seed < firstSeed + seeds; seed++) {
            Outcome o = run(seed, plan);
            long s = seed;
            assertTrue(o.violations().isEmpty(), () -> "seed " + s + " " + plan.schedule(s, CLIENTS, 1, 0, HORIZON_NS)
                    + ": " + o.violations().size() + " violations: " + o.violations().stream().limit(5).toList());
            hazards += o.hazards();
            scaleUps += o.scaleUps();
            resets += o.descendantResets();
        }
        System.out.printf("citron pause sweep %s: %d seeds, %d hazards, %d scale-ups, %d DCnt resets%n", faults,
                seeds, hazards, scaleUps, resets);
        assertTrue(scaleUps >= seeds, "every run scaled the tree up: " + scaleUps);
        if (expectResets) {
            assertTrue(resets > 0, "some pause outlasted a lease unit under an occupier (a DCnt reset)");
        }
    }

    /** Pauses of 0.5–2.5 leases: the lease recoveries fire; only paused holders may overlap. */
    @Test
    void pausesAroundTheLease() {
        sweep("pause=30@100us..500us", 1, 12, true);
    }

    /** Many pauses around T_wait (slow round trips): timing aborts and retries, no recovery needed. */
    @Test
    void pausesAroundTWait() {
        sweep("pause=200@2us..30us", 1, 10, false);
    }
}
