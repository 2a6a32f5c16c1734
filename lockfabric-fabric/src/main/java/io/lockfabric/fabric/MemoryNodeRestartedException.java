package io.lockfabric.fabric;

import java.io.Serial;

/**
 * A verb failed because its memory node failed: it is down now ({@link #down()}), or it restarted
 * since this endpoint's queue pair to it was connected, and a queue pair to a restarted node stays
 * in the error state until the endpoint {@linkplain Endpoint#reconnect reconnects} (an RDMA RC
 * queue pair whose peer rebooted does the same). The node came back with its memory lost: every
 * table it holds reads as zeros, so whatever a protocol kept there (lock words, queues, members)
 * is gone. {@link #generation()} is the node's generation after the failure (how many times it
 * has restarted). Only the simulator's {@code mn-restart} fault raises it.
 */
public final class MemoryNodeRestartedException extends FabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int memoryNode;
    private final long generation;
    private final boolean down;

    public MemoryNodeRestartedException(int memoryNode, long generation, boolean down) {
        super("memory node " + memoryNode + (down ? " is down (restarting, generation " + generation + ")"
                : " restarted (generation " + generation + ") with its memory lost; reconnect to use it again"));
        this.memoryNode = memoryNode;
        this.generation = generation;
        this.down = down;
    }

    public int memoryNode() {
        return memoryNode;
    }

    /** The memory node's generation: the number of times it has restarted. */
    public long generation() {
        return generation;
    }

    /** Whether the node is still down (a reconnect fails too until it is back). */
    public boolean down() {
        return down;
    }
}
