package io.lockfabric.lock;

import io.lockfabric.fabric.Durations;
import io.lockfabric.protocols.LockProtocols;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Values of a protocol's {@link LockOption}s; anything not given takes the default. Built from
 * {@code name=value} pairs and validated against the protocol's option list once, so a typo is an
 * error, not a silently ignored setting. Immutable.
 */
public final class LockOptions {
    public static final LockOptions DEFAULTS = new LockOptions(Map.of());

    private final Map<String, Long> values;

    private LockOptions(Map<String, Long> values) {
        this.values = Map.copyOf(values);
    }

    public static LockOptions of(Map<String, Long> values) {
        return new LockOptions(values);
    }

    /**
     * Parses {@code name=value} pairs; a value may end in {@code ns}, {@code us}, {@code ms} or
     * {@code s} when its option name ends in {@code -ns} (it is converted to nanoseconds), and may
     * be {@code inf} for "no limit" ({@link Long#MAX_VALUE}), or for an option with choices one of
     * their names (its index).
     */
    public static LockOptions parse(List<String> pairs) {
        Map<String, Long> map = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw new IllegalArgumentException("option '" + pair + "' is not name=value");
            }
            String name = pair.substring(0, eq).trim();
            map.put(name, parseValue(name, pair.substring(eq + 1).trim()));
        }
        return new LockOptions(map);
    }

    static long parseValue(String name, String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.equals("inf") || t.equals("infinity") || t.equals("∞")) {
            return Long.MAX_VALUE;
        }
        try {
            if (name.endsWith("-ns") && !t.isEmpty() && !Character.isDigit(t.charAt(t.length() - 1))) {
                return Durations.parseNanos(t);
            }
            return Long.parseLong(t.replace("_", ""));
        } catch (IllegalArgumentException e) {
            List<String> choices = choicesOf(name);
            int index = choices.indexOf(t);
            if (index >= 0) {
                return index;
            }
            throw new IllegalArgumentException("option " + name + ": '" + text + "' is not "
                    + (choices.isEmpty() ? "a number" + (name.endsWith("-ns") ? " or a duration" : "")
                    : "one of " + choices), e);
        }
    }

    /** The named values of a registered protocol's option called {@code name} (empty if none). */
    private static List<String> choicesOf(String name) {
        for (LockProtocol p : LockProtocols.all()) {
            for (LockOption o : p.options()) {
                if (o.name().equals(name) && !o.choices().isEmpty()) {
                    return o.choices();
                }
            }
        }
        return List.of();
    }

    /** Checks every given option is one of {@code known}; returns this. */
    public LockOptions validate(String protocol, List<LockOption> known) {
        for (String name : values.keySet()) {
            if (known.stream().noneMatch(o -> o.name().equals(name))) {
                String list = known.isEmpty() ? "none"
                        : known.stream().map(LockOption::name).collect(Collectors.joining(", "));
                throw new IllegalArgumentException("protocol " + protocol + " has no option '" + name
                        + "' (its options: " + list + ")");
            }
        }
        return this;
    }

    public long get(LockOption option) {
        return values.getOrDefault(option.name(), option.defaultValue());
    }

    public boolean isSet(String name) {
        return values.containsKey(name);
    }

    public Map<String, Long> asMap() {
        return values;
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
