package io.lockfabric.fabric.realtime;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.CountingQueuePair;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.fabric.memory.MemoryRegion;

/**
 * A queue pair whose verbs run on the caller's thread, directly against memory this process can
 * reach (the local fabric's memory node in this JVM; the shm fabric's mapped file), with no
 * allocation for the typed 64-bit verbs. Counts every verb. A verb of an interrupted thread is not
 * executed: it throws {@link WaitInterruptedException}, so that a client that spins on verbs without
 * ever waiting (a CAS retried at once) stops when it is ended from outside, as one that waits does.
 * A subclass says where an address's region is, how a generic {@link Verb} runs, and how rpcs go.
 */
public abstract class InlineQueuePair extends CountingQueuePair {
    private static final String VERB_REPLY = "a verb's completion";

    protected InlineQueuePair(int memoryNode) {
        super(memoryNode);
    }

    /** The region {@code address} points into (the memory node's checks and errors). */
    protected abstract MemoryRegion region(long address);

    /** Runs one generic verb now (not counted: the caller counts). */
    protected abstract Object run(Verb verb);

    @Override
    public final Object execute(Verb verb) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        return executeNow(verb);
    }

    /** A batch is posted whole or not at all: an interrupt is seen before its first verb only. */
    @Override
    public final void execute(Batch batch) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        Object[] results = new Object[batch.size()];
        for (int i = 0; i < results.length; i++) {
            results[i] = executeNow(batch.verbs().get(i));
        }
        batch.complete(results);
    }

    private Object executeNow(Verb verb) {
        Object result = run(verb);
        counters.recordAll(verb);
        return result;
    }

    /** Throws if the calling thread was interrupted (for {@link #rpc} implementations, before they count). */
    protected static void checkInterrupt() {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
    }

    @Override
    public final long read8(long address) {
        checkInterrupt();
        long v = region(address).read8(RemoteAddress.offset(address));
        counters.record(VerbKind.READ, 8);
        return v;
    }

    @Override
    public final Int128 read16(long address) {
        checkInterrupt();
        Int128 v = region(address).read16(RemoteAddress.offset(address));
        counters.record(VerbKind.READ, 16);
        return v;
    }

    @Override
    public final void write8(long address, long value) {
        checkInterrupt();
        region(address).write8(RemoteAddress.offset(address), value);
        counters.record(VerbKind.WRITE, 8);
    }

    @Override
    public final long cas(long address, long expect, long swap) {
        checkInterrupt();
        long v = region(address).cas(RemoteAddress.offset(address), expect, swap);
        counters.record(VerbKind.CAS, 16);
        return v;
    }

    @Override
    public final long faa(long address, long delta) {
        checkInterrupt();
        long v = region(address).faa(RemoteAddress.offset(address), delta);
        counters.record(VerbKind.FAA, 8);
        return v;
    }

    @Override
    public final long maskedCas(long address, long compare, long compareMask, long swap, long swapMask) {
        checkInterrupt();
        long v = region(address).maskedCas(RemoteAddress.offset(address), compare, compareMask, swap, swapMask);
        counters.record(VerbKind.MCAS, 32);
        return v;
    }

    @Override
    public final long maskedFaa(long address, long add, long boundaryMask) {
        checkInterrupt();
        long v = region(address).maskedFaa(RemoteAddress.offset(address), add, boundaryMask);
        counters.record(VerbKind.MFAA, 16);
        return v;
    }
}
