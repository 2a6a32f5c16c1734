package io.lockfabric.lock;

import io.lockfabric.fabric.FabricTiming;

import java.util.List;
import java.util.function.ToLongFunction;

/**
 * One tunable of a protocol: name (as given on the command line, {@code backoff-init-ns}), its
 * default, and what it does. Values are longs; durations carry their unit in the name. An option
 * with {@code choices} takes one of those names (its value is the index of the name given; the
 * default is an index too); its name never ends in {@code -ns}, so a word given for it is never
 * taken for a duration.
 *
 * <p>A wait ({@link #wait}) has a default that depends on the fabric's {@link FabricTiming}:
 * {@code timedDefault} computes it, and {@code defaultValue} is its value on
 * {@link FabricTiming#RDMA}, the reference the protocols are tuned for.
 *
 * @param timedDefault the default on a fabric of a given timing; null if the default is fixed
 */
public record LockOption(String name, long defaultValue, String description, List<String> choices,
                         ToLongFunction<FabricTiming> timedDefault) {
    public LockOption {
        choices = List.copyOf(choices);
        if (!choices.isEmpty() && (defaultValue < 0 || defaultValue >= choices.size())) {
            throw new IllegalArgumentException("option " + name + ": default " + defaultValue + " is not a choice index");
        }
        if (!choices.isEmpty() && name.endsWith("-ns")) {
            throw new IllegalArgumentException("option " + name + ": a duration (-ns) cannot have choices");
        }
        if (timedDefault != null && (!choices.isEmpty()
                || timedDefault.applyAsLong(FabricTiming.RDMA) != defaultValue)) {
            throw new IllegalArgumentException("option " + name + ": a timed default has no choices and is "
                    + "defaultValue on FabricTiming.RDMA");
        }
    }

    public LockOption(String name, long defaultValue, String description, List<String> choices) {
        this(name, defaultValue, description, choices, null);
    }

    public LockOption(String name, long defaultValue, String description) {
        this(name, defaultValue, description, List.of());
    }

    /** An option whose value is one of {@code choices}, the first being the default. */
    public static LockOption choice(String name, String description, String... choices) {
        if (choices.length == 0) {
            throw new IllegalArgumentException("option " + name + " needs at least one choice");
        }
        return new LockOption(name, 0, description + " (" + String.join(", ", choices) + "; default " + choices[0] + ")",
                List.of(choices));
    }

    /**
     * A wait whose default the fabric's timing decides: {@code byTiming} computes it (usually
     * {@link FabricTiming#scaled} of the RDMA value), and on {@link FabricTiming#RDMA} it must be the
     * protocol's tuned value.
     */
    public static LockOption wait(String name, ToLongFunction<FabricTiming> byTiming, String description) {
        return new LockOption(name, byTiming.applyAsLong(FabricTiming.RDMA), description, List.of(), byTiming);
    }

    /** Whether this option's default depends on the fabric's timing. */
    public boolean isTimed() {
        return timedDefault != null;
    }

    /** The default on a fabric of {@code timing} ({@link #defaultValue()} if fixed or {@code timing} is null). */
    public long defaultValue(FabricTiming timing) {
        return timedDefault == null || timing == null ? defaultValue : timedDefault.applyAsLong(timing);
    }

    /** The name of choice {@code value}. */
    public String choiceName(long value) {
        if (value < 0 || value >= choices.size()) {
            throw new IllegalArgumentException("option " + name + " must be one of " + choices + ", got " + value);
        }
        return choices.get((int) value);
    }
}
