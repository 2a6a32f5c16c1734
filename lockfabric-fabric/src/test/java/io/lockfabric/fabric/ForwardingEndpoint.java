package io.lockfabric.fabric;

import java.util.random.RandomGenerator;

/**
 * An endpoint that forwards everything to another one: tests override what they instrument or
 * disturb (the clock, the queue pairs through {@link ForwardingQueuePair}).
 */
public class ForwardingEndpoint implements Endpoint {
    protected final Endpoint inner;

    public ForwardingEndpoint(Endpoint inner) {
        this.inner = inner;
    }

    @Override
    public Fabric fabric() {
        return inner.fabric();
    }

    @Override
    public EndpointId id() {
        return inner.id();
    }

    @Override
    public int ordinal() {
        return inner.ordinal();
    }

    @Override
    public QueuePair queuePair(int memoryNode) {
        return inner.queuePair(memoryNode);
    }

    @Override
    public Mailbox mailbox() {
        return inner.mailbox();
    }

    @Override
    public Clock clock() {
        return inner.clock();
    }

    @Override
    public RandomGenerator random() {
        return inner.random();
    }

    @Override
    public Table openTable(TableSpec spec) {
        return inner.openTable(spec);
    }

    @Override
    public Attachments attachments() {
        return inner.attachments();
    }

    @Override
    public Attachments computeNode() {
        return inner.computeNode();
    }

    @Override
    public CounterSnapshot counters() {
        return inner.counters();
    }

    @Override
    public void close() {
        inner.close();
    }
}
