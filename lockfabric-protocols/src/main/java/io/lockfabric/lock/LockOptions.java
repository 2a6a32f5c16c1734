package io.lockfabric.lock;

import io.lockfabric.fabric.Durations;
import io.lockfabric.fabric.FabricTiming;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Values of a protocol's {@link LockOption}s; anything not given takes the default. Built from
 * {@code name=value} pairs and validated against the protocol's option list once, so a typo is an
 * error, not a silently ignored setting. Immutable.
 *
 * <p>Parsing needs no protocol: a value is a number, a duration (for a name ending in {@code -ns})
 * or {@code inf}, or else a word that names a choice. A word is kept as given until the option it
 * belongs to resolves it: {@link #validate} checks it against the protocol's own options, and
 * {@link #get} turns it into the choice's index.
 *
 * <p>Defaults of waits depend on the fabric ({@link LockOption#wait}): options bound to a fabric's
 * timing with {@link #on} give each wait not set its default for that timing; unbound ones give the
 * reference (RDMA) defaults. A value set explicitly always wins.
 */
public final class LockOptions {
    public static final LockOptions DEFAULTS = new LockOptions(Map.of(), Map.of(), null);

    /** What a choice's name looks like: a word, not a number or a duration. */
    private static final Pattern CHOICE_NAME = Pattern.compile("[a-z][a-z0-9_-]*");

    private final Map<String, Long> values;
    /** Words given for options with choices, not resolved to an index yet. */
    private final Map<String, String> choiceNames;
    /** The timing the defaults of waits are for; null: the reference (RDMA). */
    private final FabricTiming timing;

    private LockOptions(Map<String, Long> values, Map<String, String> choiceNames, FabricTiming timing) {
        this.values = Map.copyOf(values);
        this.choiceNames = Map.copyOf(choiceNames);
        this.timing = timing;
    }

    public static LockOptions of(Map<String, Long> values) {
        return new LockOptions(values, Map.of(), null);
    }

    /**
     * Parses {@code name=value} pairs; a value may end in {@code ns}, {@code us}, {@code ms} or
     * {@code s} when its option name ends in {@code -ns} (it is converted to nanoseconds), and may
     * be {@code inf} for "no limit" ({@link Long#MAX_VALUE}), or for an option with choices one of
     * their names (resolved against the option when validated or read). A later pair of the same
     * name overrides an earlier one.
     *
     * @throws IllegalArgumentException for a pair that is not name=value, or a value that is
     *                                  neither a number (a duration for -ns) nor a word
     */
    public static LockOptions parse(List<String> pairs) {
        Map<String, Long> map = new LinkedHashMap<>();
        Map<String, String> words = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw new IllegalArgumentException("option '" + pair + "' is not name=value");
            }
            String name = pair.substring(0, eq).trim();
            String text = pair.substring(eq + 1).trim();
            map.remove(name);
            words.remove(name);
            String word = choiceWord(name, text);
            if (word != null) {
                words.put(name, word);
            } else {
                map.put(name, parseValue(name, text));
            }
        }
        return new LockOptions(map, words, null);
    }

    /** {@code text} as the name of a choice if it can be one (a word, for an option that is no duration), else null. */
    private static String choiceWord(String name, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (name.endsWith("-ns") || isInfinite(t) || !CHOICE_NAME.matcher(t).matches()) {
            return null;
        }
        return t;
    }

    private static boolean isInfinite(String t) {
        return t.equals("inf") || t.equals("infinity") || t.equals("∞");
    }

    static long parseValue(String name, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (isInfinite(t)) {
            return Long.MAX_VALUE;
        }
        try {
            if (name.endsWith("-ns") && !t.isEmpty() && !Character.isDigit(t.charAt(t.length() - 1))) {
                return Durations.parseNanos(t);
            }
            return Long.parseLong(t.replace("_", ""));
        } catch (IllegalArgumentException e) {
            throw notAValue(name, text, List.of(), e);
        }
    }

    private static IllegalArgumentException notAValue(String name, String text, List<String> choices, Exception cause) {
        return new IllegalArgumentException("option " + name + ": '" + text + "' is not "
                + (choices.isEmpty() ? "a number" + (name.endsWith("-ns") ? " or a duration" : "")
                : "one of " + choices), cause);
    }

    /**
     * Checks every given option is one of {@code known}, and every word given names one of its
     * option's choices; returns this.
     *
     * @throws IllegalArgumentException naming the unknown option (and the known ones), or the word
     *                                  and the choices (or that a number was wanted)
     */
    public LockOptions validate(String protocol, List<LockOption> known) {
        List<String> given = new ArrayList<>(values.keySet());
        given.addAll(choiceNames.keySet());
        for (String name : given) {
            if (known.stream().noneMatch(o -> o.name().equals(name))) {
                String list = known.isEmpty() ? "none"
                        : known.stream().map(LockOption::name).collect(Collectors.joining(", "));
                throw new IllegalArgumentException("protocol " + protocol + " has no option '" + name
                        + "' (its options: " + list + ")");
            }
        }
        for (LockOption o : known) {
            if (choiceNames.containsKey(o.name())) {
                choiceIndex(o);
            }
        }
        return this;
    }

    /**
     * These options on a fabric of {@code timing}: each wait not given takes its default for that
     * timing ({@link LockOption#defaultValue(FabricTiming)}); values given stay as they are.
     */
    public LockOptions on(FabricTiming timing) {
        return new LockOptions(values, choiceNames, Objects.requireNonNull(timing, "timing"));
    }

    /** These options, bound to {@code timing} unless already bound to a timing. */
    public LockOptions onUnlessBound(FabricTiming timing) {
        return this.timing != null ? this : on(timing);
    }

    /** The timing the defaults of waits are for, or null if unbound (the reference defaults). */
    public FabricTiming timing() {
        return timing;
    }

    public long get(LockOption option) {
        Long value = values.get(option.name());
        if (value != null) {
            return value;
        }
        if (choiceNames.containsKey(option.name())) {
            return choiceIndex(option);
        }
        return option.defaultValue(timing);
    }

    private long choiceIndex(LockOption option) {
        String word = choiceNames.get(option.name());
        int index = option.choices().indexOf(word);
        if (index < 0) {
            throw notAValue(option.name(), word, option.choices(), null);
        }
        return index;
    }

    public boolean isSet(String name) {
        return values.containsKey(name) || choiceNames.containsKey(name);
    }

    /** The numbers given, by name (choices given by name are not in it until an option reads them). */
    public Map<String, Long> asMap() {
        return values;
    }

    /**
     * The {@code name=value} pairs that set each wait among {@code options} whose default on a
     * fabric of {@code timing} differs from its reference (RDMA) default to that default: what a
     * tool prints and passes on when it runs protocols on such a fabric. Empty on RDMA.
     */
    public static List<String> timedDefaults(FabricTiming timing, Collection<LockOption> options) {
        List<String> pairs = new ArrayList<>();
        for (LockOption o : options) {
            long onFabric = o.defaultValue(timing);
            if (onFabric != o.defaultValue()) {
                pairs.add(o.name() + "=" + formatValue(o.name(), onFabric));
            }
        }
        return pairs;
    }

    /** A value as {@link #parse} reads it back: a duration with a unit where exact, else the number. */
    static String formatValue(String name, long value) {
        if (value == Long.MAX_VALUE) {
            return "inf";
        }
        if (name.endsWith("-ns") && value >= 0) {
            String d = Durations.format(value);
            if (Durations.parseNanos(d) == value) {
                return d;
            }
        }
        return Long.toString(value);
    }

    @Override
    public String toString() {
        if (choiceNames.isEmpty()) {
            return values.toString();
        }
        Map<String, Object> all = new LinkedHashMap<>(values);
        all.putAll(choiceNames);
        return all.toString();
    }
}
