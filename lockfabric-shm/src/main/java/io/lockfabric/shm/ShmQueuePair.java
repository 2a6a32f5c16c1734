package io.lockfabric.shm;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.fabric.realtime.InlineQueuePair;

/**
 * A queue pair of the shm fabric: every verb runs on the caller's thread, on the file's mapping in
 * this process, through the {@link io.lockfabric.fabric.memory.MemoryRegion} of its table (64-bit
 * verbs as hardware atomics; 128-bit ones through the {@link StripeGuard}). No memory-node CPU is on
 * the path. Counts every verb. As on the local fabric, a verb of an interrupted thread is not run:
 * it throws {@link WaitInterruptedException}.
 */
final class ShmQueuePair extends InlineQueuePair {
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
    protected MemoryRegion region(long address) {
        return file.region(address);
    }

    @Override
    protected Object run(Verb verb) {
        return file.region(verb.address()).execute(verb, RemoteAddress.offset(verb.address()));
    }

    @Override
    public byte[] rpc(int service, byte[] request) {
        checkInterrupt();
        counters.record(VerbKind.RPC, request.length);
        return fabric.rpc(service, owner, ++nextCall, request);
    }
}
