package io.lockfabric.bench.experiment;

import io.lockfabric.lock.LockOption;
import io.lockfabric.protocols.LockProtocols;

import java.util.ArrayList;
import java.util.List;

/**
 * Protocol options under which the reproductions run a baseline as the papers' authors ran it:
 * with its artifact's settings where our protocol's defaults differ on purpose.
 *
 * <p>ShiftLock: its artifact's waiting reader (for the epoch flip) and waiting writer (for the
 * readers to leave) READ the entry every {@code remote_wait}, its {@code --backoff} (1862 ns by
 * default), a fixed gap. Our protocol's default doubles the gap up to 20 us, which suits real
 * deployments (fewer READs against a busy memory node) but checks far less often than the
 * artifact: at cs 32 of DecLock's Figure 12, 2.6 READs per acquisition against the 15.6 the
 * DecLock paper counts, 12.1 with the fixed gap.
 */
public final class ArtifactOptions {
    public static final String SHIFTLOCK = "shiftlock";
    public static final String POLL_OPTION = "poll-ns";
    public static final String MAX_POLL_OPTION = "max-poll-ns";
    /** The ShiftLock artifact's {@code --backoff} default, its fixed gap between a waiter's READs. */
    public static final String SHIFTLOCK_POLL_NS = "1862";
    /** What an experiment's setup line says of these settings. */
    public static final String SETUP_NOTE = "shiftlock polling at its artifact's fixed " + SHIFTLOCK_POLL_NS + " ns";

    private ArtifactOptions() {
    }

    /** {@code options} ({@code protocol.key=value} pairs) plus the artifact's settings for {@code protocol} not set there. */
    public static List<String> of(String protocol, List<String> options) {
        List<String> out = new ArrayList<>(options);
        if (protocol.equals(SHIFTLOCK) && hasOption(protocol, POLL_OPTION)) {
            addUnlessSet(out, protocol, POLL_OPTION, SHIFTLOCK_POLL_NS);
            addUnlessSet(out, protocol, MAX_POLL_OPTION, SHIFTLOCK_POLL_NS);
        }
        return List.copyOf(out);
    }

    public static boolean hasOption(String protocol, String option) {
        return LockProtocols.names().contains(protocol) && LockProtocols.byName(protocol).options().stream()
                .map(LockOption::name).anyMatch(option::equals);
    }

    /** Adds {@code protocol.option=value} to {@code out} unless {@code out} sets that option already. */
    public static void addUnlessSet(List<String> out, String protocol, String option, String value) {
        String key = protocol + "." + option + "=";
        if (out.stream().noneMatch(o -> o.startsWith(key))) {
            out.add(key + value);
        }
    }
}
