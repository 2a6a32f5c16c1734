package io.lockfabric.bench.range;

import io.lockfabric.fabric.VerbKind;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.citron.CitronProfile;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The range runner on the local and sim fabrics, small: counts add up, checker on, sim replayable. */
class RangeRunnerTest {
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private static RangeRunResult sim(RangeBenchConfig config, long seed) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2)
                .clientsPerComputeNode(config.clients() / 2).seed(seed).build())) {
            return new RangeRunner(fabric, false, QUIET).run(RangeLockProtocols.byName("citron"), config);
        }
    }

    private static RangeBenchConfig.Builder small() {
        // a small tree (N = 2^14) and a hot skew, so ranges do collide
        return RangeBenchConfig.builder().clients(6).units(1L << 14).zipf(0.99).sizes(RangeBenchConfig.MIXED);
    }

    @Test
    void localRunByOperationsCountsEveryAcquisitionAndChecksThem() {
        RangeBenchConfig config = small().operations(600).warmupNs(0).csNs(1_000).build();
        try (LocalFabric fabric = LocalFabric.builder().seed(3).build()) {
            RangeRunResult r = new RangeRunner(fabric, false, QUIET).run(RangeLockProtocols.byName("citron"), config);
            assertEquals(600, r.measuredOps());
            assertEquals(600, r.holdsChecked());
            assertTrue(r.correct(), () -> r.violations().toString());
            // a third of the clients per size: 2 clients x 100 operations each
            assertEquals(200L, r.opsBySize().get(1L));
            assertEquals(200L, r.opsBySize().get(256L));
            assertTrue(r.verbsPerAcquisition().oneSided() >= 2, "an acquisition and a release each take a verb");
            assertTrue(r.timingAborts() >= 0, "citron counts timing aborts");
        }
    }

    @Test
    void simRunMeasuresVirtualTimeAndReplaysExactly() {
        RangeBenchConfig config = small().durationNs(2_000_000).warmupNs(500_000).build();
        RangeRunResult a = sim(config, 7);
        RangeRunResult b = sim(config, 7);
        assertTrue(a.correct(), () -> a.violations().toString());
        assertTrue(a.measuredOps() > 100, "measured " + a.measuredOps());
        assertTrue(a.holdsChecked() > a.measuredOps(), "the warmup's grants are checked too");
        // virtual time: the measured window is the configured one (within one operation)
        assertTrue(a.measuredNs() >= 2_000_000 && a.measuredNs() < 2_500_000, "measured " + a.measuredNs());
        assertTrue(a.acquireLatency().p50Us() > 0 && a.acquireLatency().p99Us() >= a.acquireLatency().p50Us());
        assertTrue(a.verbsPerAcquisition().get(VerbKind.MCAS) > 0, "leaves are locked with masked CAS");
        assertEquals(a.measuredOps(), b.measuredOps());
        assertEquals(a.acquireLatency(), b.acquireLatency());
        assertEquals(a.verbsPerAcquisition(), b.verbsPerAcquisition());
        assertEquals(a.mechanism(), b.mechanism(), "the mechanism replays too");
    }

    @Test
    void simRunReportsCitronsPhasesAndTheMemoryNodesQueueingOfTheMeasuredPhase() {
        RangeBenchConfig config = small().durationNs(1_000_000).warmupNs(300_000).build();
        RangeRunResult r = sim(config, 11);
        RangeMechanism m = r.mechanism();
        CitronProfile citron = CitronProfile.of(r.stats());
        // a request may straddle the phase boundary: acquisitions begun differ from those measured by a few
        assertTrue(Math.abs(citron.acquisitions() - r.measuredOps()) <= config.clients(), citron.toString());
        assertTrue(citron.totalNs() > 0 && citron.nodesAcquired() >= citron.acquisitions() - config.clients());
        assertEquals(RangeBenchConfig.MIXED.stream().sorted().toList(), m.statsBySize().keySet().stream().sorted().toList());
        long ticket = m.statsBySize().values().stream().mapToLong(p -> CitronProfile.of(p).ticketNs()).sum();
        assertEquals(citron.ticketNs(), ticket, "the sizes add up to the whole");
        assertTrue(m.nic() != null && m.nic().verbs() > 0, "the sim run tracked the memory node's queueing");
        long measuredVerbs = Math.round(r.verbsPerAcquisition().oneSided() * r.measuredOps());
        assertTrue(Math.abs(m.nic().verbs() - measuredVerbs) < measuredVerbs / 5,
                "the NIC saw the measured phase's verbs: " + m.nic().verbs() + " vs " + measuredVerbs);
        assertTrue(m.nameOf(m.nic().words().get(0).address()).startsWith("node "), "hot words are named: " + m);
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(3).seed(11).build())) {
            RangeRunResult ss = new RangeRunner(fabric, false, QUIET).run(RangeLockProtocols.byName("ss-exact"), config);
            assertEquals(0, CitronProfile.of(ss.stats()).totalNs(), "no citron profile for other protocols");
            assertFalse(CitronProfile.reportedBy(ss.stats()));
            assertEquals(-1, ss.timingAborts(), "ss does not time its notifications");
            assertTrue(ss.mechanism().nic() != null && ss.mechanism().nic().verbs() > 0);
        }
    }

    @Test
    void optionsReachTheProtocolAndBadOnesFailClearly() {
        RangeBenchConfig slow = small().operations(60).warmupNs(0).options(List.of("citron.fast-path=0")).build();
        RangeBenchConfig fast = small().operations(60).warmupNs(0).build();
        RangeRunResult off = sim(slow, 1);
        RangeRunResult on = sim(fast, 1);
        assertTrue(off.correct() && on.correct());
        assertTrue(on.acquireLatency().p50Us() < off.acquireLatency().p50Us(),
                "fast path on " + on.acquireLatency() + " vs off " + off.acquireLatency());
        var bad = small().operations(10).options(List.of("no-such-option=1")).build();
        var e = assertThrows(IllegalArgumentException.class,
                () -> bad.validateOptions(List.of(RangeLockProtocols.byName("citron"))));
        assertTrue(e.getMessage().contains("no-such-option"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RangeBenchConfig.parseSizes("huge"));
        assertEquals(RangeBenchConfig.MIXED, RangeBenchConfig.parseSizes("mixed"));
    }
}
