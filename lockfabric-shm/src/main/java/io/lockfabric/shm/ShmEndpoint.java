package io.lockfabric.shm;

import io.lockfabric.fabric.Attachments;
import io.lockfabric.fabric.CountingEndpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.realtime.RealTimeClock;

import java.util.function.Consumer;

/** A client of the shm fabric: the JVM's clock, a queue pair onto the mapped file, a mailbox ring in it. One thread at a time. */
final class ShmEndpoint extends CountingEndpoint {
    private final ShmFabric fabric;
    private final long slot;
    private final ShmQueuePair queuePair;

    ShmEndpoint(ShmFabric fabric, EndpointId id, int ordinal, long slot, ShmQueuePair queuePair, ShmMailbox mailbox,
                long seed, Attachments computeNode) {
        super(fabric, id, ordinal, RealTimeClock.INSTANCE, seed, computeNode);
        this.fabric = fabric;
        this.slot = slot;
        this.queuePair = queuePair;
        connect(mailbox, queuePair);
    }

    @Override
    public Table openTable(TableSpec spec) {
        queuePair.checkNotLost();
        return fabric.openTable(spec, slot, 0);
    }

    /**
     * Told when the rpc server this endpoint's rpcs went to is gone, with what they left there (see
     * {@link ShmQueuePair}); an endpoint that sends no rpc is never lost.
     */
    @Override
    public void onMemoryNodeLost(Consumer<? super FabricException> listener) {
        queuePair.onLost(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /** This endpoint's queue pair (its rpcs' binding to a server). */
    ShmQueuePair shmQueuePair() {
        return queuePair;
    }

    @Override
    public void close() {
        fabric.release(this, slot);
    }
}
