package io.lockfabric.bench.experiment;

import io.lockfabric.lock.RangeLockProtocols;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The range experiments' registration and protocol selection (their runs take minutes: not tests). */
class CitronExperimentsTest {
    @Test
    void theRangeExperimentsAreRegisteredAndFig10IsNot() {
        List<String> names = Experiments.names();
        for (String n : List.of("citron-fig6", "citron-fig7", "citron-fig9", "citron-fig11", "citron-fig12")) {
            assertTrue(names.contains(n), n);
            assertTrue(Experiments.byName(n).reference().startsWith("CITRON (FAST'23)"), n);
        }
        // the scale-up experiment needs the scale-up option of citron, not there yet
        assertFalse(names.contains("citron-fig10"));
        assertTrue(Experiments.byName("citron-fig6").selectsProtocols());
        assertTrue(Experiments.byName("citron-fig7").selectsProtocols());
        assertFalse(Experiments.byName("citron-fig9").selectsProtocols());
        assertFalse(Experiments.byName("shiftlock-fig4").selectsProtocols());
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
        assertTrue(e.getMessage().contains("nope") && !e.getMessage().contains("citron,"), e.getMessage());
        assertEquals(List.of("citron"),
                RangeMicrobench.protocols(defaults.withProtocols(List.of("citron")), RangeMicrobench.RANGE_PROTOCOLS));
    }
}
