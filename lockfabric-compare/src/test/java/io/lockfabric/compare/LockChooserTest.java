package io.lockfabric.compare;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LockChooserTest {

    private static double[] zipfLaw(int n, double theta) {
        double[] p = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            p[k] = Math.pow(k + 1, -theta);
            sum += p[k];
        }
        for (int k = 0; k < n; k++) {
            p[k] /= sum;
        }
        return p;
    }

    @Test
    void theTablesGiveEachLockItsZipfProbability() {
        for (int n : new int[] {2, 3, 7, 1000, 4096}) {
            for (double theta : new double[] {0.5, 0.99, 1.0, 2.0}) {
                LockChooser c = LockChooser.of(n, theta);
                assertTrue(c.tabled());
                double[] law = zipfLaw(n, theta);
                for (int k = 0; k < n; k++) {
                    assertEquals(law[k], c.tableProbability(k), 1e-12, "n " + n + ", theta " + theta + ", lock " + k);
                }
            }
        }
    }

    @Test
    void drawsFollowTheLaw() {
        int n = 1000;
        double[] law = zipfLaw(n, 0.99);
        LockChooser c = LockChooser.of(n, 0.99);
        SplittableRandom r = new SplittableRandom(42);
        int draws = 2_000_000;
        long[] count = new long[n];
        for (int i = 0; i < draws; i++) {
            count[c.next(r)]++;
        }
        double tv = 0;
        for (int k = 0; k < n; k++) {
            double expected = law[k] * draws;
            double sd = Math.sqrt(expected * (1 - law[k]));
            assertTrue(Math.abs(count[k] - expected) < 6 * sd + 1, "lock " + k + ": " + count[k] + " draws, expected " + expected);
            tv += Math.abs(count[k] / (double) draws - law[k]) / 2;
        }
        assertTrue(tv < 0.01, "total variation " + tv);
        assertTrue(count[0] > 10 * count[99], "lock 0 is the hottest");
    }

    @Test
    void uniformAndHugeLawsDrawWithoutTables() {
        LockChooser u = LockChooser.of(100_000, 0);
        assertFalse(u.tabled());
        LockChooser big = LockChooser.of(LockChooser.MAX_TABLE_LOCKS + 1, 0.99);
        assertFalse(big.tabled());
        SplittableRandom r = new SplittableRandom(7);
        long zeros = 0;
        for (int i = 0; i < 100_000; i++) {
            int a = u.next(r);
            int b = big.next(r);
            assertTrue(a >= 0 && a < 100_000 && b >= 0 && b <= LockChooser.MAX_TABLE_LOCKS);
            zeros += b == 0 ? 1 : 0;
        }
        assertTrue(zeros > 1_000, "the huge law is still skewed: lock 0 drawn " + zeros + " times");
        assertEquals(0, LockChooser.of(1, 0.99).next(r));
        assertThrows(IllegalArgumentException.class, () -> LockChooser.of(0, 0.99));
        assertThrows(IllegalArgumentException.class, () -> LockChooser.of(10, -1));
    }
}
