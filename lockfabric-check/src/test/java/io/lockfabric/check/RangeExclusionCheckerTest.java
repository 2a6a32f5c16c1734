package io.lockfabric.check;

import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RangeExclusionCheckerTest {
    private static Hold h(int client, long s, long e, Mode m, long from, long to) {
        return new Hold(client, s, e, m, 0, from, to);
    }

    @Test
    void overlappingWritersAtOneTimeAreCaught() {
        var v = RangeExclusionChecker.violations(List.of(
                h(1, 0, 100, Mode.EXCLUSIVE, 0, 10),
                h(2, 99, 200, Mode.EXCLUSIVE, 5, 15)));
        assertEquals(1, v.size());
        assertTrue(v.getFirst().description().contains("[0, 100)"));
    }

    private static Hold t(int client, long s, long e, Mode m, long token, long from, long to) {
        return new Hold(client, s, e, m, token, from, to);
    }

    @Test
    void fencingTokensMustIncreaseAcrossOverlappingRangesOnly() {
        assertTrue(RangeExclusionChecker.fencing(List.of(
                t(1, 0, 100, Mode.EXCLUSIVE, 5, 0, 10),
                t(2, 100, 200, Mode.EXCLUSIVE, 1, 12, 20),  // disjoint: any token
                t(3, 50, 150, Mode.EXCLUSIVE, 6, 21, 30),
                t(4, 60, 70, Mode.SHARED, 6, 31, 40))).isEmpty());
        var v = RangeExclusionChecker.fencing(List.of(
                t(1, 0, 100, Mode.EXCLUSIVE, 5, 0, 10),
                t(2, 99, 200, Mode.EXCLUSIVE, 5, 12, 20)));   // overlaps [0, 100) and did not increase
        assertEquals(1, v.size());
        assertTrue(v.getFirst().description().contains("fencing"));
    }

    @Test
    void adjacentRangesSequentialTimesAndReadersAreFine() {
        assertTrue(RangeExclusionChecker.violations(List.of(
                h(1, 0, 100, Mode.EXCLUSIVE, 0, 10),
                h(2, 100, 200, Mode.EXCLUSIVE, 0, 10),   // adjacent, not overlapping
                h(3, 50, 150, Mode.EXCLUSIVE, 10, 20),   // after both
                h(4, 0, 1000, Mode.SHARED, 20, 30),
                h(5, 500, 600, Mode.SHARED, 25, 35))).isEmpty());
    }

    @Test
    void aReaderInsideAWritersRangeIsCaught() {
        var v = RangeExclusionChecker.violations(List.of(
                h(1, 0, 10_000, Mode.EXCLUSIVE, 0, 100),
                h(2, 5_000, 5_001, Mode.SHARED, 50, 60)));
        assertEquals(1, v.size());
    }

    /** The sweep agrees with the all-pairs definition on random histories. */
    @Test
    void agreesWithAllPairsOnRandomHistories() {
        var rnd = new SplittableRandom(5);
        for (int round = 0; round < 200; round++) {
            List<Hold> holds = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                long s = rnd.nextLong(1000);
                long t = rnd.nextLong(1000);
                holds.add(h(i, s, s + 1 + rnd.nextLong(100), rnd.nextBoolean() ? Mode.SHARED : Mode.EXCLUSIVE, t,
                        t + 1 + rnd.nextLong(50)));
            }
            long pairs = 0;
            for (int i = 0; i < holds.size(); i++) {
                for (int j = i + 1; j < holds.size(); j++) {
                    if (RangeExclusionChecker.conflict(holds.get(i), holds.get(j))) {
                        pairs++;
                    }
                }
            }
            assertEquals(pairs, RangeExclusionChecker.violations(holds).size(), "round " + round);
        }
    }

    @Test
    void malformedHoldIsAnError() {
        assertThrows(IllegalArgumentException.class,
                () -> RangeExclusionChecker.violations(List.of(h(1, 5, 5, Mode.EXCLUSIVE, 0, 1))));
    }
}
