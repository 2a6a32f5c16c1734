package io.lockfabric.bench;

import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Protocol options for a run over several protocols, as given on the command line: {@code
 * proto.name=value} sets an option of one protocol, {@code name=value} sets it for every protocol
 * that has an option of that name. {@link #validate} checks, once, that each pair lands somewhere,
 * so a typo is an error rather than a silently ignored setting. Immutable.
 */
public final class ProtocolOptions {
    public static final ProtocolOptions NONE = new ProtocolOptions(List.of());

    /** One parsed pair: the protocol it names ({@code null} for all that have it), and name=value. */
    private record Entry(String protocol, String name, String pair) {
    }

    private final List<Entry> entries;

    private ProtocolOptions(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /**
     * Parses pairs; a prefix before the first '.' of the name is a protocol name.
     *
     * @throws IllegalArgumentException for a pair that is not name=value or names an unknown protocol
     */
    public static ProtocolOptions parse(List<String> pairs) {
        List<Entry> entries = new ArrayList<>();
        for (String raw : pairs) {
            Objects.requireNonNull(raw, "option");
            int eq = raw.indexOf('=');
            if (eq <= 0 || eq == raw.length() - 1) {
                throw new IllegalArgumentException("option '" + raw + "' is not name=value or protocol.name=value");
            }
            String key = raw.substring(0, eq).trim();
            String value = raw.substring(eq + 1).trim();
            int dot = key.indexOf('.');
            String protocol = null;
            String name = key;
            if (dot >= 0) {
                protocol = key.substring(0, dot);
                name = key.substring(dot + 1);
                LockProtocols.byName(protocol); // fails clearly for an unknown protocol
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("option '" + raw + "' has no option name after '" + protocol + ".'");
                }
            }
            // Parse the value now, so a bad number or choice is reported before any run starts. A word
            // is the name of a choice of the option (validate checks it against each selected
            // protocol's own option again).
            LockOptions parsed = LockOptions.parse(List.of(name + "=" + value));
            if (!parsed.asMap().containsKey(name)) {
                List<String> choices = choicesOf(protocol, name);
                if (!choices.contains(value.toLowerCase(java.util.Locale.ROOT))) {
                    throw new IllegalArgumentException("option " + name + ": '" + value + "' is not "
                            + (choices.isEmpty() ? "a number" : "one of " + choices));
                }
            }
            entries.add(new Entry(protocol, name, name + "=" + value));
        }
        return new ProtocolOptions(entries);
    }

    /** True if no option was given. */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /**
     * Checks that every pair applies to at least one of {@code protocols} and that every protocol
     * it applies to has it.
     *
     * @throws IllegalArgumentException naming the pair and the options that exist
     */
    public void validate(Collection<LockProtocol> protocols) {
        for (Entry e : entries) {
            if (e.protocol() != null) {
                LockProtocol p = LockProtocols.byName(e.protocol());
                if (protocols.stream().noneMatch(q -> q.name().equals(p.name()))) {
                    throw new IllegalArgumentException("option '" + e.protocol() + "." + e.pair()
                            + "' is for protocol " + p.name() + ", which is not being run");
                }
                LockOptions.parse(List.of(e.pair())).validate(p.name(), p.options());
            } else if (protocols.stream().noneMatch(p -> has(p, e.name()))) {
                throw new IllegalArgumentException("no selected protocol has an option '" + e.name() + "'"
                        + " (see 'lockfabric protocols')");
            } else {
                // a choice's name is checked against the option of each protocol that has it
                for (LockProtocol p : protocols) {
                    if (has(p, e.name())) {
                        LockOptions.parse(List.of(e.pair())).validate(p.name(), p.options());
                    }
                }
            }
        }
    }

    /** The options of {@code protocol}: its own pairs and the unqualified pairs it has an option for. */
    public LockOptions forProtocol(LockProtocol protocol) {
        List<String> pairs = new ArrayList<>();
        for (Entry e : entries) {
            if (e.protocol() == null ? has(protocol, e.name()) : e.protocol().equals(protocol.name())) {
                pairs.add(e.pair());
            }
        }
        return LockOptions.parse(pairs).validate(protocol.name(), protocol.options());
    }

    /** The pairs (normalized) that apply to {@code protocol}: its own and the unqualified ones it has an option for. */
    public List<String> pairsFor(LockProtocol protocol) {
        return entries.stream()
                .filter(e -> e.protocol() == null ? has(protocol, e.name()) : e.protocol().equals(protocol.name()))
                .map(e -> e.protocol() == null ? e.pair() : e.protocol() + "." + e.pair()).toList();
    }

    /** The choices of the first option called {@code name} that has some, of {@code protocol} or any registered one. */
    private static List<String> choicesOf(String protocol, String name) {
        List<LockProtocol> candidates = protocol == null ? LockProtocols.all() : List.of(LockProtocols.byName(protocol));
        return candidates.stream().flatMap(p -> p.options().stream())
                .filter(o -> o.name().equals(name) && !o.choices().isEmpty())
                .map(LockOption::choices).findFirst().orElse(List.of());
    }

    private static boolean has(LockProtocol protocol, String name) {
        return protocol.options().stream().map(LockOption::name).anyMatch(name::equals);
    }

    /** The pairs as given (normalized), for reports. */
    public List<String> pairs() {
        return entries.stream().map(e -> e.protocol() == null ? e.pair() : e.protocol() + "." + e.pair()).toList();
    }

    @Override
    public String toString() {
        return String.join(" ", pairs());
    }
}
