package io.lockfabric;

import io.lockfabric.client.EndpointPool;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** A {@link RangeSpace}: one range lock table of a range protocol, opened on each endpoint of the pool as it first serves the space. */
final class PooledRangeSpace extends SpaceCore implements RangeSpace {
    private record Client(RangeLockClient client, StatsCell cell) implements AutoCloseable {
        @Override
        public void close() {
            if (cell.behind()) {
                cell.publish(client.stats()); // on the endpoint's thread: what it counted is not lost
            }
            client.close();
        }
    }

    private final RangeLockProtocol protocol;
    private final LockOptions lockOptions;
    /** Where a space's table is on the memory node: this prefix and the space's name. */
    static final String TABLE_PREFIX = "rangespace/";
    private final String tableName;

    PooledRangeSpace(LockFabric fabric, String name, RangeLockProtocol protocol, LockOptions lockOptions) {
        // bound once to the fabric's timing: the failure model's lease depends on it, and open() gets the same
        LockOptions bound = lockOptions.onUnlessBound(fabric.timing());
        super(fabric, name, protocol.name(), protocol.failureModel(bound));
        this.protocol = protocol;
        this.lockOptions = bound;
        this.tableName = TABLE_PREFIX + name;
    }

    private Client clientOn(EndpointPool.Worker worker) {
        return worker.client(this, Client.class, ep -> new Client(protocol.open(ep, tableName, lockOptions), newCell()));
    }

    @Override
    String tableName() {
        return tableName;
    }

    @Override
    void openOn(EndpointPool.Worker worker) {
        clientOn(worker);
    }

    @Override
    Grant acquireOn(EndpointPool.Worker worker, Request request) {
        return clientOn(worker).client().acquire(request.start(), request.end(), request.mode());
    }

    @Override
    void publishStatsOn(EndpointPool.Worker idle) {
        Client c = idle.existingClient(this, Client.class);
        if (c != null && c.cell().behind()) {
            c.cell().publish(c.client().stats());
        }
    }

    @Override
    long retriesOn(EndpointPool.Worker worker) {
        return clientOn(worker).client().stats().retries();
    }

    @Override
    void releaseOn(EndpointPool.Worker worker, Grant grant) {
        Client c = clientOn(worker);
        c.client().release((RangeGrant) grant);
        if (c.cell().released()) {
            c.cell().publish(c.client().stats());
        }
    }

    private static Request request(long start, long end, Mode mode) {
        if (start < 0 || end <= start) {
            throw new IllegalArgumentException("a range [start, end) needs 0 <= start < end, got [" + start + ", " + end + ")");
        }
        return Request.range(start, end, Objects.requireNonNull(mode, "mode"));
    }

    @Override
    public Held acquire(long start, long end, Mode mode) {
        return acquireHere(request(start, end, mode));
    }

    @Override
    public Optional<Held> tryAcquire(long start, long end, Mode mode, Duration wait) {
        return Optional.ofNullable(awaitUnchecked(submit(request(start, end, mode), 0), tryWaitNs(wait)));
    }

    @Override
    public CompletableFuture<Held> acquireAsync(long start, long end, Mode mode) {
        return async(request(start, end, mode));
    }

    @Override
    public String toString() {
        return "RangeSpace[" + name() + ", " + protocol() + "]";
    }
}
