package io.lockfabric.apps.objstore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Twitter-trace generator: value-size means over operations, get ratios, Zipf skew. */
class ObjectTraceTest {
    @ParameterizedTest
    @CsvSource({"small, 10000, 0.99, 414, 0.65", "large, 10000, 0.99, 9213, 0.89", "small, 1000, 0, 414, 0.65",
            "large, 100000, 0.9, 9213, 0.89"})
    void operationsCarryTheTracesMeanAndGetRatio(String name, long objects, double theta, double mean, double gets) {
        ObjectTrace t = ObjectTrace.byName(name, objects, theta);
        assertEquals(mean, t.expectedMeanBytes(), mean * 0.005, "expected mean over operations");
        SplittableRandom r = new SplittableRandom(7);
        int n = 400_000;
        double bytes = 0;
        long getCount = 0;
        for (int i = 0; i < n; i++) {
            long key = t.nextKey(r);
            bytes += t.sizeOf(key);
            if (t.nextIsGet(r)) {
                getCount++;
            }
        }
        // sampled: the hot head makes the sample mean noisy; 5% is far inside what a wrong law gives
        assertEquals(mean, bytes / n, mean * 0.05, "sampled mean value size");
        assertEquals(gets, (double) getCount / n, 0.005, "sampled get ratio");
        for (long k = 0; k < objects; k++) {
            int s = t.sizeOf(k);
            assertTrue(s >= 1 && s <= t.maxValueBytes(), "size of key " + k + ": " + s);
        }
    }

    @Test
    void keysFollowZipfWithKeyZeroHottest() {
        ObjectTrace t = ObjectTrace.small(1000, 0.99);
        SplittableRandom r = new SplittableRandom(1);
        long[] hits = new long[1000];
        int n = 500_000;
        for (int i = 0; i < n; i++) {
            hits[(int) t.nextKey(r)]++;
        }
        assertEquals(t.probabilityOf(0), (double) hits[0] / n, 0.005);
        assertEquals(t.probabilityOf(9), (double) hits[9] / n, 0.002);
        // Zipf 0.99: p(0) / p(9) = 10^0.99
        assertEquals(Math.pow(10, 0.99), t.probabilityOf(0) / t.probabilityOf(9), 1e-6);
        ObjectTrace uniform = ObjectTrace.small(1000, 0);
        assertEquals(0.001, uniform.probabilityOf(500), 1e-12);
    }

    @Test
    void sizesSpreadAroundTheMean() {
        ObjectTrace t = ObjectTrace.large(10000, 0.99);
        long small = 0;
        long big = 0;
        for (long k = 0; k < 10000; k++) {
            small += t.sizeOf(k) < 9213 / 4 ? 1 : 0;
            big += t.sizeOf(k) > 9213 * 2 ? 1 : 0;
        }
        assertTrue(small > 500 && big > 500, "a long-tailed law: " + small + " below a quarter of the mean, " + big
                + " above twice it");
        assertTrue(t.heapBytes() > 10000L * 9213 * 0.9, "heap for every key's block: " + t.heapBytes());
    }

    @Test
    void badParametersAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ObjectTrace.byName("medium", 10, 0.99));
        assertThrows(IllegalArgumentException.class, () -> ObjectTrace.small(0, 0.99));
        assertThrows(IllegalArgumentException.class, () -> ObjectTrace.small(10, -1));
        assertEquals(-1.959963985, ObjectTrace.inverseNormal(0.025), 1e-6);
    }
}
