package io.lockfabric.bench.range;

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
 * The range-lock microbenchmark (spec/workloads.md "Range-lock microbenchmarks", CITRON §4.2): each
 * of {@code clients} clients repeatedly takes an exclusive range [x, x + L) of the address space
 * [0, {@code units}), with the left border x drawn Zipf({@code zipf}) over [0, units − L] (border 0
 * hottest), holds it {@code csNs} (0: release at once, as the paper's lock/unlock runs) and
 * releases it. Client {@code i} always asks for size {@code sizes[i mod sizes.size()]}: one size
 * for a fixed-size run, {1, 16, 256} for the mixed workload (a third of the clients each).
 *
 * <p>The measured phase is {@code durationNs} long or {@code operations} operations in total
 * (exactly one is positive), after {@code warmupNs}. Every run records its history and checks range
 * exclusion. {@code options} are protocol options as {@code name=value} (every selected protocol that
 * has the option) or {@code protocol.name=value}; a protocol with a {@code units} option gets
 * {@code units}, and one with a {@code range-size} option (the ss presets) gets L when all clients ask
 * for one size, unless an option sets them. Validated on construction.
 */
public record RangeBenchConfig(int clients, long units, List<Long> sizes, double zipf, long csNs, long durationNs,
                               long operations, long warmupNs, long seed, List<String> options) {
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

    public RangeBenchConfig {
        Objects.requireNonNull(sizes, "sizes");
        options = List.copyOf(options);
        sizes = List.copyOf(sizes);
        if (clients < 1) {
            throw new IllegalArgumentException("clients must be >= 1, got " + clients);
        }
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
        if (durationNs < 0 || operations < 0 || warmupNs < 0) {
            throw new IllegalArgumentException("duration, operation count and warmup must be >= 0");
        }
        if ((durationNs > 0) == (operations > 0)) {
            throw new IllegalArgumentException("give either a duration or an operation count, not "
                    + (durationNs > 0 ? "both" : "neither"));
        }
        for (String pair : options) {
            parsePair(pair);
        }
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

    public boolean byOperations() {
        return operations > 0;
    }

    /** The measured operations client {@code client} does in an operation-count run. */
    public long operationsOf(int client) {
        long share = operations / clients;
        return share + (client < operations % clients ? 1 : 0);
    }

    /**
     * Checks that every option pair lands on at least one of {@code protocols} and is one of its options.
     *
     * @throws IllegalArgumentException naming the pair
     */
    public void validateOptions(Collection<RangeLockProtocol> protocols) {
        for (String raw : options) {
            String[] p = parsePair(raw);
            if (p[0] != null) {
                if (protocols.stream().noneMatch(q -> q.name().equals(p[0]))) {
                    throw new IllegalArgumentException("option '" + raw + "' is for range protocol " + p[0]
                            + ", which is not being run");
                }
                RangeLockProtocol q = RangeLockProtocols.byName(p[0]);
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
        Builder b = new Builder();
        b.clients = clients;
        b.units = units;
        b.sizes = sizes;
        b.zipf = zipf;
        b.csNs = csNs;
        b.durationNs = durationNs;
        b.operations = operations;
        b.warmupNs = warmupNs;
        b.seed = seed;
        b.options = options;
        return b;
    }

    /** Fluent, unvalidated settings; {@link #build()} validates. Not thread-safe. */
    public static final class Builder {
        private int clients = DEFAULT_CLIENTS;
        private long units = DEFAULT_UNITS;
        private List<Long> sizes = List.of(16L);
        private double zipf = DEFAULT_ZIPF;
        private long csNs;
        private long durationNs = 1_000_000_000L;
        private long operations;
        private long warmupNs = 500_000_000L;
        private long seed = 42;
        private List<String> options = List.of();

        private Builder() {
        }

        public Builder clients(int value) {
            clients = value;
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

        /** Measures for this long (and clears an operation count). */
        public Builder durationNs(long value) {
            durationNs = value;
            operations = 0;
            return this;
        }

        /** Measures this many operations in total (and clears a duration). */
        public Builder operations(long value) {
            operations = value;
            durationNs = 0;
            return this;
        }

        public Builder warmupNs(long value) {
            warmupNs = value;
            return this;
        }

        public Builder seed(long value) {
            seed = value;
            return this;
        }

        public Builder options(List<String> value) {
            options = value;
            return this;
        }

        public RangeBenchConfig build() {
            return new RangeBenchConfig(clients, units, sizes, zipf, csNs, durationNs, operations, warmupNs, seed,
                    options);
        }
    }
}
