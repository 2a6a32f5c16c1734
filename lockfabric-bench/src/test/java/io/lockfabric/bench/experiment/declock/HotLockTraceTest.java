package io.lockfabric.bench.experiment.declock;

import io.lockfabric.check.Hold;
import io.lockfabric.lock.Mode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The hot-lock trace on hand-made histories: phases, handover kinds, gaps, nodes, the window. */
@Tag("experiments")
class HotLockTraceTest {
    private static Hold hold(int client, Mode mode, long requested, long granted, long released) {
        return new Hold(client, 0, 1, mode, 0, requested, granted, released);
    }

    @Test
    void cutsHoldsIntoPhasesAndMeasuresContendedHandovers() {
        List<Hold> holds = List.of(
                hold(0, Mode.EXCLUSIVE, 0, 0, 10),        // W, client 0 (node 0)
                hold(1, Mode.SHARED, 2, 13, 30),          // R phase: waited, gap 3 (W>R, same node)
                hold(5, Mode.SHARED, 4, 14, 25),          //   joins (overlaps)
                hold(6, Mode.EXCLUSIVE, 5, 34, 40),       // W: waited, gap 4 after the last reader (R>W, cross node)
                hold(7, Mode.EXCLUSIVE, 50, 50, 60),      // W: asked after 40, so not contended
                hold(2, Mode.SHARED, 90, 90, 95),         // R
                hold(3, Mode.SHARED, 91, 96, 99),         // R after R released: a new read phase (R>R, gap 1)
                new Hold(9, 1, 2, Mode.EXCLUSIVE, 0, 0, 0, 100)); // another lock: ignored
        HotLockTrace t = HotLockTrace.of(holds, 0, 4, 0, 100);
        assertEquals(7, t.grants());
        assertEquals(4, t.readers());
        assertEquals(3, t.readPhases());
        assertEquals(3, t.writePhases());
        assertEquals(4.0 / 3, t.readersPerReadPhase(), 1e-9);
        assertEquals(3, t.contended());
        assertEquals(1, t.transitions()[HotLockTrace.kind(Mode.EXCLUSIVE, Mode.SHARED)]);
        assertEquals(1, t.transitions()[HotLockTrace.kind(Mode.SHARED, Mode.EXCLUSIVE)]);
        assertEquals(1, t.transitions()[HotLockTrace.kind(Mode.SHARED, Mode.SHARED)]);
        assertEquals(0, t.transitions()[HotLockTrace.kind(Mode.EXCLUSIVE, Mode.EXCLUSIVE)]);
        assertEquals((3 + 4 + 1) / 3.0 / 1e3, t.gapUs(), 1e-12);
        // clients 0 and 1 share node 0 (4 per node); 1 -> 6 and 2 -> 3 do not... 2 and 3 do
        assertEquals(2, t.sameNode());
        // held: [0,10) + [13,30) + [34,40) + [50,60) + [90,95) + [96,99) = 51 of 100
        assertEquals(0.51, t.busyShare(), 1e-9);
        assertEquals((29 + 0 + 0) / 3.0 / 1e3, t.exclusiveWaitUs(), 1e-12);
    }

    @Test
    void countsOnlyPhasesThatBeginInTheWindowAndAddsLocksUp() {
        List<Hold> holds = List.of(
                hold(0, Mode.EXCLUSIVE, 0, 0, 10),
                hold(1, Mode.EXCLUSIVE, 5, 12, 20),
                hold(2, Mode.EXCLUSIVE, 15, 22, Hold.NEVER),
                new Hold(3, 1, 2, Mode.SHARED, 0, 0, 30, 40));
        HotLockTrace t = HotLockTrace.of(holds, 0, 32, 11, 50);
        assertEquals(2, t.grants());
        assertEquals(2, t.contended(), "the handover into the window's first phase counts");
        assertEquals((2 + 2) / 2.0 / 1e3, t.gapUs(), 1e-12);
        assertEquals((20 - 12) + (50 - 22), t.busyNs(), "a hold never released ends at the window's end");
        HotLockTrace both = HotLockTrace.ofHottest(holds, 2, 32, 11, 50);
        assertEquals(3, both.grants());
        assertEquals(1, both.readPhases());
        assertEquals(2 * 39, both.windowNs());
    }
}
