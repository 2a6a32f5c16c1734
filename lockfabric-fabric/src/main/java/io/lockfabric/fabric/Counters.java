package io.lockfabric.fabric;

/**
 * Operation and byte counts by {@link VerbKind}, written by one thread (the owner of a queue pair
 * or mailbox). Others read them through {@link #snapshot()}: exact once the owner has stopped, a
 * little stale while it runs. Fabrics count every verb, message and rpc, so "remote operations per
 * lock operation" is exact.
 */
public final class Counters {
    private final long[] ops = new long[VerbKind.count()];
    private final long[] bytes = new long[VerbKind.count()];

    public void record(VerbKind kind, long payloadBytes) {
        ops[kind.ordinal()]++;
        bytes[kind.ordinal()] += payloadBytes;
    }

    public void recordAll(Verb verb) {
        record(verb.kind(), verb.payloadBytes());
    }

    public CounterSnapshot snapshot() {
        return new CounterSnapshot(ops.clone(), bytes.clone());
    }
}
