package io.lockfabric.lock.citron;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CitronTuningTest {

    @Test
    void aProposalMixesBothSettingsUntilCommitted() {
        var t = new CitronTuning(4, 15_000);
        var client = t.join();
        assertEquals(new CitronTuning.Effective(4, 4, 15_000, 15_000), client.begin());
        client.end();
        t.propose(new CitronTuning.Setting(2, 20_000));
        // notify with min m, check with max m, abort with min T, wait max T
        assertEquals(new CitronTuning.Effective(2, 4, 15_000, 20_000), client.begin());
        client.end();
        assertTrue(t.commit());
        assertEquals(new CitronTuning.Effective(2, 2, 20_000, 20_000), client.begin());
        client.end();
        assertNull(t.proposed());
        assertEquals(new CitronTuning.Setting(2, 20_000), t.current());
    }

    @Test
    void commitWaitsForNodeAcquisitionsBegunBeforeTheProposal() {
        var t = new CitronTuning(4, 15_000);
        var old = t.join();
        var fresh = t.join();
        old.begin(); // still on the old setting
        t.propose(new CitronTuning.Setting(3, 10_000));
        fresh.begin(); // received the proposal
        assertFalse(t.commit(), "a client may still be on (4, 15 us)");
        old.end();
        assertTrue(t.commit(), "an acquisition begun after the proposal does not hold the commit back");
        fresh.end();
        assertTrue(t.commit(), "nothing proposed: nothing to do");
    }

    @Test
    void aClientThatLeftDoesNotHoldTheCommitBack() {
        var t = new CitronTuning(4, 15_000);
        var gone = t.join();
        gone.begin();
        t.propose(new CitronTuning.Setting(2, 15_000));
        t.leave(gone);
        assertTrue(t.commit());
    }

    @Test
    void oneChangeAtATimeAndValidSettingsOnly() {
        var t = new CitronTuning(4, 15_000);
        t.propose(new CitronTuning.Setting(2, 15_000));
        assertThrows(IllegalStateException.class, () -> t.propose(new CitronTuning.Setting(3, 15_000)));
        assertThrows(IllegalArgumentException.class, () -> new CitronTuning.Setting(0, 15_000));
        assertThrows(IllegalArgumentException.class, () -> new CitronTuning.Setting(4, 0));
    }
}
