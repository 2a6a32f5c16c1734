package io.lockfabric.lock;

import io.lockfabric.fabric.Clock;

import java.util.Arrays;
import java.util.Locale;

/**
 * Where a client's acquisitions and releases spend their time, itemized as ShiftLock (FAST'25)
 * §4.6 Table 2 times it: for each {@link Part} (writer acquire, reader acquire, release) the total
 * time in each {@link Item} and the number of operations, so that averages per operation can be
 * compared with the paper's Tables 3 and 4. An immutable snapshot; a client accumulates into a
 * {@link Recorder} (one thread) and reports it in its {@link LockStats} as counters named
 * {@code breakdown.<part>.<item>-ns} and {@code breakdown.<part>.operations} ({@link #addTo}), from
 * which {@link #of} reads it back: a typed view of the named statistics.
 *
 * <p>Every protocol may report one, through its open statistics, with the items that apply to it:
 * {@code shiftlock} times all of Table 2's items but RT; the spinning baselines ({@code cas-nb},
 * {@code cas}, {@code dslr}, {@code drtm}, {@code rpc}, and {@code cas-rw}'s writers) time what the
 * paper's Table 4 gives for CAS and DSLR: IA (their first atomic, or rpc) and RT (everything after
 * it until the grant: retries, polls, backoff); {@code cas-rw}'s readers poll for the writer to
 * leave (WW); the queue locks ({@code mcs}, {@code rmarw}'s writers) time their queue as
 * ShiftLock's writers (IA, NP, WP, WR; release IA and NS). Each protocol's client says which. Timing only
 * reads the client's clock: it issues no verb, draws no random number and takes no time on the
 * simulator, so a run's outcome is the same with or without it.
 *
 * <p>Times are in the client's own clock (virtual on the simulator). A client on a real-time
 * clock does not time ({@link Clock#timesBreakdowns}): its operations are counted, its times read
 * 0. Statistics without a breakdown read as {@link #EMPTY}.
 */
public final class LatencyBreakdown {
    /** The operation an item of time belongs to. */
    public enum Part {
        WRITER_ACQUIRE("Acq (W)", "writer-acquire"),
        READER_ACQUIRE("Acq (R)", "reader-acquire"),
        RELEASE("Rel", "release");

        private final String label;
        /** The statistics' names, made once: a client's statistics are read in loops. */
        private final String operationsStat;
        private final String[] timeStats;

        Part(String label, String key) {
            this.label = label;
            this.operationsStat = STAT_PREFIX + key + ".operations";
            Item[] items = Item.values();
            this.timeStats = new String[items.length];
            for (Item i : items) {
                timeStats[i.ordinal()] = STAT_PREFIX + key + "." + i.name().toLowerCase(Locale.ROOT) + "-ns";
            }
        }

        /** The name of the part's operation count in a client's statistics. */
        public String operationsStat() {
            return operationsStat;
        }

        /** The name of the part's total time in {@code item} in a client's statistics. */
        public String timeStat(Item item) {
            return timeStats[item.ordinal()];
        }

        /** The paper's column group: {@code Acq (W)}, {@code Acq (R)}, {@code Rel}. */
        public String label() {
            return label;
        }
    }

    /** The items of ShiftLock's Table 2. */
    public enum Item {
        /** The initial remote atomic: trying the lock, entering the queue, or releasing. */
        IA("initial atomic"),
        /** Retries, including backoff. */
        RT("retries and backoff"),
        /** The SEND that notifies the predecessor. */
        NP("notify predecessor"),
        /** Waiting for the predecessor's notification. */
        WP("wait for predecessor"),
        /** READs waiting for earlier readers to leave. */
        WR("wait for readers"),
        /** READs waiting for the lock to pass to readers. */
        WW("wait for writers"),
        /** Waiting for a successor's notification, and the SEND that notifies it. */
        NS("notify successor");

        private final String description;

        Item(String description) {
            this.description = description;
        }

        public String description() {
            return description;
        }
    }

    /** Every statistic of the breakdown is named {@code breakdown.<part>....}. */
    public static final String STAT_PREFIX = "breakdown.";
    private static final int PARTS = Part.values().length;
    private static final int ITEMS = Item.values().length;

    public static final LatencyBreakdown EMPTY = new LatencyBreakdown(new long[PARTS * ITEMS], new long[PARTS]);

    private final long[] totalNs;
    private final long[] operations;

    private LatencyBreakdown(long[] totalNs, long[] operations) {
        this.totalNs = totalNs;
        this.operations = operations;
    }

    /** The breakdown a client reported in {@code stats} ({@link #EMPTY} if it reported none). */
    public static LatencyBreakdown of(LockStats stats) {
        long[] t = new long[PARTS * ITEMS];
        long[] n = new long[PARTS];
        for (Part p : Part.values()) {
            n[p.ordinal()] = stats.counter(p.operationsStat());
            for (Item i : Item.values()) {
                t[index(p, i)] = stats.counter(p.timeStat(i));
            }
        }
        return new LatencyBreakdown(t, n);
    }

    /** Adds this breakdown's counters to {@code stats}: what {@link #of} reads back. */
    public LockStats.Builder addTo(LockStats.Builder stats) {
        for (Part p : Part.values()) {
            stats.counter(p.operationsStat(), operations(p));
            for (Item i : Item.values()) {
                stats.counter(p.timeStat(i), totalNs(p, i));
            }
        }
        return stats;
    }

    /** Number of operations of {@code part} counted. */
    public long operations(Part part) {
        return operations[part.ordinal()];
    }

    /** Total time spent in {@code item} by operations of {@code part}. */
    public long totalNs(Part part, Item item) {
        return totalNs[index(part, item)];
    }

    /** Average time per operation of {@code part} in {@code item} (0 if none was counted). */
    public double averageNs(Part part, Item item) {
        long n = operations(part);
        return n == 0 ? 0 : (double) totalNs(part, item) / n;
    }

    /** Whether anything was recorded. */
    public boolean isEmpty() {
        return Arrays.stream(operations).allMatch(n -> n == 0);
    }

    public LatencyBreakdown plus(LatencyBreakdown o) {
        return combine(o, 1);
    }

    public LatencyBreakdown minus(LatencyBreakdown o) {
        return combine(o, -1);
    }

    private LatencyBreakdown combine(LatencyBreakdown o, int sign) {
        if (o == EMPTY) {
            return this;
        }
        long[] t = totalNs.clone();
        long[] n = operations.clone();
        for (int i = 0; i < t.length; i++) {
            t[i] += sign * o.totalNs[i];
        }
        for (int i = 0; i < n.length; i++) {
            n[i] += sign * o.operations[i];
        }
        return new LatencyBreakdown(t, n);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LatencyBreakdown b && Arrays.equals(totalNs, b.totalNs)
                && Arrays.equals(operations, b.operations);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(totalNs) + Arrays.hashCode(operations);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Part p : Part.values()) {
            if (operations(p) == 0) {
                continue;
            }
            sb.append(p.label()).append(" x").append(operations(p)).append(':');
            for (Item i : Item.values()) {
                if (totalNs(p, i) != 0) {
                    sb.append(String.format(Locale.ROOT, " %s=%.2fus", i, averageNs(p, i) / 1e3));
                }
            }
            sb.append("; ");
        }
        return sb.isEmpty() ? "(no breakdown)" : sb.substring(0, sb.length() - 2);
    }

    private static int index(Part part, Item item) {
        return part.ordinal() * ITEMS + item.ordinal();
    }

    /**
     * A client's running totals. Not thread-safe: one per client. An untimed recorder (one on a
     * clock that does not {@linkplain Clock#timesBreakdowns time breakdowns}) counts operations and
     * never reads the clock: its times stay 0.
     */
    public static final class Recorder {
        private final long[] totalNs = new long[PARTS * ITEMS];
        private final long[] operations = new long[PARTS];
        private final boolean timed;

        /** A timed recorder. */
        public Recorder() {
            this(true);
        }

        /** @param timed whether it times items, or only counts operations */
        public Recorder(boolean timed) {
            this.timed = timed;
        }

        /** Whether this recorder times items. */
        public boolean timed() {
            return timed;
        }

        /** The start of a timed operation: now on {@code clock}, or 0, unread, if this recorder is untimed. */
        public long start(Clock clock) {
            return timed ? clock.nanoTime() : 0;
        }

        /** Adds {@code ns} of {@code item} to the operation of {@code part} under way. */
        public void add(Part part, Item item, long ns) {
            totalNs[index(part, item)] += ns;
        }

        /**
         * Adds the time from {@code since} to now on {@code clock} to {@code item} of {@code part};
         * returns now, the start of the next item. Untimed: returns {@code since} and reads nothing.
         */
        public long lap(Clock clock, Part part, Item item, long since) {
            if (!timed) {
                return since;
            }
            long now = clock.nanoTime();
            add(part, item, now - since);
            return now;
        }

        /** Counts one completed operation of {@code part}. */
        public void completed(Part part) {
            operations[part.ordinal()]++;
        }

        public LatencyBreakdown snapshot() {
            return new LatencyBreakdown(totalNs.clone(), operations.clone());
        }
    }
}
