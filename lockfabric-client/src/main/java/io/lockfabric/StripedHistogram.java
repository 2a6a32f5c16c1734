package io.lockfabric;

import io.lockfabric.client.KeyHash;
import org.HdrHistogram.Histogram;

/**
 * A histogram that many threads record into on every acquisition: stripes of plain {@link
 * Histogram}s chosen by the recording thread, each guarded by its own monitor, added up when read.
 *
 * <p>It replaced one {@code ConcurrentHistogram}, whose every record made four atomic updates of
 * lines all threads share (its writer phaser's two epochs, the total, the bucket). On two
 * processors those lines went back and forth between the caches on every grant. Here a thread
 * keeps to its stripe, so two processors meet on one only when their threads hash to it, and an
 * uncontended monitor is the only atomic a record makes. The counts are exact: reading adds up
 * every stripe under its monitor.
 */
final class StripedHistogram {
    /**
     * At most this many stripes, whatever the processor count: a stripe of three significant digits
     * starts at 16 KiB and grows with the largest value it holds.
     */
    static final int MAX_STRIPES = 16;
    private final Histogram[] stripes;
    private final int mask;
    private final int significantDigits;

    /** Stripes for this machine: a power of two, two per processor, at most {@link #MAX_STRIPES}. */
    StripedHistogram(int significantDigits) {
        this(significantDigits, Runtime.getRuntime().availableProcessors() * 2);
    }

    /** {@code stripes} rounded up to a power of two (at most {@link #MAX_STRIPES}). */
    StripedHistogram(int significantDigits, int stripes) {
        int n = stripes <= 1 ? 1 : Math.min(MAX_STRIPES, Integer.highestOneBit(stripes - 1) << 1);
        this.significantDigits = significantDigits;
        this.stripes = new Histogram[n];
        for (int i = 0; i < n; i++) {
            this.stripes[i] = new Histogram(significantDigits);
        }
        this.mask = n - 1;
    }

    /** Records {@code value} (not negative) in the calling thread's stripe. */
    void record(long value) {
        Histogram h = stripes[(int) (KeyHash.fmix64(Thread.currentThread().threadId()) & mask)];
        synchronized (h) {
            h.recordValue(value);
        }
    }

    /** Every stripe added up, as it is now: a copy the caller owns. */
    Histogram snapshot() {
        Histogram all = new Histogram(significantDigits);
        for (Histogram h : stripes) {
            synchronized (h) {
                all.add(h);
            }
        }
        return all;
    }

    /** The number of stripes. */
    int stripes() {
        return stripes.length;
    }
}
