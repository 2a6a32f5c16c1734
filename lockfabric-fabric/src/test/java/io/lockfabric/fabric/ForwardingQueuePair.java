package io.lockfabric.fabric;

/** A queue pair that forwards everything to another one: tests override what they instrument or disturb. */
public class ForwardingQueuePair implements QueuePair {
    protected final QueuePair inner;

    public ForwardingQueuePair(QueuePair inner) {
        this.inner = inner;
    }

    @Override
    public int memoryNode() {
        return inner.memoryNode();
    }

    @Override
    public Object execute(Verb verb) {
        return inner.execute(verb);
    }

    @Override
    public void execute(Batch batch) {
        inner.execute(batch);
    }

    @Override
    public byte[] rpc(int service, byte[] request) {
        return inner.rpc(service, request);
    }
}
