package io.lockfabric.bench.range;

import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ReportLayout;
import io.lockfabric.bench.Trial;
import io.lockfabric.bench.Workload;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.RangeLockProtocols;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The range-lock microbenchmark (spec/workloads.md "Range-lock microbenchmarks", CITRON §4.2), the
 * {@code range} kind of {@link Workload}: each client repeatedly takes an exclusive range
 * [x, x + L) of the address space [0, {@code units}), with the left border x drawn
 * Zipf({@code zipf}) over [0, units − L] (border 0 hottest), holds it {@code csNs} (0: release at
 * once, as the paper's lock/unlock runs) and releases it. Client {@code i} always asks for size
 * {@code sizes[i mod sizes.size()]}: one size for a fixed-size run, {1, 16, 256} for the mixed
 * workload (a third of the clients each).
 *
 * <p>Every run records its history and checks range exclusion (on a shared table among this
 * process's holds only); its clients are reported by range size
 * ({@link io.lockfabric.bench.RunResult#goodput(long)}, {@link io.lockfabric.bench.RunResult#statsByGroup()}),
 * and on the simulator it measures the memory node's queueing over its measured phase.
 * {@code options} are protocol options as {@code name=value} (every selected protocol that has the
 * option) or {@code protocol.name=value}; a protocol with a {@code units} option gets
 * {@code units}, and one with a {@code range-size} option (the ss presets) gets L when all clients
 * ask for one size, unless an option sets them.
 *
 * <p>Reported ({@link ReportLayout}) as a table of goodput (overall and per size), acquire
 * latencies, aborts and timing aborts per acquisition, verbs per acquisition and the check; as CSV;
 * and as JSON objects holding {@code protocol}, {@code fabric}, {@code clients}, {@code units},
 * {@code range_size}, {@code zipf}, {@code cs_ns}, {@code seed}, {@code options},
 * {@code measured_ops}, {@code measured_s}, {@code goodput}, {@code goodput_by_size},
 * {@code acquire_us} ({@code p50}, {@code p99}, {@code p999}), {@code verbs_per_acquisition} (the
 * non-zero verb kinds), {@code aborts_per_acquisition}, {@code timing_aborts} ({@code null} for
 * protocols that do not count them), {@code holds_checked} and {@code violations}. Validated on
 * construction.
 *
 * <p>{@code readRatio} (0 by default, the paper's workload): the share of operations that ask for
 * their range shared; a protocol without a shared mode ({@link RangeLockProtocol#supportsShared(LockOptions)})
 * grants them exclusive. Reported (JSON {@code read_ratio}) only when above 0.
 */
public record RangeWorkload(Phases phases, long units, List<Long> sizes, double zipf, long csNs, List<String> options,
                            double readRatio)
        implements Workload<RangeLockProtocol> {
    /** The kind's name. */
    public static final String KIND = "range";
    /** N = 2^28: 1 TB in 4 KB pages, the paper's tree. */
    public static final long DEFAULT_UNITS = 1L << 28;
    public static final double DEFAULT_ZIPF = 0.9;
    public static final int DEFAULT_CLIENTS = 8;
    /** The paper's three sizes; the mixed workload gives a third of the clients each. */
    public static final List<Long> MIXED = List.of(1L, 16L, 256L);
    public static final String MIXED_NAME = "mixed";
    static final String UNITS_OPTION = "units";
    /** The ss presets' L, from which they derive their segment size. */
    static final String RANGE_SIZE_OPTION = "range-size";
    /** Slack a run's live clients get after its planned end, beyond its faults and recovery bound. */
    static final long LIVENESS_SLACK_NS = 50_000_000L;

    public RangeWorkload {
        Objects.requireNonNull(phases, "phases");
        Objects.requireNonNull(sizes, "sizes");
        options = List.copyOf(options);
        sizes = List.copyOf(sizes);
        if (units < 1) {
            throw new IllegalArgumentException("units (address space N) must be >= 1, got " + units);
        }
        if (sizes.isEmpty()) {
            throw new IllegalArgumentException("give at least one range size");
        }
        for (long l : sizes) {
            if (l < 1 || l > units) {
                throw new IllegalArgumentException("range size must be in [1, units=" + units + "], got " + l);
            }
        }
        if (!(zipf >= 0) || Double.isInfinite(zipf)) {
            throw new IllegalArgumentException("zipf must be a finite number >= 0, got " + zipf);
        }
        if (csNs < 0) {
            throw new IllegalArgumentException("critical section length must be >= 0, got " + csNs + " ns");
        }
        for (String pair : options) {
            parsePair(pair);
        }
        if (!(readRatio >= 0 && readRatio <= 1)) {
            throw new IllegalArgumentException("read ratio must be in [0, 1], got " + readRatio);
        }
    }

    /** The workload with every operation exclusive (the paper's). */
    public RangeWorkload(Phases phases, long units, List<Long> sizes, double zipf, long csNs, List<String> options) {
        this(phases, units, sizes, zipf, csNs, options, 0);
    }

    /** A builder with the defaults: 8 clients, N = 2^28, L = 16, Zipf 0.9, cs 0, 1 s after 0.5 s warmup. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@code 1}, {@code 16}, {@code 256} (any positive size) or {@code mixed}.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static List<Long> parseSizes(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals(MIXED_NAME)) {
            return MIXED;
        }
        try {
            long l = Long.parseLong(t);
            if (l >= 1) {
                return List.of(l);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("range size must be a positive number of units or 'mixed', got '" + text + "'");
    }

    /** {@code 16} or {@code mixed}: how the sizes read in reports. */
    public String sizeName() {
        if (sizes.equals(MIXED)) {
            return MIXED_NAME;
        }
        return sizes.size() == 1 ? Long.toString(sizes.getFirst())
                : String.join("/", sizes.stream().map(String::valueOf).toList());
    }

    /** The range size client {@code client} asks for. */
    public long sizeOf(int client) {
        return sizes.get(client % sizes.size());
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public RangeWorkload withSeed(long seed) {
        return toBuilder().seed(seed).build();
    }

    /** Always: every range run checks range exclusion. */
    @Override
    public boolean check() {
        return true;
    }

    @Override
    public RangeWorkload checked() {
        return this;
    }

    /**
     * 50 ms, plus for a protocol that recovers from crashed clients its recovery bound once per
     * crash the run suffers.
     */
    @Override
    public long graceNs(FailureModel model, int crashes) {
        return Workload.addTimes(LIVENESS_SLACK_NS,
                model.recoversFromCrash() ? Workload.multiplyTime(model.recoveryBoundNs(), crashes) : 0);
    }

    /** Yes: where ranges collide on the memory node's words is what explains a range run. */
    @Override
    public boolean measuresNicQueueing() {
        return true;
    }

    @Override
    public Trial trial(RangeLockProtocol protocol, Fabric fabric, boolean sharedTable) {
        return new RangeTrial(this, protocol);
    }

    @Override
    public ReportLayout layout() {
        return RangeLayout.INSTANCE;
    }

    /**
     * Checks that every option pair lands on at least one of {@code protocols} and is one of its options.
     *
     * @throws IllegalArgumentException naming the pair
     */
    public void validateOptions(Collection<RangeLockProtocol> protocols) {
        validateOptions(options, protocols);
    }

    /**
     * Checks that every pair of {@code pairs} lands on at least one of {@code protocols} and is one
     * of its options.
     *
     * @throws IllegalArgumentException naming the pair
     */
    public static void validateOptions(List<String> pairs, Collection<RangeLockProtocol> protocols) {
        for (String raw : pairs) {
            String[] p = parsePair(raw);
            if (p[0] != null) {
                if (protocols.stream().noneMatch(q -> q.name().equals(p[0]))) {
                    throw new IllegalArgumentException("option '" + raw + "' is for range protocol " + p[0]
                            + ", which is not being run");
                }
                RangeLockProtocol q = protocols.stream().filter(x -> x.name().equals(p[0])).findFirst().orElseThrow();
                LockOptions.parse(List.of(p[1] + "=" + p[2])).validate(q.name(), q.options());
            } else if (protocols.stream().noneMatch(q -> has(q, p[1]))) {
                throw new IllegalArgumentException("no selected range protocol has an option '" + p[1] + "'");
            } else {
                // a choice's name is checked against the option of each protocol that has it
                for (RangeLockProtocol q : protocols) {
                    if (has(q, p[1])) {
                        LockOptions.parse(List.of(p[1] + "=" + p[2])).validate(q.name(), q.options());
                    }
                }
            }
        }
    }

    /** {@code protocol}'s options: N as {@code units} and L as {@code range-size} if it has them, then the pairs that apply to it. */
    public LockOptions optionsFor(RangeLockProtocol protocol) {
        List<String> pairs = new ArrayList<>();
        if (has(protocol, UNITS_OPTION)) {
            pairs.add(UNITS_OPTION + "=" + units);
        }
        if (has(protocol, RANGE_SIZE_OPTION) && sizes.size() == 1) {
            pairs.add(RANGE_SIZE_OPTION + "=" + sizes.getFirst()); // SS-Exact/Over/Under size their segments by L
        }
        for (String raw : options) {
            String[] p = parsePair(raw);
            if (p[0] == null ? has(protocol, p[1]) : p[0].equals(protocol.name())) {
                pairs.removeIf(x -> x.startsWith(p[1] + "="));
                pairs.add(p[1] + "=" + p[2]);
            }
        }
        return LockOptions.parse(pairs).validate(protocol.name(), protocol.options());
    }

    /** The option pairs as given that apply to {@code protocol}: its own and the unqualified ones it has. */
    public List<String> optionPairsFor(RangeLockProtocol protocol) {
        List<String> out = new ArrayList<>();
        for (String raw : options) {
            String[] p = parsePair(raw);
            if (p[0] == null ? has(protocol, p[1]) : p[0].equals(protocol.name())) {
                out.add(raw);
            }
        }
        return out;
    }

    /** {protocol or null, name, value}. */
    private static String[] parsePair(String raw) {
        Objects.requireNonNull(raw, "option");
        int eq = raw.indexOf('=');
        if (eq <= 0 || eq == raw.length() - 1) {
            throw new IllegalArgumentException("option '" + raw + "' is not name=value or protocol.name=value");
        }
        String key = raw.substring(0, eq).trim();
        String value = raw.substring(eq + 1).trim();
        int dot = key.indexOf('.');
        String protocol = dot < 0 ? null : key.substring(0, dot);
        String name = dot < 0 ? key : key.substring(dot + 1);
        if (protocol != null) {
            RangeLockProtocols.byName(protocol); // fails clearly for an unknown protocol
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("option '" + raw + "' has no option name");
        }
        LockOptions parsed = LockOptions.parse(List.of(name + "=" + value)); // a bad number fails before any run
        boolean choice = (protocol == null ? RangeLockProtocols.all() : List.of(RangeLockProtocols.byName(protocol)))
                .stream().flatMap(q -> q.options().stream())
                .anyMatch(o -> o.name().equals(name) && !o.choices().isEmpty());
        if (!parsed.asMap().containsKey(name) && !choice) { // a word names a choice, and no range option has choices
            throw new IllegalArgumentException("option " + name + ": '" + value + "' is not a number");
        }
        return new String[] {protocol, name, value};
    }

    private static boolean has(RangeLockProtocol protocol, String name) {
        return protocol.options().stream().map(LockOption::name).anyMatch(name::equals);
    }

    public Builder toBuilder() {
        return new Builder().phases(phases).units(units).sizes(sizes).zipf(zipf).csNs(csNs).options(options)
                .readRatio(readRatio);
    }

    /** Fluent, unvalidated settings; {@link #build()} validates. Not thread-safe. */
    public static final class Builder extends Phases.Builder<Builder> {
        private long units = DEFAULT_UNITS;
        private List<Long> sizes = List.of(16L);
        private double zipf = DEFAULT_ZIPF;
        private long csNs;
        private List<String> options = List.of();
        private double readRatio;

        private Builder() {
            super(DEFAULT_CLIENTS, 1_000_000_000L, 500_000_000L, 42);
        }

        @Override
        protected Builder self() {
            return this;
        }

        public Builder units(long value) {
            units = value;
            return this;
        }

        public Builder sizes(List<Long> value) {
            sizes = value;
            return this;
        }

        public Builder size(long value) {
            sizes = List.of(value);
            return this;
        }

        public Builder zipf(double value) {
            zipf = value;
            return this;
        }

        public Builder csNs(long value) {
            csNs = value;
            return this;
        }

        /** Share of operations asking for their range shared (0 by default). */
        public Builder readRatio(double value) {
            readRatio = value;
            return this;
        }

        public Builder options(List<String> value) {
            options = value;
            return this;
        }

        public RangeWorkload build() {
            return new RangeWorkload(buildPhases(), units, sizes, zipf, csNs, options, readRatio);
        }
    }
}
