package io.lockfabric.sim;

/**
 * The CPU cores of one compute node when core sharing is modelled ({@code cnCores} &gt; 0): the
 * node's clients run as coroutines on {@code cnCores} cores, so a client's CPU work (posting a verb,
 * {@code clientVerbCpuNs}; sending a message, {@code clientMessageCpuNs}) waits for a core and then
 * holds it for its duration. A client waiting (a verb in flight, a sleep, a message) holds no core.
 * Work is admitted in call order (the simulation's order, so deterministic), each piece on the core
 * free earliest (the lowest-numbered of equals). With {@code cnCores} = 0 there is no queue: work
 * ends its duration after it is ready (every client on a core of its own, the simulator's model
 * before core sharing). Driver thread only.
 */
final class ComputeNodeCores {
    private final long[] coreFreeAt;

    ComputeNodeCores(SimConfig config) {
        this.coreFreeAt = new long[config.cnCores()];
    }

    /** When CPU work of {@code cpuNs}, ready at {@code readyAt}, ends. */
    long run(long readyAt, long cpuNs) {
        if (coreFreeAt.length == 0) {
            return readyAt + cpuNs;
        }
        int core = 0;
        for (int i = 1; i < coreFreeAt.length; i++) {
            if (coreFreeAt[i] < coreFreeAt[core]) {
                core = i;
            }
        }
        long finish = Math.max(readyAt, coreFreeAt[core]) + cpuNs;
        coreFreeAt[core] = finish;
        return finish;
    }
}
