package io.lockfabric.shm;

import io.lockfabric.fabric.Attachments;
import io.lockfabric.fabric.CountingEndpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.realtime.RealTimeClock;

/** A client of the shm fabric: the JVM's clock, a queue pair onto the mapped file, a mailbox ring in it. One thread at a time. */
final class ShmEndpoint extends CountingEndpoint {
    private final ShmFabric fabric;
    private final long slot;

    ShmEndpoint(ShmFabric fabric, EndpointId id, int ordinal, long slot, ShmQueuePair queuePair, ShmMailbox mailbox,
                long seed, Attachments computeNode) {
        super(fabric, id, ordinal, RealTimeClock.INSTANCE, seed, computeNode);
        this.fabric = fabric;
        this.slot = slot;
        connect(mailbox, queuePair);
    }

    @Override
    public Table openTable(TableSpec spec) {
        return fabric.openTable(spec, slot, 0);
    }

    @Override
    public void close() {
        fabric.release(this, slot);
    }
}
