package io.lockfabric.bench.experiment.citron;

import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.experiment.Experiments;

import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.SimConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The range experiments' registration and protocol selection (their runs take minutes: not tests). */
@Tag("experiments")
class CitronExperimentsTest {
    @Test
    void theRangeExperimentsAreRegistered() {
        List<String> names = Experiments.names();
        for (String n : List.of("citron-fig6", "citron-fig7", "citron-fig9", "citron-fig10", "citron-fig11",
                "citron-fig12")) {
            assertTrue(names.contains(n), n);
            assertTrue(Experiments.byName(n).reference().startsWith("CITRON (FAST'23)"), n);
        }
        assertTrue(Experiments.byName("citron-fig6").selectsProtocols());
        assertTrue(Experiments.byName("citron-fig7").selectsProtocols());
        assertFalse(Experiments.byName("citron-fig9").selectsProtocols());
        assertFalse(Experiments.byName("shiftlock-fig4").selectsProtocols());
    }

    /** Deterministic (virtual time): 12 ms of the trace reach the first 10 ms maximizer poll. */
    @Test
    void fig10sSmallTreeScalesUpAtTheFirstPollAndStaysExclusive() {
        var replay = CitronScaleUpExperiment.replay(ExperimentSettings.defaults(), CitronScaleUpExperiment.SMALL_UNITS,
                12_000_000);
        assertEquals(6, replay.perBucket().length);
        assertFalse(replay.scaleUps().isEmpty(), "no scale-up in 12 ms");
        long firstAt = replay.scaleUps().firstKey();
        assertTrue(firstAt >= 10 && firstAt < 12, "first scale-up at " + firstAt + " ms, poll every 10 ms");
        assertTrue(replay.scaleUps().firstEntry().getValue() > CitronScaleUpExperiment.SMALL_UNITS);
        assertEquals(0, replay.violations());
        assertEquals(0, replay.stuck());
        assertTrue(replay.grants() > 0);
    }

    /** fig7's and fig12's sensitivity runs change the simulated RNIC only, and the default is the simulator's. */
    @Test
    void sensitivityRunsChangeOnlyTheSameWordSerialization() {
        var bench = RangeMicrobench.of("citron", List.of(1L), 0.9, 6);
        assertEquals(SimConfig.DEFAULT_SAME_WORD_SERIAL_NS, bench.sameWordSerialNs());
        var other = bench.withOptions(List.of("citron.m=3")).withSameWordSerialNs(150);
        assertEquals(150, other.sameWordSerialNs());
        assertEquals(List.of(RangeMicrobench.PAPER_CITRON, "citron.m=3"), other.options());
        assertEquals(bench.withOptions(List.of("citron.m=3")),
                other.withSameWordSerialNs(SimConfig.DEFAULT_SAME_WORD_SERIAL_NS));
    }

    /**
     * fig7 ends with what it measured about citron: the phase, size and RNIC tables for each
     * compared client count at both serializations, and a discussion quoting their numbers (short
     * runs, citron and rpc-range only).
     */
    @Test
    void fig7PrintsTheMeasuredMechanism() {
        ExperimentSettings s = ExperimentSettings.defaults().withWarmupNs(100_000).withDurationNs(200_000)
                .withProtocols(List.of("citron", "rpc-range"));
        ExperimentResult r = Experiments.byName("citron-fig7").run(s);
        var titles = r.tables().stream().map(ExperimentTable::title).toList();
        var time = r.tables().stream().filter(t -> t.title().startsWith("where citron's acquisition time goes"))
                .findFirst().orElseThrow(() -> new AssertionError("no phase table in " + titles));
        assertEquals(List.of("63 clients, 270 ns", "63 clients, 150 ns", "129 clients, 270 ns", "129 clients, 150 ns",
                "192 clients, 270 ns", "192 clients, 150 ns"), time.cells().stream().map(row -> row.get(0)).toList());
        assertTrue(titles.stream().anyMatch(t -> t.startsWith("citron at the memory node's RNIC")), titles.toString());
        assertTrue(titles.stream().anyMatch(t -> t.startsWith("citron by range size")), titles.toString());
        var nic = r.tables().stream().filter(t -> t.title().startsWith("citron at the memory node's RNIC")).findFirst()
                .orElseThrow();
        assertTrue(nic.cells().get(0).get(4).startsWith("node "), "the hottest word is a named tree node: " + nic);
        String at129 = time.cells().get(2).get(10); // timing aborts per acquisition, 129 clients, 270 ns
        assertTrue(r.discussion().contains("Why, measured"), r.discussion());
        assertTrue(r.discussion().contains(at129 + " timing aborts per acquisition"),
                "the discussion quotes the table (" + at129 + "): " + r.discussion());
        assertFalse(r.discussion().contains("not measured here"), r.discussion());
    }

    @Test
    void aRangeProtocolNotRegisteredFailsClearlyInsteadOfBeingSkipped() {
        ExperimentSettings defaults = ExperimentSettings.defaults();
        List<String> missing = RangeMicrobench.RANGE_PROTOCOLS.stream()
                .filter(p -> !RangeLockProtocols.names().contains(p)).toList();
        if (!missing.isEmpty()) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> RangeMicrobench.protocols(defaults, RangeMicrobench.RANGE_PROTOCOLS));
            for (String m : missing) {
                assertTrue(e.getMessage().contains(m), e.getMessage());
            }
            assertTrue(e.getMessage().contains("--protocols"), e.getMessage());
        }
        var e = assertThrows(IllegalArgumentException.class,
                () -> Experiments.byName("citron-fig6").run(defaults.withProtocols(List.of("citron", "nope"))));
        assertTrue(e.getMessage().startsWith("range protocol(s) nope not registered"), e.getMessage());
        assertEquals(List.of("citron"),
                RangeMicrobench.protocols(defaults.withProtocols(List.of("citron")), RangeMicrobench.RANGE_PROTOCOLS));
    }
}
