package io.lockfabric;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

class StripedHistogramTest {

    @Test
    void stripesArePowersOfTwoWithinTheCap() {
        assertEquals(1, new StripedHistogram(3, 1).stripes());
        assertEquals(4, new StripedHistogram(3, 3).stripes());
        assertEquals(4, new StripedHistogram(3, 4).stripes());
        assertEquals(StripedHistogram.MAX_STRIPES, new StripedHistogram(3, 1000).stripes());
    }

    @Test
    void manyThreadsRecordingLoseNothingAndReadAsOneHistogramWould() throws Exception {
        StripedHistogram striped = new StripedHistogram(3, 8);
        int threads = 12;
        int perThread = 50_000;
        List<long[]> values = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            SplittableRandom rnd = new SplittableRandom(t);
            long[] v = new long[perThread];
            for (int i = 0; i < perThread; i++) {
                v[i] = rnd.nextLong(1, 5_000_000_000L); // up to 5 s: the stripes grow while others record
            }
            values.add(v);
        }
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long[] v = values.get(t);
            Runnable body = () -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                for (long x : v) {
                    striped.record(x);
                }
            };
            all.add(t % 2 == 0 ? Thread.ofPlatform().start(body) : Thread.ofVirtual().start(body));
        }
        start.countDown();
        for (Thread t : all) {
            t.join();
        }
        Histogram one = new Histogram(3);
        for (long[] v : values) {
            for (long x : v) {
                one.recordValue(x);
            }
        }
        Histogram read = striped.snapshot();
        assertEquals((long) threads * perThread, read.getTotalCount());
        assertEquals(one.getMaxValue(), read.getMaxValue());
        for (double p : new double[] {0, 1, 50, 90, 99, 99.9, 100}) {
            assertEquals(one.getValueAtPercentile(p), read.getValueAtPercentile(p), "percentile " + p);
        }
    }
}
