package io.lockfabric.lock;

import java.util.List;

/**
 * One tunable of a protocol: name (as given on the command line, {@code backoff-init-ns}), its
 * default, and what it does. Values are longs; durations carry their unit in the name. An option
 * with {@code choices} takes one of those names (its value is the index of the name given; the
 * default is an index too).
 */
public record LockOption(String name, long defaultValue, String description, List<String> choices) {
    public LockOption {
        choices = List.copyOf(choices);
        if (!choices.isEmpty() && (defaultValue < 0 || defaultValue >= choices.size())) {
            throw new IllegalArgumentException("option " + name + ": default " + defaultValue + " is not a choice index");
        }
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

    /** The name of choice {@code value}. */
    public String choiceName(long value) {
        if (value < 0 || value >= choices.size()) {
            throw new IllegalArgumentException("option " + name + " must be one of " + choices + ", got " + value);
        }
        return choices.get((int) value);
    }
}
