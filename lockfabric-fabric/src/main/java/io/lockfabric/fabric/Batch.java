package io.lockfabric.fabric;

import java.util.ArrayList;
import java.util.List;

/**
 * Verbs posted together to one memory node and completed together: one doorbell, one round trip.
 * The memory node executes them in order, so a later verb may depend on an earlier one's effect
 * (an FAA on a lock header followed by a READ of the queue behind it).
 *
 * <p>Build with the adders, which return the index of the verb's result, then
 * {@link QueuePair#execute(Batch)}, then read results by index. A batch may be {@link #clear()}ed
 * and reused. Not thread-safe.
 */
public final class Batch {
    private final List<Verb> verbs = new ArrayList<>();
    private Object[] results = new Object[0];
    private boolean executed;

    public int read8(long address) {
        return add(new Verb.Read8(address));
    }

    public int read16(long address) {
        return add(new Verb.Read16(address));
    }

    public int read(long address, int length) {
        return add(new Verb.Read(address, length));
    }

    public int write8(long address, long value) {
        return add(new Verb.Write8(address, value));
    }

    public int write(long address, byte[] data) {
        return add(new Verb.Write(address, data));
    }

    public int cas(long address, long expect, long swap) {
        return add(new Verb.Cas(address, expect, swap));
    }

    public int faa(long address, long delta) {
        return add(new Verb.Faa(address, delta));
    }

    public int maskedCas(long address, long compare, long compareMask, long swap, long swapMask) {
        return add(new Verb.MaskedCas(address, compare, compareMask, swap, swapMask));
    }

    public int maskedFaa(long address, long add, long boundaryMask) {
        return add(new Verb.MaskedFaa(address, add, boundaryMask));
    }

    public int maskedCas128(long address, Int128 compare, Int128 compareMask, Int128 swap, Int128 swapMask) {
        return add(new Verb.MaskedCas128(address, compare, compareMask, swap, swapMask));
    }

    public int maskedFaa128(long address, Int128 add, Int128 boundaryMask) {
        return add(new Verb.MaskedFaa128(address, add, boundaryMask));
    }

    public int add(Verb verb) {
        if (executed) {
            throw new IllegalStateException("batch already executed; clear() it before reuse");
        }
        verbs.add(verb);
        return verbs.size() - 1;
    }

    public List<Verb> verbs() {
        return verbs;
    }

    public int size() {
        return verbs.size();
    }

    /** Called by a fabric when the batch completed; {@code results[i]} is verb i's result. */
    public void complete(Object[] results) {
        if (results.length != verbs.size()) {
            throw new IllegalArgumentException("expected " + verbs.size() + " results, got " + results.length);
        }
        this.results = results;
        this.executed = true;
    }

    public boolean isExecuted() {
        return executed;
    }

    /** The 64-bit result (old value or 8-byte read) of verb {@code index}. */
    public long longResult(int index) {
        return (Long) result(index);
    }

    /** The 128-bit result (old value or 16-byte read) of verb {@code index}. */
    public Int128 int128Result(int index) {
        return (Int128) result(index);
    }

    /** The bytes of range read {@code index}. */
    public byte[] bytesResult(int index) {
        return (byte[]) result(index);
    }

    private Object result(int index) {
        if (!executed) {
            throw new IllegalStateException("batch not executed yet");
        }
        return results[index];
    }

    public void clear() {
        verbs.clear();
        results = new Object[0];
        executed = false;
    }
}
