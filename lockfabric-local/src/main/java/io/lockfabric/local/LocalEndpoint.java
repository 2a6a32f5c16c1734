package io.lockfabric.local;

import io.lockfabric.fabric.realtime.RealTimeClock;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/** A client of the local fabric. Belongs to one thread at a time. */
final class LocalEndpoint implements Endpoint {
    private final LocalFabric fabric;
    private final int ordinal;
    private final LocalQueuePair[] queuePairs;
    private final LocalMailbox mailbox;
    private final RandomGenerator random;

    LocalEndpoint(LocalFabric fabric, int ordinal, LocalQueuePair[] queuePairs, LocalMailbox mailbox, long seed) {
        this.fabric = fabric;
        this.ordinal = ordinal;
        this.queuePairs = queuePairs;
        this.mailbox = mailbox;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public Fabric fabric() {
        return fabric;
    }

    @Override
    public EndpointId id() {
        return mailbox.id();
    }

    @Override
    public int ordinal() {
        return ordinal;
    }

    @Override
    public QueuePair queuePair(int memoryNode) {
        if (memoryNode < 0 || memoryNode >= queuePairs.length) {
            throw new IllegalArgumentException("no memory node " + memoryNode + " (fabric has " + queuePairs.length + ")");
        }
        return queuePairs[memoryNode];
    }

    @Override
    public Mailbox mailbox() {
        return mailbox;
    }

    @Override
    public Clock clock() {
        return RealTimeClock.INSTANCE;
    }

    @Override
    public RandomGenerator random() {
        return random;
    }

    @Override
    public Table openTable(TableSpec spec) {
        return fabric.memoryNode(spec.memoryNode()).openTable(spec);
    }

    @Override
    public CounterSnapshot counters() {
        CounterSnapshot total = mailbox.counters();
        for (LocalQueuePair qp : queuePairs) {
            total = total.plus(qp.counters());
        }
        return total;
    }

    @Override
    public void close() {
        fabric.detach(this);
        mailbox.close();
    }
}
