package io.lockfabric.local;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.memory.MemoryNode;
import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.fabric.realtime.BlockingRpc;
import io.lockfabric.fabric.realtime.InlineQueuePair;

/**
 * A queue pair of the local fabric: verbs run on the caller's thread directly against the
 * {@link MemoryNode} ({@link InlineQueuePair}); rpcs are served by the node's handlers on the
 * caller's thread ({@link BlockingRpc}).
 */
final class LocalQueuePair extends InlineQueuePair {
    private final MemoryNode node;
    private final EndpointId owner;

    LocalQueuePair(MemoryNode node, EndpointId owner) {
        super(node.index());
        this.node = node;
        this.owner = owner;
    }

    @Override
    protected MemoryRegion region(long address) {
        return node.region(address);
    }

    /** Through the node, which turns a verb that met a dropped table's freed region into its error. */
    @Override
    protected Object run(Verb verb) {
        return node.execute(verb);
    }

    @Override
    public byte[] rpc(int service, byte[] request) {
        checkInterrupt();
        counters.record(VerbKind.RPC, request.length);
        return BlockingRpc.call(node, service, owner, request);
    }
}
