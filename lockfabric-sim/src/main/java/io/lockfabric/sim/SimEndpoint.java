package io.lockfabric.sim;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * A simulated client endpoint. It is bound to the first simulated process that uses it; a crash
 * of that process kills the endpoint (sends to it fail, messages to it are lost).
 */
final class SimEndpoint implements Endpoint {
    private final SimFabric fabric;
    private final EndpointId id;
    private final int ordinal;
    private final SimQueuePair[] queuePairs;
    private final SimMailbox mailbox;
    private final SimClock clock;
    private final RandomGenerator random;
    private SimProcess owner;
    private final double clockRate;
    private boolean closed;

    SimEndpoint(SimFabric fabric, EndpointId id, int ordinal, double clockRate, long seed) {
        this.clockRate = clockRate;
        this.fabric = fabric;
        this.id = id;
        this.ordinal = ordinal;
        this.clock = new SimClock(fabric, clockRate);
        this.random = new SplittableRandom(seed);
        this.mailbox = new SimMailbox(fabric, this);
        this.queuePairs = new SimQueuePair[fabric.memoryNodes()];
        for (int i = 0; i < queuePairs.length; i++) {
            queuePairs[i] = new SimQueuePair(fabric, this, fabric.memoryNode(i), fabric.nic(i), fabric.cpu(i));
        }
    }

    /** The rate of this endpoint's clock relative to true time. */
    double clockRate() {
        return clockRate;
    }

    /**
     * Called at every fabric operation: binds the endpoint to the calling process on first use and
     * returns that process, or null when called from outside the simulation.
     */
    SimProcess enter() {
        SimProcess p = fabric.simulation().current();
        if (p == null) {
            return null;
        }
        if (owner == null) {
            owner = p;
        } else if (owner != p) {
            throw new IllegalStateException("endpoint " + id + " belongs to " + owner.name() + ", not " + p.name());
        }
        p.checkAlive();
        if (closed) {
            throw new FabricException("endpoint " + id + " is closed");
        }
        return p;
    }

    SimProcess enterRequired(String what) {
        SimProcess p = enter();
        if (p == null) {
            throw new IllegalStateException(what + " is only available inside a simulated process");
        }
        return p;
    }

    SimProcess owner() {
        return owner;
    }

    boolean alive() {
        return !closed && (owner == null || !owner.crashed());
    }

    SimClock simClock() {
        return clock;
    }

    SimMailbox simMailbox() {
        return mailbox;
    }

    @Override
    public Fabric fabric() {
        return fabric;
    }

    @Override
    public EndpointId id() {
        return id;
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
        return clock;
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
        for (SimQueuePair qp : queuePairs) {
            total = total.plus(qp.counters());
        }
        return total;
    }

    @Override
    public void close() {
        closed = true;
    }
}
