package io.lockfabric.net;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.VerbContractTest;

/**
 * The verb contract on a tcp fabric built for virtual threads ({@link TcpFabric.Builder#virtualThreads}):
 * each connection's reader thread brings every reply, and the test's own (platform) threads park
 * for theirs instead of reading, so the contract holds for a platform caller of such a fabric too;
 * its clients spawned through the fabric are virtual threads.
 */
class TcpVirtualThreadsVerbContractTest extends VerbContractTest {
    @Override
    protected Fabric newFabric() {
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
        return TcpFabric.builder().embeddedServer(server).shareServicesWithEmbeddedServer().virtualThreads(true).build();
    }
}
