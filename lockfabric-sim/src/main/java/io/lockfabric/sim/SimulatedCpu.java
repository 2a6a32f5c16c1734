package io.lockfabric.sim;

/**
 * The memory node's CPU for rpcs: {@code mnCpuCores} cores, {@code rpcServiceNs} per request;
 * nothing starts while the memory node is paused.
 */
final class SimulatedCpu {
    private final long[] coreFreeAt;
    private final long serviceNs;
    private final PauseWindows pauses;

    SimulatedCpu(SimConfig config, PauseWindows pauses) {
        this.coreFreeAt = new long[config.mnCpuCores()];
        this.serviceNs = config.rpcServiceNs();
        this.pauses = pauses;
    }

    /** Admits a request arriving at {@code arrival}; returns when its handler runs. */
    long admit(long arrival) {
        int core = 0;
        for (int i = 1; i < coreFreeAt.length; i++) {
            if (coreFreeAt[i] < coreFreeAt[core]) {
                core = i;
            }
        }
        long finish = pauses.firstFreeAt(Math.max(arrival, coreFreeAt[core])) + serviceNs;
        coreFreeAt[core] = finish;
        return finish;
    }
}
