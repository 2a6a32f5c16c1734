package io.lockfabric.fabric;

import java.util.Arrays;
import java.util.Collection;

/** An immutable copy of {@link Counters}, with the arithmetic reports need. */
public record CounterSnapshot(long[] ops, long[] bytes) {
    public static final CounterSnapshot ZERO = new CounterSnapshot(new long[VerbKind.count()], new long[VerbKind.count()]);

    public CounterSnapshot {
        if (ops.length != VerbKind.count() || bytes.length != VerbKind.count()) {
            throw new IllegalArgumentException("one count per verb kind expected");
        }
    }

    public long ops(VerbKind kind) {
        return ops[kind.ordinal()];
    }

    public long bytes(VerbKind kind) {
        return bytes[kind.ordinal()];
    }

    /** Verbs served by the memory node's NIC (every kind but SEND and RPC). */
    public long oneSidedOps() {
        long total = 0;
        for (VerbKind k : VerbKind.values()) {
            if (k.isOneSided()) {
                total += ops[k.ordinal()];
            }
        }
        return total;
    }

    public long totalBytes() {
        return Arrays.stream(bytes).sum();
    }

    public CounterSnapshot plus(CounterSnapshot o) {
        long[] p = ops.clone();
        long[] b = bytes.clone();
        for (int i = 0; i < p.length; i++) {
            p[i] += o.ops[i];
            b[i] += o.bytes[i];
        }
        return new CounterSnapshot(p, b);
    }

    public CounterSnapshot minus(CounterSnapshot o) {
        long[] p = ops.clone();
        long[] b = bytes.clone();
        for (int i = 0; i < p.length; i++) {
            p[i] -= o.ops[i];
            b[i] -= o.bytes[i];
        }
        return new CounterSnapshot(p, b);
    }

    public static CounterSnapshot sum(Collection<CounterSnapshot> all) {
        CounterSnapshot total = ZERO;
        for (CounterSnapshot s : all) {
            total = total.plus(s);
        }
        return total;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CounterSnapshot s && Arrays.equals(ops, s.ops) && Arrays.equals(bytes, s.bytes);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(ops) + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (VerbKind k : VerbKind.values()) {
            if (ops[k.ordinal()] != 0) {
                if (sb.length() > 1) {
                    sb.append(", ");
                }
                sb.append(k.label()).append('=').append(ops[k.ordinal()]);
            }
        }
        return sb.append('}').toString();
    }
}
