package io.lockfabric.bench;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.VerbKind;

import java.util.Arrays;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * Remote operations per acquire–release cycle, by {@link VerbKind}: counted operations divided by
 * the number of cycles. Immutable.
 */
public final class OpsPerCycle {
    public static final OpsPerCycle ZERO = new OpsPerCycle(new double[VerbKind.count()]);

    private final double[] perKind;

    private OpsPerCycle(double[] perKind) {
        this.perKind = perKind;
    }

    /** {@code counts} divided by {@code cycles}; all zero when there were no cycles. */
    public static OpsPerCycle of(CounterSnapshot counts, long cycles) {
        double[] rates = new double[VerbKind.count()];
        if (cycles > 0) {
            for (VerbKind k : VerbKind.values()) {
                rates[k.ordinal()] = (double) counts.ops(k) / cycles;
            }
        }
        return new OpsPerCycle(rates);
    }

    public double get(VerbKind kind) {
        return perKind[kind.ordinal()];
    }

    /** The sum over the one-sided verbs (what the memory node's NIC serves). */
    public double oneSided() {
        double sum = 0;
        for (VerbKind k : VerbKind.values()) {
            if (k.isOneSided()) {
                sum += perKind[k.ordinal()];
            }
        }
        return sum;
    }

    /** The sum over the atomics (8- and 16-byte, plain and masked), as the papers count them. */
    public double atomics() {
        double sum = 0;
        for (VerbKind k : VerbKind.values()) {
            if (k.isAtomic()) {
                sum += perKind[k.ordinal()];
            }
        }
        return sum;
    }

    /** Non-zero kinds as {@code "1.00 mcas + 1.00 write"}, or {@code "0"} when none. */
    public String compact() {
        StringJoiner sj = new StringJoiner(" + ");
        for (VerbKind k : VerbKind.values()) {
            double v = perKind[k.ordinal()];
            if (v != 0) {
                sj.add(String.format(Locale.ROOT, "%.2f %s", v, k.label()));
            }
        }
        return sj.length() == 0 ? "0" : sj.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpsPerCycle other && Arrays.equals(perKind, other.perKind);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(perKind);
    }

    @Override
    public String toString() {
        return compact();
    }
}
