package io.lockfabric.bench;

/**
 * Who runs a workload and when it is measured, whatever the workload's kind: {@code clients}
 * clients, a warmup of {@code warmupNs}, then a measured phase that is either {@code durationNs}
 * long or {@code operations} operations in total (split evenly over the clients; exactly one of
 * the two is positive), and the {@code seed} of the clients' random choices. Validated on
 * construction.
 */
public record Phases(int clients, long durationNs, long operations, long warmupNs, long seed) {
    public Phases {
        if (clients < 1) {
            throw new IllegalArgumentException("clients must be >= 1, got " + clients);
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

    /** True if the measured phase is a total operation count, false if it is a duration. */
    public boolean byOperations() {
        return operations > 0;
    }

    /** The measured operations client {@code client} does in an operation-count run. */
    public long operationsOf(int client) {
        long share = operations / clients;
        return share + (client < operations % clients ? 1 : 0);
    }

    /** Warmup plus measured phase of a timed run; 0 for an operation-count run (its length is not known). */
    public long plannedNs() {
        return byOperations() ? 0 : warmupNs + durationNs;
    }

    /** The same phases with another seed. */
    public Phases withSeed(long value) {
        return new Phases(clients, durationNs, operations, warmupNs, value);
    }

    /**
     * The fluent settings every workload kind's builder shares; a kind's builder extends it with
     * its own. Unvalidated until built. Not thread-safe.
     *
     * @param <B> the kind's builder, returned by every setter
     */
    public abstract static class Builder<B extends Builder<B>> {
        private int clients;
        private long durationNs;
        private long operations;
        private long warmupNs;
        private long seed;

        /** A builder with a kind's defaults: a timed run of {@code durationNs} after {@code warmupNs}. */
        protected Builder(int clients, long durationNs, long warmupNs, long seed) {
            this.clients = clients;
            this.durationNs = durationNs;
            this.warmupNs = warmupNs;
            this.seed = seed;
        }

        /** This builder, as its kind. */
        protected abstract B self();

        public B clients(int value) {
            clients = value;
            return self();
        }

        /** Measures for this long (and clears an operation count). */
        public B durationNs(long value) {
            durationNs = value;
            operations = 0;
            return self();
        }

        /** Measures this many operations in total (and clears a duration). */
        public B operations(long value) {
            operations = value;
            durationNs = 0;
            return self();
        }

        public B warmupNs(long value) {
            warmupNs = value;
            return self();
        }

        public B seed(long value) {
            seed = value;
            return self();
        }

        /** Takes over every setting of {@code phases}. */
        public B phases(Phases phases) {
            clients = phases.clients();
            durationNs = phases.durationNs();
            operations = phases.operations();
            warmupNs = phases.warmupNs();
            seed = phases.seed();
            return self();
        }

        /**
         * The phases set so far.
         *
         * @throws IllegalArgumentException if they are not valid
         */
        protected Phases buildPhases() {
            return new Phases(clients, durationNs, operations, warmupNs, seed);
        }
    }
}
