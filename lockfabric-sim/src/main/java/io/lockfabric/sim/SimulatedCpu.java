package io.lockfabric.sim;

/** The memory node's CPU for rpcs: {@code mnCpuCores} cores, {@code rpcServiceNs} per request. */
final class SimulatedCpu {
    private final long[] coreFreeAt;
    private final long serviceNs;

    SimulatedCpu(SimConfig config) {
        this.coreFreeAt = new long[config.mnCpuCores()];
        this.serviceNs = config.rpcServiceNs();
    }

    /** Admits a request arriving at {@code arrival}; returns when its handler runs. */
    long admit(long arrival) {
        int core = 0;
        for (int i = 1; i < coreFreeAt.length; i++) {
            if (coreFreeAt[i] < coreFreeAt[core]) {
                core = i;
            }
        }
        long finish = Math.max(arrival, coreFreeAt[core]) + serviceNs;
        coreFreeAt[core] = finish;
        return finish;
    }
}
