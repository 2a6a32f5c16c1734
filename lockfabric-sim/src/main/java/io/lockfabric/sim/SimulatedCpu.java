package io.lockfabric.sim;

import java.util.Arrays;

/**
 * The memory node's CPU for rpcs: {@code mnCpuCores} cores, {@code rpcServiceNs} per request plus the
 * {@link RpcTransport}'s server CPU for the request and its reply; nothing starts while the memory node
 * is paused. On request ({@link #recordQueueing}) it records each request's queueing time, from its
 * arrival at the memory node to the moment a core starts on it (CITRON §2.2's "server-side queueing
 * latency").
 */
final class SimulatedCpu {
    private final long[] coreFreeAt;
    private final long serviceNs;
    private final PauseWindows pauses;
    private long recordFromNs = -1;
    private long[] waits = new long[0];
    private int recorded;

    SimulatedCpu(SimConfig config, PauseWindows pauses) {
        this.coreFreeAt = new long[config.mnCpuCores()];
        this.serviceNs = config.rpcServiceNs() + 2 * config.rpcTransport().serverCpuNsPerMessage();
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
        long start = pauses.firstFreeAt(Math.max(arrival, coreFreeAt[core]));
        long finish = start + serviceNs;
        coreFreeAt[core] = finish;
        if (recordFromNs >= 0 && arrival >= recordFromNs) {
            if (recorded == waits.length) {
                waits = Arrays.copyOf(waits, Math.max(1024, waits.length * 2));
            }
            waits[recorded++] = start - arrival;
        }
        return finish;
    }

    /** Records the queueing time of every request arriving at or after {@code fromNs} (drops earlier records). */
    void recordQueueing(long fromNs) {
        recordFromNs = fromNs;
        recorded = 0;
    }

    /** The queueing times recorded, in admission order. */
    long[] queueingNs() {
        return Arrays.copyOf(waits, recorded);
    }
}
