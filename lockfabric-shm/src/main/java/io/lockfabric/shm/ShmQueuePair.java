package io.lockfabric.shm;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.CountingQueuePair;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.WaitInterruptedException;

/**
 * A queue pair of the shm fabric: every verb runs on the caller's thread, on the file's mapping in
 * this process, through the {@link io.lockfabric.fabric.memory.MemoryRegion} of its table (64-bit
 * verbs as hardware atomics; 128-bit ones through the {@link StripeGuard}). No memory-node CPU is on
 * the path. Counts every verb. As on the local fabric, a verb of an interrupted thread is not run:
 * it throws {@link WaitInterruptedException}.
 */
final class ShmQueuePair extends CountingQueuePair {
    private static final String VERB_REPLY = "a verb's completion";

    private final ShmFabric fabric;
    private final ShmFile file;
    private final EndpointId owner;
    /** Numbers this queue pair's rpcs: the endpoint's ordinal above, a count below (unique in the file). */
    private long nextCall;

    ShmQueuePair(ShmFabric fabric, EndpointId owner, long ordinal) {
        super(0);
        this.fabric = fabric;
        this.file = fabric.file();
        this.owner = owner;
        this.nextCall = ordinal << 32;
    }

    @Override
    public Object execute(Verb verb) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        return executeNow(verb);
    }

    /** A batch is posted whole or not at all: an interrupt is seen before its first verb only. */
    @Override
    public void execute(Batch batch) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        Object[] results = new Object[batch.size()];
        for (int i = 0; i < results.length; i++) {
            results[i] = executeNow(batch.verbs().get(i));
        }
        batch.complete(results);
    }

    private Object executeNow(Verb verb) {
        Object result = file.region(verb.address()).execute(verb, RemoteAddress.offset(verb.address()));
        counters.recordAll(verb);
        return result;
    }

    @Override
    public byte[] rpc(int service, byte[] request) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        counters.record(VerbKind.RPC, request.length);
        return fabric.rpc(service, owner, ++nextCall, request);
    }

    @Override
    public long read8(long address) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        long v = file.region(address).read8(RemoteAddress.offset(address));
        counters.record(VerbKind.READ, 8);
        return v;
    }

    @Override
    public Int128 read16(long address) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        Int128 v = file.region(address).read16(RemoteAddress.offset(address));
        counters.record(VerbKind.READ, 16);
        return v;
    }

    @Override
    public void write8(long address, long value) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        file.region(address).write8(RemoteAddress.offset(address), value);
        counters.record(VerbKind.WRITE, 8);
    }

    @Override
    public long cas(long address, long expect, long swap) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        long v = file.region(address).cas(RemoteAddress.offset(address), expect, swap);
        counters.record(VerbKind.CAS, 16);
        return v;
    }

    @Override
    public long faa(long address, long delta) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        long v = file.region(address).faa(RemoteAddress.offset(address), delta);
        counters.record(VerbKind.FAA, 8);
        return v;
    }

    @Override
    public long maskedCas(long address, long compare, long compareMask, long swap, long swapMask) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        long v = file.region(address).maskedCas(RemoteAddress.offset(address), compare, compareMask, swap, swapMask);
        counters.record(VerbKind.MCAS, 32);
        return v;
    }

    @Override
    public long maskedFaa(long address, long add, long boundaryMask) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        long v = file.region(address).maskedFaa(RemoteAddress.offset(address), add, boundaryMask);
        counters.record(VerbKind.MFAA, 16);
        return v;
    }
}
