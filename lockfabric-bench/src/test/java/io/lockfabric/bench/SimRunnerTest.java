package io.lockfabric.bench;

import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.sim.SimDriver;

import io.lockfabric.check.Violation;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.Fault;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The runner through the {@link SimDriver}: virtual-time measurement, faults, liveness, recovery, hazards. */
@Tag("faults")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SimRunnerTest {
    private static final SimConfig CLUSTER = SimConfig.builder().computeNodes(2).clientsPerComputeNode(2).build();
    private static final PointWorkload WORKLOAD = PointWorkload.builder().clients(4).locks(2).readRatio(0)
            .durationNs(5_000_000).warmupNs(0).check(true).build();
    /** dslr with a short lease, so recoveries fit in short runs. */
    private static final ProtocolOptions SHORT_LEASE = ProtocolOptions.parse(
            List.of("dslr.lease-ns=1ms", "dslr.max-wait-ns=100us"));

    private static RunResult run(LockProtocol protocol, PointWorkload workload, FaultPlan faults, long seed) {
        try (SimFabric fabric = new SimFabric(CLUSTER.toBuilder().seed(seed).build())) {
            return new Runner(new SimDriver(fabric).withFaults(faults), false,
                    new PrintStream(OutputStream.nullOutputStream()))
                    .run(protocol, workload.toBuilder().seed(seed).build());
        }
    }

    /**
     * A hold observer records every hold (warmup included) without the checked run's guarded
     * counters: the run is the unobserved one, verb for verb, and nothing is checked.
     */
    @Test
    void aHoldObserverSeesEveryHoldAndChangesNothing() {
        PointWorkload unchecked = WORKLOAD.toBuilder().check(false).readRatio(0.5).warmupNs(500_000).seed(3).build();
        java.util.List<io.lockfabric.check.Hold> holds = new java.util.ArrayList<>();
        RunResult plain;
        RunResult observed;
        try (SimFabric fabric = new SimFabric(CLUSTER.toBuilder().seed(3).build())) {
            plain = new Runner(new SimDriver(fabric), false, new PrintStream(OutputStream.nullOutputStream()))
                    .run(LockProtocols.byName("shiftlock"), unchecked);
        }
        try (SimFabric fabric = new SimFabric(CLUSTER.toBuilder().seed(3).build())) {
            observed = new Runner(new SimDriver(fabric), false, new PrintStream(OutputStream.nullOutputStream()))
                    .withHoldObserver(holds::addAll).run(LockProtocols.byName("shiftlock"), unchecked);
        }
        assertEquals(plain.measuredOps(), observed.measuredOps());
        assertEquals(plain.operationLatency(), observed.operationLatency());
        assertEquals(plain.lockOpsPerCycle().oneSided(), observed.lockOpsPerCycle().oneSided());
        assertFalse(observed.check().enabled(), "an observed run is not a checked one");
        assertTrue(holds.size() > observed.measuredOps(), "warmup holds too: " + holds.size());
        assertTrue(holds.stream().allMatch(h -> h.requestedAt() <= h.grantedAt() && h.grantedAt() <= h.releasedAt()));
    }

    @Test
    void measuresInVirtualTimeAndTheSameSeedGivesTheSameRun() {
        LockProtocol cas = LockProtocols.byName("cas");
        RunResult a = run(cas, WORKLOAD, FaultPlan.NONE, 5);
        RunResult b = run(cas, WORKLOAD, FaultPlan.NONE, 5);
        RunResult c = run(cas, WORKLOAD, FaultPlan.NONE, 6);
        assertTrue(a.check().clean(), a.check().violations().toString());
        assertEquals("sim", a.fabric());
        assertTrue(a.measuredOps() > 100, "ops " + a.measuredOps());
        // the measured phase is virtual: 5 ms, give or take the last operations
        assertTrue(a.measuredNs() >= 5_000_000 && a.measuredNs() < 5_500_000, "measured " + a.measuredNs());
        assertEquals(a.measuredOps(), b.measuredOps());
        assertEquals(a.retries(), b.retries());
        assertEquals(a.operationLatency(), b.operationLatency());
        assertNotEquals(a.retries() + "/" + a.measuredOps(), c.retries() + "/" + c.measuredOps(),
                "another seed is another run");
        assertTrue(a.crossCheck().agree());
    }

    @Test
    void aReleaseThatForgetsToReleaseIsCaughtAsStuckClients() {
        RunResult r = run(FaultyProtocols.forgetfulRelease(50), WORKLOAD, FaultPlan.NONE, 1);
        assertFalse(r.faults().stuckClients().isEmpty(), "a lock never released blocks the others");
        assertTrue(r.faults().livenessAsserted(), "no crash: liveness is asserted");
        assertTrue(r.violations().stream().anyMatch(v -> v instanceof Violation.Stuck), r.violations().toString());
    }

    @Test
    void aLockWithoutExclusionIsCaughtInVirtualTime() {
        RunResult r = run(FaultyProtocols.noExclusion(), WORKLOAD, FaultPlan.NONE, 1);
        assertTrue(r.check().violations().stream().anyMatch(v -> v instanceof Violation.Overlap));
        assertTrue(r.check().violations().stream().anyMatch(v -> v instanceof Violation.Counter),
                "racing increments of the guarded counter are lost");
        assertTrue(r.faults().hazards().isEmpty(), "no pause, no excuse");
    }

    @Test
    void aCrashedCasHolderBlocksItsLockButThatIsNotAViolation() {
        LockProtocol cas = LockProtocols.byName("cas");
        PointWorkload oneLock = WORKLOAD.toBuilder().locks(1).build();
        for (long seed = 1; seed <= 20; seed++) {
            RunResult r = run(cas, oneLock, FaultPlan.parse("crash"), seed);
            assertTrue(r.violations().isEmpty(), "seed " + seed + ": " + r.violations());
            if (!r.faults().recoveries().isEmpty()) {
                assertFalse(r.faults().livenessAsserted());
                assertEquals(3, r.faults().stuckClients().size(), "everyone else waits forever, seed " + seed);
                assertFalse(r.faults().recoveries().getFirst().recovered());
                return;
            }
        }
        fail("no seed of 20 crashed a holder");
    }

    @Test
    void aCrashedDslrHolderIsRecoveredWithinTheBoundAndNotBeforeTheLease() {
        LockProtocol dslr = LockProtocols.byName("dslr");
        PointWorkload oneLock = WORKLOAD.toBuilder().locks(1).options(SHORT_LEASE).build();
        var model = dslr.failureModel(SHORT_LEASE.forProtocol(dslr));
        int recovered = 0;
        for (long seed = 1; seed <= 100 && recovered < 3; seed++) {
            RunResult r = run(dslr, oneLock, FaultPlan.parse("crash=2"), seed);
            assertTrue(r.violations().isEmpty(), "seed " + seed + ": " + r.violations());
            assertTrue(r.faults().stuckClients().isEmpty(), "seed " + seed + ": dslr recovers");
            for (FaultOutcome.Recovery rec : r.faults().recoveries()) {
                assertTrue(rec.recovered(), "seed " + seed + ": " + rec);
                assertTrue(rec.recoveryNs() <= model.recoveryBoundNs() * r.faults().crashedClients().size(),
                        "one bound per crashed client, seed " + seed + ": " + rec);
                assertTrue(rec.recoveryNs() >= model.leaseNs(), "nobody may skip a holder within its lease: " + rec);
                recovered++;
            }
        }
        assertTrue(recovered >= 3, "only " + recovered + " holder crashes in 100 seeds");
    }

    @Test
    void pausesPastTheLeaseAreHazardsAndShorterOnesAreHarmless() {
        LockProtocol dslr = LockProtocols.byName("dslr");
        PointWorkload oneLock = WORKLOAD.toBuilder().locks(1).options(SHORT_LEASE).build();
        long hazards = 0;
        for (long seed = 1; seed <= 100 && hazards == 0; seed++) {
            RunResult r = run(dslr, oneLock, FaultPlan.parse("pause=4@5ms"), seed);
            assertTrue(r.violations().isEmpty(), "seed " + seed + ": " + r.violations());
            hazards += r.faults().hazards().size();
            for (FaultOutcome.Hazard h : r.faults().hazards()) {
                assertTrue(h.reason().contains("> lease 1ms"), h.description());
            }
            RunResult shortPauses = run(dslr, oneLock, FaultPlan.parse("pause=3@100us..900us"), seed);
            assertTrue(shortPauses.violations().isEmpty(), "seed " + seed + ": " + shortPauses.violations());
            assertTrue(shortPauses.faults().hazards().isEmpty(), "pauses under the lease are no excuse");
        }
        assertTrue(hazards > 0, "a 5 ms pause of a holder with a 1 ms lease must let another client in");
    }

    /**
     * A message lost between live clients is, to its receiver, its sender's crash: mcs, which does
     * not recover from one, may leave clients blocked (its nature, not a violation), while shiftlock
     * must still let every live client finish.
     */
    @Test
    void aLostMessageExcusesStuckClientsOnlyOfAProtocolWithoutRecovery() {
        PointWorkload oneLock = WORKLOAD.toBuilder().locks(1).build();
        RunResult mcs = run(LockProtocols.byName("mcs"), oneLock, FaultPlan.parse("drop=0.05"), 1);
        assertTrue(mcs.faults().droppedMessages() > 0);
        assertFalse(mcs.faults().stuckClients().isEmpty(), "a lost Successor or Handover blocks the mcs queue");
        assertFalse(mcs.faults().livenessAsserted());
        assertEquals(List.of(), mcs.violations());
        assertTrue(io.lockfabric.bench.sim.FaultSummary.describe(mcs)
                .contains("(expected: mcs does not recover from a crashed client or a lost message)"),
                io.lockfabric.bench.sim.FaultSummary.describe(mcs));
        PointWorkload shortLease = oneLock.toBuilder()
                .options(ProtocolOptions.parse(List.of("shiftlock.lease-ns=1ms"))).build();
        RunResult shiftlock = run(LockProtocols.byName("shiftlock"), shortLease, FaultPlan.parse("drop=0.05"), 1);
        assertTrue(shiftlock.faults().droppedMessages() > 0);
        assertTrue(shiftlock.faults().livenessAsserted());
        assertEquals(List.of(), shiftlock.violations());
        assertEquals(List.of(), shiftlock.faults().stuckClients());
    }

    /**
     * The liveness bound grows by one recovery bound per message lost after a waiting client's
     * last progress, but a lock that never recovers is still found: once everyone is blocked no
     * message is lost any more, and the stuck clients are reported.
     */
    @Test
    void messageLossDoesNotHideALockThatNeverRecovers() {
        RunResult r = run(FaultyProtocols.forgetfulReleaseClaimingRecovery(50), WORKLOAD, FaultPlan.parse("drop=0.5"), 1);
        assertTrue(r.faults().droppedMessages() > 0);
        assertTrue(r.faults().livenessAsserted());
        assertFalse(r.faults().stuckClients().isEmpty());
        assertTrue(r.violations().stream().anyMatch(v -> v instanceof Violation.Stuck), r.violations().toString());
    }

    @Test
    void faultsComeFromTheSeedAndAreReported() {
        FaultPlan plan = FaultPlan.parse("crash=2,pause=1@2ms,mn-pause=1@50us");
        RunResult a = run(LockProtocols.byName("cas-rw"), WORKLOAD, plan, 9);
        RunResult b = run(LockProtocols.byName("cas-rw"), WORKLOAD, plan, 9);
        assertEquals(4, a.faults().faults().size());
        assertEquals(a.faults().faults(), b.faults().faults());
        assertEquals(a.measuredOps(), b.measuredOps());
        for (Fault f : a.faults().faults()) {
            assertTrue(f.atNs() >= 0 && f.atNs() < WORKLOAD.durationNs(), f.toString());
        }
        assertEquals(plan.spec(), a.faults().plan());
    }

    @Test
    void faultsNeedTheSimulatorAndADuration() {
        try (var local = io.lockfabric.local.LocalFabric.builder().build()) {
            assertThrows(IllegalArgumentException.class, () -> SimDriver.of(local), "faults need the simulator");
        }
        PointWorkload byOps = WORKLOAD.toBuilder().operations(100).build();
        assertThrows(IllegalArgumentException.class,
                () -> run(LockProtocols.byName("cas"), byOps, FaultPlan.parse("pause"), 1));
    }
}
