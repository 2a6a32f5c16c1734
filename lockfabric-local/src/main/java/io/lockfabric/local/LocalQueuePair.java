package io.lockfabric.local;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.CountingQueuePair;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.fabric.memory.MemoryNode;
import io.lockfabric.fabric.realtime.BlockingRpc;

/**
 * A queue pair of the local fabric: verbs run on the caller's thread directly against the
 * {@link MemoryNode}, with no allocation for the typed 64-bit verbs. Counts every verb. A verb of an
 * interrupted thread is not executed: it throws {@link WaitInterruptedException}, so that a client
 * that spins on verbs without ever waiting (a CAS retried at once) stops when it is ended from
 * outside, as one that waits does.
 */
final class LocalQueuePair extends CountingQueuePair {
    private static final String VERB_REPLY = "a verb's completion";

    private final MemoryNode node;
    private final EndpointId owner;

    LocalQueuePair(MemoryNode node, EndpointId owner) {
        super(node.index());
        this.node = node;
        this.owner = owner;
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
        Object result = node.execute(verb);
        counters.recordAll(verb);
        return result;
    }

    @Override
    public byte[] rpc(int service, byte[] request) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        counters.record(VerbKind.RPC, request.length);
        return BlockingRpc.call(node, service, owner, request);
    }

    @Override
    public long read8(long address) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        long v = node.region(address).read8(RemoteAddress.offset(address));
        counters.record(VerbKind.READ, 8);
        return v;
    }

    @Override
    public Int128 read16(long address) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        Int128 v = node.region(address).read16(RemoteAddress.offset(address));
        counters.record(VerbKind.READ, 16);
        return v;
    }

    @Override
    public void write8(long address, long value) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        node.region(address).write8(RemoteAddress.offset(address), value);
        counters.record(VerbKind.WRITE, 8);
    }

    @Override
    public long cas(long address, long expect, long swap) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        long v = node.region(address).cas(RemoteAddress.offset(address), expect, swap);
        counters.record(VerbKind.CAS, 16);
        return v;
    }

    @Override
    public long faa(long address, long delta) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        long v = node.region(address).faa(RemoteAddress.offset(address), delta);
        counters.record(VerbKind.FAA, 8);
        return v;
    }

    @Override
    public long maskedCas(long address, long compare, long compareMask, long swap, long swapMask) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        long v = node.region(address).maskedCas(RemoteAddress.offset(address), compare, compareMask, swap, swapMask);
        counters.record(VerbKind.MCAS, 32);
        return v;
    }

    @Override
    public long maskedFaa(long address, long add, long boundaryMask) {
        WaitInterruptedException.throwIfInterrupted(VERB_REPLY);
        long v = node.region(address).maskedFaa(RemoteAddress.offset(address), add, boundaryMask);
        counters.record(VerbKind.MFAA, 16);
        return v;
    }
}
