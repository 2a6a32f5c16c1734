package io.lockfabric.net;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.InterruptibleWaitContractTest;

/**
 * Ending a client from outside, on the tcp fabric: a memory-node server in this JVM on a loopback
 * port, the test's client its TCP client (a verb's wait for its reply, a mailbox fed by the I/O
 * thread).
 */
class TcpInterruptibleWaitTest extends InterruptibleWaitContractTest {
    @Override
    protected Fabric newFabric() {
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
        return TcpFabric.builder().embeddedServer(server).shareServicesWithEmbeddedServer().build();
    }
}
