package io.lockfabric.bench.sim;

import io.lockfabric.bench.FaultOutcome;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.check.Hold;
import io.lockfabric.check.Violation;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.Mode;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.Fault;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a faulty run's findings are read against the protocol's failure model. */
@Tag("faults")
class FaultAnalysisTest {
    private static final long MS = 1_000_000;
    /** Client 0 paused 5 ms from 1 ms. */
    private static final List<Fault> PAUSE_OF_CLIENT_0 = List.of(new Fault(Fault.Kind.PAUSE, 0, MS, 5 * MS));
    /** Issue 15's sweep: 2 CNs x 4 clients, 8 locks, zipf 0.99, half reads, 100 ms. */
    private static final SimConfig CLUSTER = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).memoryNodes(1)
            .build();
    private static final PointWorkload SWEEP = PointWorkload.builder().clients(8).locks(8).zipf(0.99).readRatio(0.5)
            .cs(1).durationNs(100 * MS).warmupNs(0).check(true).build();

    private static Violation.Overlap overlap(Mode pausedClientsMode) {
        Hold paused = new Hold(0, 0, 1, pausedClientsMode, 1, 0, 100, 6 * MS);
        Hold other = new Hold(1, 0, 1, Mode.EXCLUSIVE, 2, 2 * MS, 2 * MS, 3 * MS);
        return new Violation.Overlap(paused, other);
    }

    private static FaultAnalysis analysis(FailureModel model) {
        return new FaultAnalysis(model, PAUSE_OF_CLIENT_0, new long[] {-1, -1}, new long[] {-1, -1}, 0);
    }

    @Test
    void theOpenHoldOfAClientThatGaveUpEndsWhereItGaveUpAndIsNoCrash() {
        FaultAnalysis analysis = new FaultAnalysis(FailureModel.NONE, List.of(),
                new long[] {-1, -1}, new long[] {-1, 4 * MS}, 0);
        Hold open = new Hold(1, 0, 1, Mode.EXCLUSIVE, 1, MS, 2 * MS, Hold.NEVER);
        Hold done = new Hold(0, 0, 1, Mode.EXCLUSIVE, 2, 0, 100, 200);
        List<Hold> adjusted = analysis.adjust(List.of(done, open));
        assertEquals(done, adjusted.get(0));
        assertEquals(4 * MS, adjusted.get(1).releasedAt(), "it was releasing when its successor was gone");
        assertEquals(java.util.Map.of(), analysis.uncertainIncrements(), "its increment landed before the release");
        assertEquals(List.of(), analysis.recoveries(adjusted), "nothing to recover: the client is alive");
    }

    @Test
    void aReadLeaseExcusesAPausedReaderOnly() {
        FaultAnalysis drtmLike = analysis(FailureModel.readLease(500_000, "readers leased"));
        FaultAnalysis.Split reader = drtmLike.classify(List.of(overlap(Mode.SHARED)));
        assertEquals(List.of(), reader.violations());
        assertEquals(1, reader.hazards().size());
        assertTrue(reader.hazards().getFirst().reason().contains("client 0 was paused 5ms > lease 500us"),
                reader.hazards().getFirst().reason());
        FaultAnalysis.Split writer = drtmLike.classify(List.of(overlap(Mode.EXCLUSIVE)));
        assertEquals(1, writer.violations().size(), "a writer holds no lease: its pause excuses nothing");
        assertEquals(List.of(), writer.hazards());
    }

    @Test
    void aLeaseOfEveryModeExcusesBothAndNoLeaseExcusesNone() {
        FaultAnalysis leased = analysis(FailureModel.lease(MS, 4 * MS, "all leased"));
        assertEquals(1, leased.classify(List.of(overlap(Mode.EXCLUSIVE))).hazards().size());
        assertEquals(1, leased.classify(List.of(overlap(Mode.SHARED))).hazards().size());
        FaultAnalysis none = analysis(FailureModel.NONE);
        assertEquals(1, none.classify(List.of(overlap(Mode.SHARED))).violations().size());
    }

    private static final FailureModel BOUND_4MS = FailureModel.lease(MS, 4 * MS, "bound 4 ms");

    /** A crash of client 0 at 10 ms and the lock granted again after {@code ns}. */
    private static FaultOutcome.Recovery recoveredAfter(long ns) {
        return new FaultOutcome.Recovery(0, 0, 10 * MS, 10 * MS + ns);
    }

    private static FaultAnalysis crashAt10ms(long maxDelayNs, Fault... others) {
        List<Fault> faults = new ArrayList<>(List.of(new Fault(Fault.Kind.CRASH, 0, 10 * MS, 0)));
        faults.addAll(List.of(others));
        return new FaultAnalysis(BOUND_4MS, faults, new long[] {10 * MS, -1, -1}, new long[] {-1, -1, -1}, maxDelayNs);
    }

    @Test
    void aPauseWidensARecoveryByItsPartInsideItAtMostOneBound() {
        // 11 ms pause of client 1 that began 10 ms before the crash: 1 ms of it lies in the recovery
        FaultAnalysis mostlyBefore = crashAt10ms(0, new Fault(Fault.Kind.PAUSE, 1, 0, 11 * MS));
        assertEquals(5 * MS, mostlyBefore.allowanceNs(recoveredAfter(6 * MS)));
        assertEquals(1, mostlyBefore.slowRecoveries(List.of(recoveredAfter(6 * MS))).size(),
                "the pause's 10 ms before the crash cannot have held the recovery up");
        // 10 ms pause inside the recovery: a client paused past the lease is skipped like a crashed one
        FaultAnalysis inside = crashAt10ms(0, new Fault(Fault.Kind.PAUSE, 1, 11 * MS, 10 * MS));
        assertEquals(8 * MS, inside.allowanceNs(recoveredAfter(12 * MS)));
        assertEquals(1, inside.slowRecoveries(List.of(recoveredAfter(12 * MS))).size());
        assertEquals(0, inside.slowRecoveries(List.of(recoveredAfter(8 * MS))).size());
        // a pause after the lock was granted again changes nothing
        assertEquals(4 * MS, crashAt10ms(0, new Fault(Fault.Kind.PAUSE, 1, 30 * MS, 10 * MS))
                .allowanceNs(recoveredAfter(5 * MS)));
    }

    @Test
    void aMemoryNodePauseWidensByItsPartInsideDelaysByTheLongestDelayCrashesByABoundEach() {
        assertEquals(4 * MS + 9 * MS, crashAt10ms(0, new Fault(Fault.Kind.MN_PAUSE, 0, 11 * MS, 9 * MS))
                .allowanceNs(recoveredAfter(20 * MS)), "nothing is served while the memory node is paused");
        assertEquals(4 * MS + 100_000, crashAt10ms(100_000).allowanceNs(recoveredAfter(5 * MS)));
        var twoCrashes = new FaultAnalysis(BOUND_4MS, List.of(new Fault(Fault.Kind.CRASH, 0, 10 * MS, 0),
                new Fault(Fault.Kind.CRASH, 1, 12 * MS, 0)), new long[] {10 * MS, 12 * MS, -1}, new long[] {-1, -1, -1}, 0);
        assertEquals(8 * MS, twoCrashes.allowanceNs(recoveredAfter(5 * MS)));
        assertEquals(4 * MS, twoCrashes.allowanceNs(recoveredAfter(MS)), "the second crash came after the grant");
    }

    /**
     * Issue 15's dslr recovery of 29.6 ms against a bound of 23.5 ms (seed 1287): the lease reset
     * came within the bound and made a paused client the holder, which saw it only when its 12.2 ms
     * pause ended. Within the bound widened by the pause: not a finding.
     */
    @Test
    void dslrsRecoveryHeldUpByAPausedNextHolderIsWithinTheWidenedBound() {
        LockProtocol dslr = LockProtocols.byName("dslr");
        SimCheck<LockProtocol> check = new SimCheck<>(CLUSTER, SWEEP, FaultPlan.parse("crash,pause,drop,delay"));
        RunResult r = check.run(dslr, 1287);
        assertEquals(List.of(), r.violations());
        long bound = dslr.failureModel(SWEEP.options().forProtocol(dslr)).recoveryBoundNs();
        FaultOutcome.Recovery rec = r.faults().recoveries().stream().filter(FaultOutcome.Recovery::recovered)
                .findFirst().orElseThrow();
        assertTrue(rec.recoveryNs() > bound && rec.recoveryNs() < bound + r.faults().faults().stream()
                .filter(f -> f.kind() == Fault.Kind.PAUSE).mapToLong(Fault::lengthNs).sum(), rec.toString());
    }

    /**
     * Issue 15: a drtm reader paused 11 ms past its lease while holding (seed 107) overlaps the
     * writers that took the expired lease. That is the lease hazard DrTM's readers declare, not a
     * mutual-exclusion violation.
     */
    @Test
    void aDrtmReaderPausedPastItsLeaseIsTheHazard() {
        SimCheck<LockProtocol> check = new SimCheck<>(CLUSTER, SWEEP, FaultPlan.parse("crash=1,pause=1,drop=0.01"));
        RunResult r = check.run(LockProtocols.byName("drtm"), 107);
        assertEquals(List.of(), r.violations());
        assertTrue(r.faults().hazards().size() >= 10, "the paused reader overlaps the writers after its lease: "
                + r.faults().hazards().size());
        for (FaultOutcome.Hazard h : r.faults().hazards()) {
            Violation.Overlap o = (Violation.Overlap) h.finding();
            Hold reader = o.first().client() == 1 ? o.first() : o.second();
            assertEquals(1, reader.client(), h.description());
            assertEquals(Mode.SHARED, reader.mode(), h.description());
            assertTrue(h.reason().startsWith("client 1 was paused"), h.reason());
        }
    }
}
