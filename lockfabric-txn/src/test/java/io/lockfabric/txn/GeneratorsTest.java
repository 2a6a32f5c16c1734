package io.lockfabric.txn;

import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TATP's and TPC-C's mixes, lock counts and shared shares against the papers'. */
class GeneratorsTest {
    /** Type shares, the shared share of requests, and that every lock id is in the map. */
    private static double[] measure(TxnWorkload w, int n, double[] sharedOut) {
        SplittableRandom r = new SplittableRandom(11);
        double[] types = new double[w.types().size()];
        long shared = 0;
        long all = 0;
        for (int i = 0; i < n; i++) {
            Transaction t = w.next(r);
            types[t.type()] += 1.0 / n;
            for (int k = 0; k < t.locks().size(); k++) {
                assertTrue(t.lockIds()[k] >= 0 && t.lockIds()[k] < w.locks(), "lock " + t.lockIds()[k] + " in the map");
                assertEquals(Long.toString(t.lockIds()[k]), t.locks().get(k).key());
                if (t.locks().get(k).mode() == Mode.SHARED) {
                    shared++;
                }
                all++;
            }
        }
        sharedOut[0] = (double) shared / all;
        return types;
    }

    @Test
    void tatpHasTheStandardMixThePapersLocksAndAbout80PercentShared() {
        Tatp w = Tatp.paper();
        assertEquals(680_236, w.locks());
        double[] shared = new double[1];
        double[] mix = measure(w, 300_000, shared);
        double[] expected = {0.35, 0.10, 0.35, 0.02, 0.14, 0.02, 0.02};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], mix[i], 0.005, Tatp.TYPES.get(i));
        }
        System.out.printf("tatp shared share %.4f (paper %.3f)%n", shared[0], Tatp.PAPER_SHARED);
        assertEquals(Tatp.PAPER_SHARED, shared[0], 0.015);
    }

    @Test
    void tpccHasTheMixAboutThePapersLocksAndAbout86PercentExclusive() {
        TpcC w = TpcC.paper();
        assertEquals(TpcC.PAPER_LOCKS, w.locks(), 100);
        assertEquals(1_136_088, TpcC.declock(8).locks(), "DecLock's map for 8 warehouses");
        double[] shared = new double[1];
        double[] mix = measure(w, 200_000, shared);
        double[] expected = {0.45, 0.43, 0.04, 0.04, 0.04};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], mix[i], 0.005, TpcC.TYPES.get(i));
        }
        System.out.printf("tpcc exclusive share %.4f (paper %.3f)%n", 1 - shared[0], 1 - TpcC.PAPER_SHARED);
        assertEquals(TpcC.PAPER_SHARED, shared[0], 0.015);
    }

    @Test
    void newOrderTakes5To15DistinctSortedStockItems() {
        TpcC w = TpcC.paper();
        SplittableRandom r = new SplittableRandom(3);
        int min = 99;
        int max = 0;
        for (int i = 0; i < 20_000; i++) {
            Transaction t = w.next(r);
            if (t.type() != 0) {
                continue;
            }
            int n = t.locks().size() - 6; // WH, DI, CU, OD, NO, then the stock, then OL
            min = Math.min(min, n);
            max = Math.max(max, n);
            for (int k = 6; k < 5 + n; k++) {
                assertTrue(t.lockIds()[k - 1] < t.lockIds()[k], "stock sorted and distinct");
            }
        }
        assertEquals(5, min);
        assertEquals(15, max);
    }
}
