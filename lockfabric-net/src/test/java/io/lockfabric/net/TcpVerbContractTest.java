package io.lockfabric.net;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.VerbContractTest;

/**
 * The verb contract on the tcp fabric: a memory-node server in this JVM on a loopback port, the
 * test's endpoints its TCP clients, messages between them over their own TCP connections. The
 * test's own rpc services (echo, deferred replies) are handed to the server in-process.
 */
class TcpVerbContractTest extends VerbContractTest {
    @Override
    protected Fabric newFabric() {
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
        return TcpFabric.builder().embeddedServer(server).shareServicesWithEmbeddedServer().build();
    }
}
