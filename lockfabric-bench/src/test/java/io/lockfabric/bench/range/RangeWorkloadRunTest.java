package io.lockfabric.bench.range;

import io.lockfabric.bench.CsvReport;
import io.lockfabric.bench.JsonReport;
import io.lockfabric.bench.MiniJson;
import io.lockfabric.bench.NicProbe;
import io.lockfabric.bench.RunDriver;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.TableReport;
import io.lockfabric.bench.sim.SimDriver;
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

/**
 * The range workload through the one runner on the local and sim fabrics, small: counts add up,
 * checker on, sim replayable.
 */
class RangeWorkloadRunTest {
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private static RunResult sim(RangeWorkload config, long seed) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2)
                .clientsPerComputeNode(config.clients() / 2).seed(seed).build())) {
            return new Runner(new SimDriver(fabric), false, QUIET).run(RangeLockProtocols.byName("citron"), config);
        }
    }

    private static RangeWorkload.Builder small() {
        // a small tree (N = 2^14) and a hot skew, so ranges do collide
        return RangeWorkload.builder().clients(6).units(1L << 14).zipf(0.99).sizes(RangeWorkload.MIXED);
    }

    @Test
    void localRunByOperationsCountsEveryAcquisitionAndChecksThem() {
        RangeWorkload config = small().operations(600).warmupNs(0).csNs(1_000).build();
        try (LocalFabric fabric = LocalFabric.builder().seed(3).build()) {
            RunResult r = new Runner(RunDriver.threads(fabric), false, QUIET).run(RangeLockProtocols.byName("citron"),
                    config);
            assertEquals(600, r.measuredOps());
            assertEquals(600, r.check().holds());
            assertTrue(r.correct(), () -> r.violations().toString());
            // a third of the clients per size: 2 clients x 100 operations each
            assertEquals(200L, r.opsByGroup().get(1L));
            assertEquals(200L, r.opsByGroup().get(256L));
            assertTrue(r.lockOpsPerCycle().oneSided() >= 2, "an acquisition and a release each take a verb");
            assertTrue(r.timingAborts() >= 0, "citron counts timing aborts");
        }
    }

    @Test
    void simRunMeasuresVirtualTimeAndReplaysExactly() {
        RangeWorkload config = small().durationNs(2_000_000).warmupNs(500_000).build();
        RunResult a = sim(config, 7);
        RunResult b = sim(config, 7);
        assertTrue(a.correct(), () -> a.violations().toString());
        assertTrue(a.measuredOps() > 100, "measured " + a.measuredOps());
        assertTrue(a.check().holds() > a.measuredOps(), "the warmup's grants are checked too");
        // virtual time: the measured window is the configured one (within one operation)
        assertTrue(a.measuredNs() >= 2_000_000 && a.measuredNs() < 2_500_000, "measured " + a.measuredNs());
        assertTrue(a.acquireLatency().p50Us() > 0 && a.acquireLatency().p99Us() >= a.acquireLatency().p50Us());
        assertTrue(a.lockOpsPerCycle().get(VerbKind.MCAS) > 0, "leaves are locked with masked CAS");
        assertEquals(a.measuredOps(), b.measuredOps());
        assertEquals(a.acquireLatency(), b.acquireLatency());
        assertEquals(a.lockOpsPerCycle(), b.lockOpsPerCycle());
        assertEquals(a.nic(), b.nic(), "the memory node's queueing replays too");
        assertEquals(a.stats(), b.stats(), "and so do the protocol's statistics");
        assertEquals(a.statsByGroup(), b.statsByGroup());
    }

    @Test
    void simRunReportsCitronsPhasesAndTheMemoryNodesQueueingOfTheMeasuredPhase() {
        RangeWorkload config = small().durationNs(1_000_000).warmupNs(300_000).build();
        RunResult r = sim(config, 11);
        CitronProfile citron = CitronProfile.of(r.stats());
        // a request may straddle the phase boundary: acquisitions begun differ from those measured by a few
        assertTrue(Math.abs(citron.acquisitions() - r.measuredOps()) <= config.clients(), citron.toString());
        assertTrue(citron.totalNs() > 0 && citron.nodesAcquired() >= citron.acquisitions() - config.clients());
        assertEquals(RangeWorkload.MIXED.stream().sorted().toList(),
                r.statsByGroup().keySet().stream().sorted().toList());
        long ticket = r.statsByGroup().values().stream().mapToLong(p -> CitronProfile.of(p).ticketNs()).sum();
        assertEquals(citron.ticketNs(), ticket, "the sizes add up to the whole");
        NicProbe nic = r.nic();
        assertTrue(nic != null && nic.queueing().verbs() > 0, "the sim run tracked the memory node's queueing");
        long measuredVerbs = Math.round(r.lockOpsPerCycle().oneSided() * r.measuredOps());
        assertTrue(Math.abs(nic.queueing().verbs() - measuredVerbs) < measuredVerbs / 5,
                "the NIC saw the measured phase's verbs: " + nic.queueing().verbs() + " vs " + measuredVerbs);
        assertTrue(nic.nameOf(nic.queueing().words().get(0).address()).startsWith("node "),
                "hot words are named: " + nic);
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(3).seed(11).build())) {
            RunResult ss = new Runner(new SimDriver(fabric), false, QUIET).run(RangeLockProtocols.byName("ss-exact"),
                    config);
            assertEquals(0, CitronProfile.of(ss.stats()).totalNs(), "no citron profile for other protocols");
            assertFalse(CitronProfile.reportedBy(ss.stats()));
            assertEquals(-1, ss.timingAborts(), "ss does not time its notifications");
            assertTrue(ss.nic() != null && ss.nic().queueing().verbs() > 0);
            assertTrue(ss.nic().wordNames().isEmpty(), "ss names no words");
            timingAbortsAreACountForCitronAndEmptyForOthers(r, ss);
        }
    }

    /** The reports show a count for citron and leave timing aborts empty (no -1) for protocols without them. */
    private static void timingAbortsAreACountForCitronAndEmptyForOthers(RunResult citron, RunResult ss) {
        assertTrue(citron.countsTimingAborts());
        assertFalse(ss.countsTimingAborts());
        String[] csv = new CsvReport().render(List.of(citron, ss)).split("\n", -1);
        int column = List.of(csv[0].split(",", -1)).indexOf("timing_aborts");
        assertTrue(column >= 0, csv[0]);
        assertEquals(Long.toString(citron.timingAborts()), csv[1].split(",", -1)[column], csv[1]);
        assertEquals("", csv[2].split(",", -1)[column], "ss's cell is empty: " + csv[2]);
        assertEquals(csv[0].split(",", -1).length, csv[2].split(",", -1).length, "the row keeps its width");
        String[] json = new JsonReport().render(List.of(citron, ss)).split("\n");
        assertEquals((double) citron.timingAborts(), MiniJson.object(MiniJson.parse(json[0])).get("timing_aborts"));
        var ssJson = MiniJson.object(MiniJson.parse(json[1]));
        assertTrue(ssJson.containsKey("timing_aborts") && ssJson.get("timing_aborts") == null, json[1]);
        String table = new TableReport().render(List.of(citron, ss));
        assertTrue(table.lines().anyMatch(l -> l.startsWith(ss.protocol() + " ") && l.contains(" - ")), table);
        assertFalse(table.contains("-1"), table);
    }

    @Test
    void optionsReachTheProtocolAndBadOnesFailClearly() {
        RangeWorkload slow = small().operations(60).warmupNs(0).options(List.of("citron.fast-path=0")).build();
        RangeWorkload fast = small().operations(60).warmupNs(0).build();
        RunResult off = sim(slow, 1);
        RunResult on = sim(fast, 1);
        assertTrue(off.correct() && on.correct());
        assertTrue(on.acquireLatency().p50Us() < off.acquireLatency().p50Us(),
                "fast path on " + on.acquireLatency() + " vs off " + off.acquireLatency());
        var bad = small().operations(10).options(List.of("no-such-option=1")).build();
        var e = assertThrows(IllegalArgumentException.class,
                () -> bad.validateOptions(List.of(RangeLockProtocols.byName("citron"))));
        assertTrue(e.getMessage().contains("no-such-option"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RangeWorkload.parseSizes("huge"));
        assertEquals(RangeWorkload.MIXED, RangeWorkload.parseSizes("mixed"));
    }
}
