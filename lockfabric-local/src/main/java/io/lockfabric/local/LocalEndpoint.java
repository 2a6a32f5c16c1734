package io.lockfabric.local;

import io.lockfabric.fabric.Attachments;
import io.lockfabric.fabric.CountingEndpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.realtime.RealTimeClock;

/** A client of the local fabric: the JVM's clock, queue pairs straight to the memory nodes. Belongs to one thread at a time. */
final class LocalEndpoint extends CountingEndpoint {
    private final LocalFabric fabric;
    private final LocalMailbox mailbox;

    LocalEndpoint(LocalFabric fabric, EndpointId id, int ordinal, LocalQueuePair[] queuePairs, LocalMailbox mailbox,
                  long seed, Attachments computeNode) {
        super(fabric, id, ordinal, RealTimeClock.INSTANCE, seed, computeNode);
        this.fabric = fabric;
        this.mailbox = mailbox;
        connect(mailbox, queuePairs);
    }

    @Override
    public Table openTable(TableSpec spec) {
        Table t = fabric.memoryNode(spec.memoryNode()).openTable(spec);
        fabric.opened(this, spec.memoryNode(), spec.name());
        return t;
    }

    @Override
    public void close() {
        fabric.detach(this);
        mailbox.close();
    }
}
