package io.lockfabric.lock;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * An exact histogram of long values: how many times each value was recorded. Mergeable like the
 * counters of {@link LockStats} ({@link #plus}, {@link #minus}), and exact, so its mean and
 * quantiles are those of the recorded values themselves. Its size grows with the number of
 * distinct values, so it is meant for events a client has few of (resets, recoveries, scale-ups),
 * not for every operation's latency. Immutable; a client records into a {@link Recorder}.
 */
public final class ValueHistogram {
    /** No value recorded. */
    public static final ValueHistogram EMPTY = new ValueHistogram(new long[0], new long[0]);

    /** The distinct values in increasing order, and how often each was recorded (each > 0). */
    private final long[] values;
    private final long[] counts;

    private ValueHistogram(long[] values, long[] counts) {
        this.values = values;
        this.counts = counts;
    }

    /** The histogram of {@code recorded}. */
    public static ValueHistogram of(long... recorded) {
        Recorder r = new Recorder();
        for (long v : recorded) {
            r.record(v);
        }
        return r.snapshot();
    }

    /** Values recorded. */
    public long count() {
        long n = 0;
        for (long c : counts) {
            n += c;
        }
        return n;
    }

    public boolean isEmpty() {
        return values.length == 0;
    }

    /** The sum of the recorded values. */
    public long sum() {
        long s = 0;
        for (int i = 0; i < values.length; i++) {
            s += values[i] * counts[i];
        }
        return s;
    }

    /** The mean of the recorded values, or 0 if there are none. */
    public double mean() {
        long n = count();
        return n == 0 ? 0 : (double) sum() / n;
    }

    /**
     * @throws java.util.NoSuchElementException if nothing was recorded
     */
    public long min() {
        requireValues();
        return values[0];
    }

    /**
     * @throws java.util.NoSuchElementException if nothing was recorded
     */
    public long max() {
        requireValues();
        return values[values.length - 1];
    }

    /**
     * The value at index {@code floor(q n)} of the {@code n} recorded values in increasing order
     * (the largest for {@code q = 1}).
     *
     * @throws IllegalArgumentException if {@code q} is not in [0, 1]
     * @throws java.util.NoSuchElementException if nothing was recorded
     */
    public long quantile(double q) {
        if (!(q >= 0 && q <= 1)) {
            throw new IllegalArgumentException("quantile must be in [0, 1], got " + q);
        }
        requireValues();
        long n = count();
        long index = Math.min(n - 1, (long) (q * n));
        long seen = 0;
        for (int i = 0; i < values.length; i++) {
            seen += counts[i];
            if (index < seen) {
                return values[i];
            }
        }
        throw new AssertionError("counts add up to " + n);
    }

    /** Every recorded value, in increasing order (a value recorded k times appears k times). */
    public long[] values() {
        long[] out = new long[Math.toIntExact(count())];
        int at = 0;
        for (int i = 0; i < values.length; i++) {
            Arrays.fill(out, at, at + (int) counts[i], values[i]);
            at += (int) counts[i];
        }
        return out;
    }

    /** The values of both. */
    public ValueHistogram plus(ValueHistogram o) {
        if (o.isEmpty()) {
            return this;
        }
        TreeMap<Long, Long> m = toMap();
        for (int i = 0; i < o.values.length; i++) {
            m.merge(o.values[i], o.counts[i], Long::sum);
        }
        return of(m);
    }

    /**
     * The values of this one less those of {@code o} (an earlier snapshot of the same recorder).
     *
     * @throws IllegalArgumentException if {@code o} holds a value more often than this one
     */
    public ValueHistogram minus(ValueHistogram o) {
        if (o.isEmpty()) {
            return this;
        }
        TreeMap<Long, Long> m = toMap();
        for (int i = 0; i < o.values.length; i++) {
            long left = m.getOrDefault(o.values[i], 0L) - o.counts[i];
            if (left < 0) {
                throw new IllegalArgumentException("cannot take value " + o.values[i] + " out " + o.counts[i]
                        + " times from a histogram that holds it " + (left + o.counts[i]) + " times");
            }
            m.put(o.values[i], left);
        }
        return of(m);
    }

    private TreeMap<Long, Long> toMap() {
        TreeMap<Long, Long> m = new TreeMap<>();
        for (int i = 0; i < values.length; i++) {
            m.put(values[i], counts[i]);
        }
        return m;
    }

    private static ValueHistogram of(Map<Long, Long> counted) {
        long n = counted.values().stream().filter(c -> c > 0).count();
        if (n == 0) {
            return EMPTY;
        }
        long[] v = new long[(int) n];
        long[] c = new long[(int) n];
        int i = 0;
        for (Map.Entry<Long, Long> e : counted.entrySet()) {
            if (e.getValue() > 0) {
                v[i] = e.getKey();
                c[i] = e.getValue();
                i++;
            }
        }
        return new ValueHistogram(v, c);
    }

    private void requireValues() {
        if (values.length == 0) {
            throw new java.util.NoSuchElementException("no value recorded");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ValueHistogram h && Arrays.equals(values, h.values) && Arrays.equals(counts, h.counts);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(values) + Arrays.hashCode(counts);
    }

    /** {@code n=3 min=1 mean=2.00 max=3}, or {@code n=0}. */
    @Override
    public String toString() {
        return isEmpty() ? "n=0" : String.format(Locale.ROOT, "n=%d min=%d mean=%.2f max=%d", count(), min(), mean(),
                max());
    }

    /** One client's running histogram. Not thread-safe. */
    public static final class Recorder {
        private final TreeMap<Long, Long> counts = new TreeMap<>();

        /** Records {@code value} once. */
        public void record(long value) {
            counts.merge(value, 1L, Long::sum);
        }

        public ValueHistogram snapshot() {
            return of(counts);
        }
    }
}
