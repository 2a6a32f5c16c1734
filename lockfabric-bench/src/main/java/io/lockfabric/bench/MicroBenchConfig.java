package io.lockfabric.bench;

import java.util.Objects;

/**
 * The mutex / reader-writer microbenchmark (spec/workloads.md, DecLock §6.2 flavour): each of
 * {@code clients} threads repeatedly picks a lock of {@code locks} with a Zipf({@code zipf}) law
 * (lock 0 hottest), asks for it shared with probability {@code readRatio} and exclusive otherwise,
 * then does {@code cs} remote operations on the lock's 8-byte data object (READs when shared,
 * WRITEs when exclusive) and releases it.
 *
 * <p>The measured phase is either {@code durationNs} long or {@code operations} operations in
 * total (split evenly over the clients); exactly one of the two is positive. It follows a warmup of
 * {@code warmupNs}. With {@code check}, the run records its history, every exclusive holder also
 * increments the lock's guarded counter, and the result carries what the checkers found.
 *
 * <p>Validated on construction; build with {@link #builder()} or derive with the {@code with}
 * methods.
 */
public record MicroBenchConfig(int clients, long locks, double zipf, double readRatio, int cs, long durationNs,
                               long operations, long warmupNs, long seed, boolean check, ProtocolOptions options) {
    public static final int DEFAULT_CLIENTS = 8;
    public static final long DEFAULT_LOCKS = 1_000;
    public static final double DEFAULT_ZIPF = 0.99;
    public static final double DEFAULT_READ_RATIO = 0.5;
    public static final int DEFAULT_CS_OPS = 1;
    public static final long DEFAULT_DURATION_NS = 2_000_000_000L;
    public static final long DEFAULT_WARMUP_NS = 1_000_000_000L;
    public static final long DEFAULT_SEED = 42;

    public MicroBenchConfig {
        Objects.requireNonNull(options, "options");
        if (clients < 1) {
            throw new IllegalArgumentException("clients must be >= 1, got " + clients);
        }
        if (locks < 1) {
            throw new IllegalArgumentException("locks must be >= 1, got " + locks);
        }
        if (!(zipf >= 0) || Double.isInfinite(zipf)) {
            throw new IllegalArgumentException("zipf must be a finite number >= 0, got " + zipf);
        }
        if (!(readRatio >= 0 && readRatio <= 1)) {
            throw new IllegalArgumentException("read ratio must be in [0, 1], got " + readRatio);
        }
        if (cs < 0) {
            throw new IllegalArgumentException("cs (remote operations per critical section) must be >= 0, got " + cs);
        }
        if (durationNs < 0 || operations < 0) {
            throw new IllegalArgumentException("duration and operation count must be >= 0");
        }
        if ((durationNs > 0) == (operations > 0)) {
            throw new IllegalArgumentException("give either a duration or an operation count, not "
                    + (durationNs > 0 ? "both" : "neither"));
        }
        if (warmupNs < 0) {
            throw new IllegalArgumentException("warmup must be >= 0, got " + warmupNs + " ns");
        }
    }

    /** A builder with the defaults: 8 clients, 1 000 locks, Zipf 0.99, 50% reads, cs 1, 2 s after 1 s warmup. */
    public static Builder builder() {
        return new Builder();
    }

    /** True if the measured phase is a total operation count, false if it is a duration. */
    public boolean byOperations() {
        return operations > 0;
    }

    /** The measured operations client {@code client} does in an operation-count run. */
    public long operationsOf(int client) {
        long share = operations / clients;
        return share + (client < operations % clients ? 1 : 0);
    }

    public MicroBenchConfig withClients(int value) {
        return toBuilder().clients(value).build();
    }

    public MicroBenchConfig withLocks(long value) {
        return toBuilder().locks(value).build();
    }

    public MicroBenchConfig withReadRatio(double value) {
        return toBuilder().readRatio(value).build();
    }

    public MicroBenchConfig withCheck(boolean value) {
        return toBuilder().check(value).build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.clients = clients;
        b.locks = locks;
        b.zipf = zipf;
        b.readRatio = readRatio;
        b.cs = cs;
        b.durationNs = durationNs;
        b.operations = operations;
        b.warmupNs = warmupNs;
        b.seed = seed;
        b.check = check;
        b.options = options;
        return b;
    }

    /** Fluent, unvalidated settings; {@link #build()} validates. Not thread-safe. */
    public static final class Builder {
        private int clients = DEFAULT_CLIENTS;
        private long locks = DEFAULT_LOCKS;
        private double zipf = DEFAULT_ZIPF;
        private double readRatio = DEFAULT_READ_RATIO;
        private int cs = DEFAULT_CS_OPS;
        private long durationNs = DEFAULT_DURATION_NS;
        private long operations;
        private long warmupNs = DEFAULT_WARMUP_NS;
        private long seed = DEFAULT_SEED;
        private boolean check;
        private ProtocolOptions options = ProtocolOptions.NONE;

        private Builder() {
        }

        public Builder clients(int value) {
            clients = value;
            return this;
        }

        public Builder locks(long value) {
            locks = value;
            return this;
        }

        public Builder zipf(double value) {
            zipf = value;
            return this;
        }

        public Builder readRatio(double value) {
            readRatio = value;
            return this;
        }

        public Builder cs(int value) {
            cs = value;
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

        public Builder check(boolean value) {
            check = value;
            return this;
        }

        public Builder options(ProtocolOptions value) {
            options = value;
            return this;
        }

        public MicroBenchConfig build() {
            return new MicroBenchConfig(clients, locks, zipf, readRatio, cs, durationNs, operations, warmupNs, seed,
                    check, options);
        }
    }
}
