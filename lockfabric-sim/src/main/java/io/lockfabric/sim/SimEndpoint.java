package io.lockfabric.sim;

import io.lockfabric.fabric.Attachments;
import io.lockfabric.fabric.CountingEndpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;

/**
 * A simulated client endpoint. It is bound to the first simulated process that uses it (or to the
 * one that {@linkplain #adopt adopts} it); a crash of that process kills the endpoint (sends to it
 * fail, messages to it are lost).
 */
final class SimEndpoint extends CountingEndpoint {
    private final SimFabric fabric;
    private final SimMailbox mailbox;
    private final double clockRate;
    private SimProcess owner;
    private boolean closed;
    /** Per memory node: the generation this endpoint's queue pair to it is connected to. */
    private final long[] connected;

    /** @param computeNode the attachments of the simulated compute node {@code id.node()} */
    SimEndpoint(SimFabric fabric, EndpointId id, int ordinal, double clockRate, long seed, Attachments computeNode) {
        super(fabric, id, ordinal, new SimClock(fabric, clockRate), seed, computeNode);
        this.clockRate = clockRate;
        this.fabric = fabric;
        this.mailbox = new SimMailbox(fabric, this);
        SimQueuePair[] queuePairs = new SimQueuePair[fabric.memoryNodes()];
        for (int i = 0; i < queuePairs.length; i++) {
            queuePairs[i] = new SimQueuePair(fabric, this, fabric.memoryNode(i), fabric.nic(i), fabric.cpu(i));
        }
        connect(mailbox, queuePairs);
        this.connected = new long[fabric.memoryNodes()];
    }

    /** The generation of memory node {@code mn} that this endpoint's queue pair to it is connected to. */
    long connectedGeneration(int mn) {
        return connected[mn];
    }

    /** The failure detector's view: see {@link SimFabric#restartMemoryNodeAt}. */
    @Override
    public long memoryNodeGeneration(int memoryNode) {
        return fabric.memoryNodeGeneration(memoryNode);
    }

    /**
     * Reconnects to a restarted memory node after a round trip (the connection's handshake);
     * fails if the node is down then.
     */
    @Override
    public void reconnect(int memoryNode) {
        fabric.memoryNode(memoryNode);
        if (enter() != null) {
            fabric.sleepTrue(2 * fabric.config().networkOneWayNs());
        }
        var failure = fabric.memoryNodeFailure(memoryNode, fabric.memoryNodeGeneration(memoryNode));
        if (failure != null) {
            throw failure;
        }
        connected[memoryNode] = fabric.memoryNodeGeneration(memoryNode);
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
            throw new IllegalStateException("endpoint " + id() + " belongs to " + owner.name() + ", not " + p.name());
        }
        p.checkAlive();
        if (closed) {
            throw new FabricException("endpoint " + id() + " is closed");
        }
        return p;
    }

    /**
     * Binds the endpoint to the calling process, which takes it over between two uses (the client
     * API's pool), unless it is dead: a crash of its owner killed it for good.
     */
    @Override
    public void adopt() {
        SimProcess p = fabric.simulation().current();
        if (p == null || p == owner || owner != null && owner.crashed()) {
            return;
        }
        owner = p;
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
        return (SimClock) clock();
    }

    SimMailbox simMailbox() {
        return mailbox;
    }

    @Override
    public Table openTable(TableSpec spec) {
        return fabric.memoryNode(spec.memoryNode()).openTable(spec);
    }

    @Override
    public void close() {
        closed = true;
    }
}
