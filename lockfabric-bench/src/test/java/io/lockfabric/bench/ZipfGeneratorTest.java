package io.lockfabric.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZipfGeneratorTest {
    private static final int SAMPLES = 400_000;

    /** Top ranks' frequencies against the exact pmf, within 5 standard deviations of a binomial. */
    @ParameterizedTest
    @CsvSource({"100, 0.5", "1000, 0.99", "1000, 1.0", "10000, 1.5", "50, 3.0", "10000000, 0.99", "10000000, 1.2"})
    void topRanksFollowThePmf(long n, double theta) {
        ZipfGenerator zipf = new ZipfGenerator(n, theta);
        int top = 8;
        long[] counts = new long[top];
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < SAMPLES; i++) {
            long v = zipf.next(random);
            assertTrue(v >= 0 && v < n, "value " + v + " outside [0, " + n + ")");
            if (v < top) {
                counts[(int) v]++;
            }
        }
        double norm = zipf.normalization();
        for (int k = 0; k < top; k++) {
            double p = zipf.probability(k, norm);
            double expected = p * SAMPLES;
            double sigma = Math.sqrt(SAMPLES * p * (1 - p));
            assertEquals(expected, counts[k], 5 * sigma + 1,
                    "rank " + k + " of " + zipf + ": expected " + expected + ", got " + counts[k]);
        }
        assertTrue(counts[0] > counts[1], "value 0 must be the hottest");
    }

    @Test
    void uniformWhenThetaIsZero() {
        int n = 20;
        ZipfGenerator zipf = new ZipfGenerator(n, 0.0);
        long[] counts = new long[n];
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < SAMPLES; i++) {
            counts[(int) zipf.next(random)]++;
        }
        double expected = (double) SAMPLES / n;
        double chi2 = 0;
        for (long c : counts) {
            chi2 += (c - expected) * (c - expected) / expected;
        }
        // 19 degrees of freedom: P(chi2 > 50) < 1e-4.
        assertTrue(chi2 < 50, "chi-square " + chi2 + " too large for a uniform law");
    }

    @Test
    void smallThetaIsCloseToUniformButSkewed() {
        ZipfGenerator zipf = new ZipfGenerator(1000, 0.1);
        SplittableRandom random = new SplittableRandom(11);
        long low = 0;
        for (int i = 0; i < SAMPLES; i++) {
            if (zipf.next(random) < 500) {
                low++;
            }
        }
        double norm = zipf.normalization();
        double pLow = 0;
        for (int k = 0; k < 500; k++) {
            pLow += zipf.probability(k, norm);
        }
        double sigma = Math.sqrt(SAMPLES * pLow * (1 - pLow));
        assertEquals(pLow * SAMPLES, low, 5 * sigma);
        assertTrue(low > SAMPLES / 2, "the lower half must be hotter");
    }

    @Test
    void sameSeedSameSequence() {
        ZipfGenerator zipf = new ZipfGenerator(1_000_000, 0.99);
        SplittableRandom a = new SplittableRandom(5);
        SplittableRandom b = new SplittableRandom(5);
        for (int i = 0; i < 1000; i++) {
            assertEquals(zipf.next(a), zipf.next(b));
        }
    }

    @Test
    void singleValueAlwaysZero() {
        ZipfGenerator zipf = new ZipfGenerator(1, 0.99);
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 100; i++) {
            assertEquals(0, zipf.next(random));
        }
    }

    @Test
    void rejectsBadParameters() {
        assertThrows(IllegalArgumentException.class, () -> new ZipfGenerator(0, 0.5));
        assertThrows(IllegalArgumentException.class, () -> new ZipfGenerator(10, -0.1));
        assertThrows(IllegalArgumentException.class, () -> new ZipfGenerator(10, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new ZipfGenerator(10, Double.POSITIVE_INFINITY));
    }
}
