package io.lockfabric.bench.btree;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Sherman's workloads (SIGMOD'22 §6; DecLock §6 runs the same three): the share of updates, the
 * rest lock-free searches.
 */
public enum BTreeMix {
    /** 100% updates. */
    UPDATE_ONLY("update-only", 1.0),
    /** 50% updates, 50% searches. */
    UPDATE_HEAVY("update-heavy", 0.5),
    /** 5% updates, 95% searches. */
    SEARCH_MOSTLY("search-mostly", 0.05);

    private final String label;
    private final double updateRatio;

    BTreeMix(String label, double updateRatio) {
        this.label = label;
        this.updateRatio = updateRatio;
    }

    /** The name on the command line and in reports. */
    public String label() {
        return label;
    }

    /** The share of operations that are updates. */
    public double updateRatio() {
        return updateRatio;
    }

    /**
     * The mix named {@code name}.
     *
     * @throws IllegalArgumentException naming the known mixes
     */
    public static BTreeMix byName(String name) {
        for (BTreeMix m : values()) {
            if (m.label.equals(name.trim().toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown B+-tree workload '" + name + "'; known: "
                + Arrays.stream(values()).map(BTreeMix::label).collect(Collectors.joining(", ")));
    }
}
