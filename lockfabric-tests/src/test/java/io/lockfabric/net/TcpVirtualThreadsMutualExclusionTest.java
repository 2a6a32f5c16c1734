package io.lockfabric.net;

import io.lockfabric.fabric.Fabric;

import org.junit.jupiter.api.Tag;

/**
 * The mutual-exclusion contract on a tcp fabric built for virtual threads
 * ({@link TcpFabric.Builder#virtualThreads}): the 8 clients are virtual threads on a few carriers,
 * each connection's reader brings every reply and a flusher batches their frames. Every protocol,
 * at the tcp fabric's timing defaults as in {@link TcpMutualExclusionTest}, with fewer cycles (the
 * same protocol code; the test time is for the other fabrics).
 */
@Tag("stress")
class TcpVirtualThreadsMutualExclusionTest extends TcpMutualExclusionTest {
    @Override
    protected Fabric newFabric() {
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
        return TcpFabric.builder().embeddedServer(server).virtualThreads(true).build();
    }

    @Override
    protected int opsPerClient() {
        return 300;
    }
}
