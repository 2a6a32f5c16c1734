package io.lockfabric.bench.range;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The false-conflict computation against brute force over every pair, on small trees. */
@Tag("experiments")
class FalseConflictsTest {
    @Test
    void exactCountEqualsBruteForceOverAllPairs() {
        long[][] cases = {{256, 16, 1}, {256, 100, 2}, {1024, 16, 1}, {1024, 48, 2}, {1024, 200, 2}, {1024, 300, 3},
                {1024, 1000, 1}};
        for (long[] c : cases) {
            FalseConflicts f = new FalseConflicts(c[0], c[1], (int) c[2]);
            long brute = f.bruteForcePairs();
            assertEquals(brute, f.exactPairs(), "N=" + c[0] + " L=" + c[1] + " k=" + c[2]);
            FalseConflicts.Rate r = f.rate(Integer.MAX_VALUE, 1);
            assertTrue(r.exact());
            long m = c[0] - c[1] + 1;
            assertEquals((double) brute / ((double) m * m), r.rate(), 1e-12);
        }
    }

    @Test
    void bruteForceFindsFalseConflictsWhereTheyExistAndNoneForLeaves() {
        // k = 1, L = 16 on N = 1024: a range across a leaf boundary takes an internal node
        assertTrue(new FalseConflicts(1024, 16, 1).bruteForcePairs() > 0);
        // k = 2, L <= 64: always leaves, never a false conflict (masked CAS inside a leaf)
        assertEquals(0, new FalseConflicts(1024, 64, 2).bruteForcePairs());
        assertEquals(0, new FalseConflicts(1024, 1, 1).exactPairs());
        // k = 2 cuts the rate for larger ranges
        assertTrue(new FalseConflicts(1024, 200, 2).exactPairs() < new FalseConflicts(1024, 200, 1).exactPairs());
    }

    @Test
    void sampledStrataEstimateTheExactRate() {
        FalseConflicts f = new FalseConflicts(16_384, 100, 1);
        double exact = f.rate(Integer.MAX_VALUE, 1).rate();
        FalseConflicts.Rate sampled = new FalseConflicts(16_384, 100, 1).rate(400, 7);
        assertTrue(!sampled.exact() && sampled.evaluated() < 10_000);
        assertEquals(exact, sampled.rate(), exact * 0.15, "exact " + exact + " sampled " + sampled.rate());
    }

    @Test
    void badInputIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new FalseConflicts(1000, 16, 2));
        assertThrows(IllegalArgumentException.class, () -> new FalseConflicts(1024, 0, 2));
        assertThrows(IllegalArgumentException.class, () -> new FalseConflicts(1024, 16, 0));
    }
}
