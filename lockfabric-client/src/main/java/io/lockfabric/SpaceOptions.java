package io.lockfabric;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a lock space or range space is made: its protocol, its number of lock slots (lock spaces
 * only) and the protocol's options (a {@code lease-ns} not given is {@link #DEFAULT_LEASE}). Every process that opens a space by the same name must give
 * the same options. Immutable; built with {@link #builder()}.
 *
 * <pre>{@code
 * SpaceOptions o = SpaceOptions.builder().protocol("shiftlock").slots(65_536).option("lease-ns", "50ms").build();
 * }</pre>
 */
public final class SpaceOptions {
    /** Default number of lock slots of a lock space. */
    public static final long DEFAULT_SLOTS = 4096;

    /**
     * The lease a space gives a protocol that has a {@code lease-ns} option the space's options do
     * not set: 1 second, where the protocols' own defaults (10 ms for dslr and shiftlock on RDMA, 200 ms
     * on tcp) are sized for benchmark critical sections of microseconds. A hold must end within its
     * lease: past it, other clients may take the lock ({@link Held#isValid()} turns false and the loss
     * listeners are told), so longer critical sections need a longer lease; a crashed client's locks
     * recover within a few leases (the protocol's recovery bound).
     */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(1);

    /** The defaults: the fabric's default protocol, {@link #DEFAULT_SLOTS} slots, no protocol options. */
    public static final SpaceOptions DEFAULTS = builder().build();

    private final String protocol;
    private final long slots;
    private final List<String> options;

    private SpaceOptions(Builder b) {
        this.protocol = b.protocol;
        this.slots = b.slots;
        this.options = List.copyOf(b.options);
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The protocol's registry name, or null for the fabric's default ({@link LockFabric#defaultProtocol()}). */
    public String protocol() {
        return protocol;
    }

    /** The number of lock slots keys are hashed to (lock spaces; a range space has none). */
    public long slots() {
        return slots;
    }

    /** The protocol options, as {@code name=value} pairs in the order given. */
    public List<String> options() {
        return options;
    }

    /** These options with {@code protocol} in place of the default. */
    SpaceOptions withProtocol(String p) {
        return builder().protocol(p).slots(slots).options(options).build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SpaceOptions s && Objects.equals(protocol, s.protocol) && slots == s.slots
                && options.equals(s.options);
    }

    @Override
    public int hashCode() {
        return Objects.hash(protocol, slots, options);
    }

    /** {@code protocol=dslr slots=4096 options=[lease-ns=50ms]}. */
    @Override
    public String toString() {
        return "protocol=" + (protocol == null ? "(default)" : protocol) + " slots=" + slots + " options=" + options;
    }

    /** Builds {@link SpaceOptions}. Not thread-safe. */
    public static final class Builder {
        private String protocol;
        private long slots = DEFAULT_SLOTS;
        private final List<String> options = new ArrayList<>();

        private Builder() {
        }

        /** The protocol by registry name ({@code ./lockfabric protocols} lists them); null for the default. */
        public Builder protocol(String name) {
            this.protocol = name;
            return this;
        }

        /**
         * The number of lock slots (default {@link #DEFAULT_SLOTS}). More slots mean fewer keys
         * sharing one (false conflicts), and a larger table on the memory node.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder slots(long n) {
            if (n < 1) {
                throw new IllegalArgumentException("a lock space needs at least one slot, got " + n);
            }
            this.slots = n;
            return this;
        }

        /**
         * A protocol option, as {@code ./lockfabric protocols} lists it, with or without the
         * protocol's prefix: {@code option("lease-ns", "50ms")}. Checked when the space is opened.
         */
        public Builder option(String name, String value) {
            options.add(name + "=" + value);
            return this;
        }

        /** Protocol options as {@code name=value} pairs. */
        public Builder options(List<String> pairs) {
            options.addAll(pairs);
            return this;
        }

        /** The options. */
        public SpaceOptions build() {
            return new SpaceOptions(this);
        }
    }
}
