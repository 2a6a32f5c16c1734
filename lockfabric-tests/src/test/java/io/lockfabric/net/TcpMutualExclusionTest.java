package io.lockfabric.net;

import org.junit.jupiter.api.Tag;


import io.lockfabric.check.MutualExclusionContractTest;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;

import java.util.List;

/**
 * The mutual-exclusion contract on the tcp fabric: a memory-node server in this JVM on loopback,
 * 8 clients over TCP (every verb a round trip of tens of microseconds, so fewer cycles than local).
 * Tables' rpc services (rpc, shiftlock) are built by the server from the protocol's name: the
 * fabric hands it nothing.
 */
@Tag("stress")
class TcpMutualExclusionTest extends MutualExclusionContractTest {
    @Override
    protected Fabric newFabric() {
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
        return TcpFabric.builder().embeddedServer(server).build();
    }

    @Override
    protected int opsPerClient() {
        return 600;
    }

    /**
     * The defaults for the tcp fabric's timing ({@link TcpFabric#TIMING}), which are what {@code
     * lockfabric bench --fabric tcp://…} runs with: leases long enough for clients stalled in real
     * time (8 clients, their I/O threads and the server's share two cores here, and a holder whose
     * thread waits out a few scheduler quanta must not be taken for crashed). Bound explicitly, so
     * the failure model the test checks against is the one the clients run.
     */
    @Override
    protected LockOptions optionsFor(LockProtocol protocol) {
        return LockOptions.DEFAULTS.on(TcpFabric.TIMING);
    }

    @Override
    protected int opsPerClient(LockProtocol protocol) {
        return "drtm".equals(protocol.name()) ? opsPerClient() / 4 : opsPerClient();
    }
}
