package io.lockfabric.lock;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongBinaryOperator;

/**
 * What a client counted about its own acquisitions, by name: counters and {@link ValueHistogram}s,
 * cumulative since the client was opened. An immutable snapshot; {@link #minus} gives what
 * happened between two snapshots (a run's measured phase) and {@link #plus} adds clients up.
 *
 * <p>Every protocol names its statistics as it likes; a few names are standard, so that a harness
 * can report them without knowing the protocol: {@link #RETRIES} (atomics that failed and were
 * repeated, tickets undone), {@link #ABORTS} (acquisitions given up and restarted), {@link #RESETS}
 * (lock resets or recoveries the client took part in), and for protocols that have the notion
 * {@link #TIMING_ABORTS}, {@link #YIELDS}, {@link #ESCALATIONS} and {@link #HANDOVERS}. A protocol's typed view of its
 * own statistics (ShiftLock's {@code LatencyBreakdown}, CITRON's {@code CitronProfile}) is built from
 * a snapshot in the protocol's package, so no caller needs the client's class.
 *
 * <p>Names are lower case, words joined by {@code -}, groups by {@code .}, with the unit last
 * ({@code profile.ticket-ns}). A name is either a counter or a histogram. A counter or histogram
 * the client does not report reads as 0 or {@link ValueHistogram#EMPTY}; {@link #has} tells the two
 * apart. Thread-safe (immutable).
 */
public final class LockStats {
    /** Atomics that failed and were repeated, tickets undone. */
    public static final String RETRIES = "retries";
    /** Acquisitions given up and restarted. */
    public static final String ABORTS = "aborts";
    /** Lock resets or recoveries the client took part in. */
    public static final String RESETS = "resets";
    /**
     * Acquisitions of a lock part aborted because a notification may have come later than the
     * protocol's wait allows (CITRON's abort rate, §4.7); reported only by protocols that time
     * notifications.
     */
    public static final String TIMING_ABORTS = "timing-aborts";
    /** Acquisitions that gave back the parts they held to break a possible deadlock, and restarted. */
    public static final String YIELDS = "yields";
    /**
     * Grants handed to this client by the holder before it (a notification or a handover message
     * of the releaser), rather than taken by the client itself from a free lock or by polling;
     * reported by the queue-based protocols (mcs, shiftlock, cql, declock-tf).
     */
    public static final String HANDOVERS = "handovers";
    /** Fine-grained lock parts given up for a coarser one (starvation avoidance). */
    public static final String ESCALATIONS = "escalations";

    /** Nothing counted. */
    public static final LockStats ZERO = new LockStats(Map.of(), Map.of());

    private final Map<String, Long> counters;
    private final Map<String, ValueHistogram> histograms;

    private LockStats(Map<String, Long> counters, Map<String, ValueHistogram> histograms) {
        this.counters = counters;
        this.histograms = histograms;
    }

    /** The three standard counters: {@link #RETRIES}, {@link #ABORTS}, {@link #RESETS}. */
    public LockStats(long retries, long aborts, long resets) {
        this(standard(retries, aborts, resets), Map.of());
    }

    private static Map<String, Long> standard(long retries, long aborts, long resets) {
        Map<String, Long> m = new TreeMap<>();
        m.put(RETRIES, retries);
        m.put(ABORTS, aborts);
        m.put(RESETS, resets);
        return Collections.unmodifiableMap(m);
    }

    /** An empty builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** The counter {@code name}, or 0 if the client does not report it. */
    public long counter(String name) {
        return counters.getOrDefault(name, 0L);
    }

    /** The histogram {@code name}, or {@link ValueHistogram#EMPTY} if the client does not report it. */
    public ValueHistogram histogram(String name) {
        return histograms.getOrDefault(name, ValueHistogram.EMPTY);
    }

    /** Whether the client reports a counter or histogram of that name (even if it is still 0). */
    public boolean has(String name) {
        return counters.containsKey(name) || histograms.containsKey(name);
    }

    /** The counters' names, in name order. */
    public Set<String> counterNames() {
        return counters.keySet();
    }

    /** The histograms' names, in name order. */
    public Set<String> histogramNames() {
        return histograms.keySet();
    }

    /** {@link #RETRIES}. */
    public long retries() {
        return counter(RETRIES);
    }

    /** {@link #ABORTS}. */
    public long aborts() {
        return counter(ABORTS);
    }

    /** {@link #RESETS}. */
    public long resets() {
        return counter(RESETS);
    }

    /** Name by name, the sum of this and {@code o}; a name reported by either is reported. */
    public LockStats plus(LockStats o) {
        return combine(o, Long::sum, ValueHistogram::plus);
    }

    /**
     * Name by name, this less {@code o} (an earlier snapshot of the same client, or a sum of such);
     * a name reported by either is reported.
     *
     * @throws IllegalArgumentException if a histogram of {@code o} holds a value this one does not
     */
    public LockStats minus(LockStats o) {
        return combine(o, (a, b) -> a - b, ValueHistogram::minus);
    }

    private LockStats combine(LockStats o, LongBinaryOperator counter,
                              java.util.function.BinaryOperator<ValueHistogram> histogram) {
        if (o.counters.isEmpty() && o.histograms.isEmpty()) {
            return this;
        }
        Map<String, Long> c = new TreeMap<>(counters);
        for (Map.Entry<String, Long> e : o.counters.entrySet()) {
            c.put(e.getKey(), counter.applyAsLong(c.getOrDefault(e.getKey(), 0L), e.getValue()));
        }
        Map<String, ValueHistogram> h = new TreeMap<>(histograms);
        for (Map.Entry<String, ValueHistogram> e : o.histograms.entrySet()) {
            h.put(e.getKey(), histogram.apply(h.getOrDefault(e.getKey(), ValueHistogram.EMPTY), e.getValue()));
        }
        return new LockStats(Collections.unmodifiableMap(c), Collections.unmodifiableMap(h));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockStats s && counters.equals(s.counters) && histograms.equals(s.histograms);
    }

    @Override
    public int hashCode() {
        return 31 * counters.hashCode() + histograms.hashCode();
    }

    /** {@code retries=1 aborts=0 ...}, counters then histograms, in name order. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        counters.forEach((n, v) -> sb.append(sb.isEmpty() ? "" : " ").append(n).append('=').append(v));
        histograms.forEach((n, v) -> sb.append(sb.isEmpty() ? "" : " ").append(n).append('=').append(v));
        return sb.isEmpty() ? "(no statistics)" : sb.toString();
    }

    /**
     * Collects counters and histograms into a snapshot. A name set twice keeps the later value;
     * {@link #add} adds to it instead. Not thread-safe.
     */
    public static final class Builder {
        private final Map<String, Long> counters = new TreeMap<>();
        private final Map<String, ValueHistogram> histograms = new TreeMap<>();

        private Builder() {
        }

        /**
         * Sets counter {@code name}.
         *
         * @throws IllegalArgumentException if {@code name} is blank or already a histogram
         */
        public Builder counter(String name, long value) {
            check(name, !histograms.containsKey(name));
            counters.put(name, value);
            return this;
        }

        /** Adds {@code value} to counter {@code name} (0 if not set yet). */
        public Builder add(String name, long value) {
            return counter(name, counters.getOrDefault(name, 0L) + value);
        }

        /**
         * Sets histogram {@code name}.
         *
         * @throws IllegalArgumentException if {@code name} is blank or already a counter
         */
        public Builder histogram(String name, ValueHistogram value) {
            check(name, !counters.containsKey(name));
            histograms.put(name, Objects.requireNonNull(value, "histogram"));
            return this;
        }

        /** Adds every counter and histogram of {@code stats}. */
        public Builder addAll(LockStats stats) {
            stats.counters.forEach(this::add);
            stats.histograms.forEach((n, h) -> histogram(n, histograms.getOrDefault(n, ValueHistogram.EMPTY).plus(h)));
            return this;
        }

        public LockStats build() {
            if (counters.isEmpty() && histograms.isEmpty()) {
                return ZERO;
            }
            return new LockStats(Collections.unmodifiableMap(new TreeMap<>(counters)),
                    Collections.unmodifiableMap(new TreeMap<>(histograms)));
        }

        private static void check(String name, boolean free) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a statistic needs a name");
            }
            if (!free) {
                throw new IllegalArgumentException("statistic '" + name + "' is a counter and a histogram");
            }
        }
    }
}
