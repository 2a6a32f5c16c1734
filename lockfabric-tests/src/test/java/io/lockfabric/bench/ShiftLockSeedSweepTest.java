package io.lockfabric.bench;

import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.sim.SimCheck;
import io.lockfabric.check.Hold;
import io.lockfabric.check.Violation;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.Fault;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ShiftLock on the simulator over many seeds, each with a client crash and a client pause (10 µs
 * to 3 ms, on both sides of the shortened 1 ms lease) at seed-chosen moments: no violation (overlap
 * not explained by a pause past the lease, stuck live client, recovery slower than the failure
 * model's bound), and crashed holders' locks are granted again.
 */
@Tag("seeds")
@Tag("faults")
class ShiftLockSeedSweepTest {
    static final int SEEDS = 200;

    private static SimCheck.Tally sweep(String faults, double readRatio, List<String> options) {
        SimConfig cluster = SimConfig.builder().computeNodes(2).clientsPerComputeNode(3).build();
        PointWorkload workload = PointWorkload.builder().clients(6).locks(2).readRatio(readRatio).cs(1)
                .durationNs(10_000_000).warmupNs(0).check(true).options(ProtocolOptions.parse(options)).build();
        SimCheck<LockProtocol> check = new SimCheck<>(cluster, workload, FaultPlan.parse(faults));
        SimCheck.Tally tally = new SimCheck.Tally("shiftlock");
        for (long seed = 1; seed <= SEEDS; seed++) {
            tally.add(seed, check.run(LockProtocols.byName("shiftlock"), seed));
        }
        return tally;
    }

    private static void assertClean(SimCheck.Tally tally) {
        System.out.printf("shiftlock sweep: %d runs, %d ops, %d crashes, %d recoveries (%d..%d ns), %d hazards%n",
                tally.runs(), tally.operations(), tally.crashes(), tally.recoveries(), tally.minRecoveryNs(),
                tally.maxRecoveryNs(), tally.hazards());
        assertTrue(tally.violations().isEmpty(), () -> tally.violations().stream().limit(20)
                .map(f -> "seed " + f.seed() + ": " + f.violation().description())
                .collect(Collectors.joining("\n")));
        assertTrue(tally.crashes() > SEEDS / 2, "most seeds crash a client before the end: " + tally.crashes());
        assertTrue(tally.operations() > SEEDS * 100L, "the runs did work: " + tally.operations());
        assertTrue(tally.recoveries() > 0, "some crashed holder's lock was granted again");
    }

    @Test
    void crashAndPauseNeverBreakTheLock() {
        SimCheck.Tally tally = sweep("crash,pause@10us..8ms", 0.5,
                List.of("shiftlock.lease-ns=1ms", "shiftlock.threshold=4"));
        assertClean(tally);
    }

    /**
     * Pauses of 2–4 leases recover the lock under the paused client. Then the only overlaps are
     * the lease hazard of a client paused <em>while holding</em>: a client paused while waiting
     * for its grant (a Handover arriving late, an epoch flip seen late) never uses it, and a late
     * release never lands in the next era.
     */
    @Test
    void onlyClientsPausedWhileHoldingOverlapOthers() {
        SimConfig cluster = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).build();
        PointWorkload workload = PointWorkload.builder().clients(8).locks(3).readRatio(0.5).cs(1)
                .durationNs(10_000_000).warmupNs(0).check(true)
                .options(ProtocolOptions.parse(List.of("shiftlock.lease-ns=1ms", "shiftlock.threshold=3"))).build();
        SimCheck<LockProtocol> check = new SimCheck<>(cluster, workload, FaultPlan.parse("pause=4@2ms..4ms"));
        long overlaps = 0;
        for (long seed = 1; seed <= SEEDS / 2; seed++) {
            RunResult r = check.run(LockProtocols.byName("shiftlock"), seed);
            long s = seed;
            assertTrue(r.violations().isEmpty(), () -> "seed " + s + ": " + r.violations());
            for (FaultOutcome.Hazard h : r.faults().hazards()) {
                if (h.finding() instanceof Violation.Overlap o) {
                    overlaps++;
                    assertTrue(pausedWhileHolding(o.first(), r.faults().faults())
                            || pausedWhileHolding(o.second(), r.faults().faults()), () -> "seed " + s + ": " + o.description());
                }
            }
        }
        assertTrue(overlaps > 0, "the pauses did outlast the recovery sometimes");
    }

    private static boolean pausedWhileHolding(Hold h, List<Fault> faults) {
        return faults.stream().anyMatch(f -> f.kind() == Fault.Kind.PAUSE && f.target() == h.client()
                && f.lengthNs() > LEASE_NS && f.atNs() < h.releasedAt() && f.endNs() > h.grantedAt());
    }

    static final long LEASE_NS = 1_000_000;

    /**
     * Issue 15: crash, pause, 1% of messages lost and 10% delayed, 100 ms. Each lost Successor or
     * Handover stalled the lock until the waiters recovered it 3 leases later (4 or 5 recoveries a
     * run, one per lost message), and a client waiting through a few such stalls in a row was
     * still blocked when the liveness bound, then one recovery bound per crash, passed (the first
     * thirteen seeds: all of the 2000-seed sweep's findings from 1000). The waiters now ask their
     * predecessor again after half a lease without a release: the lock is recovered only after the
     * crash and, at most once more, for a message whose sender had stopped using the lock client
     * (its run was over) and so could not send it again (seeds 1671 and 2320; the bound now also
     * counts one recovery per lost message).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1325, 1433, 1470, 1475, 1554, 1577, 1727, 1799, 1826, 2020, 2437, 2584, 2892, 1671, 2320})
    void lostMessagesDoNotLeaveLiveClientsStuck(long seed) {
        SimConfig cluster = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).memoryNodes(1).build();
        PointWorkload workload = PointWorkload.builder().clients(8).locks(8).zipf(0.99).readRatio(0.5).cs(1)
                .durationNs(100_000_000).warmupNs(0).check(true).build();
        RunResult r = new SimCheck<LockProtocol>(cluster, workload, FaultPlan.parse("crash=1,pause=1,drop=0.01,delay=0.1"))
                .run(LockProtocols.byName("shiftlock"), seed);
        assertTrue(r.faults().droppedMessages() > 0, "messages were lost");
        assertTrue(r.violations().isEmpty(), () -> r.violations().toString());
        assertTrue(r.faults().stuckClients().isEmpty(), () -> "stuck: " + r.faults().stuckClients());
        assertTrue(r.resets() <= r.faults().crashedClients().size() + 1, () -> "lost messages are made up by asking"
                + " again, not by recovering the lock: " + r.resets() + " recoveries, "
                + r.faults().droppedMessages() + " messages lost");
    }

    @Test
    void writeHeavyQueuesSurviveCrashes() {
        SimCheck.Tally tally = sweep("crash,pause@10us..3ms", 0.1, List.of("shiftlock.lease-ns=1ms"));
        assertClean(tally);
    }
}
