package io.lockfabric.net;

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
     * Leases long enough for clients stalled in real time: 8 clients, their I/O threads and the
     * server's share two cores here, and a holder whose thread waits out a few scheduler quanta
     * (tens of milliseconds) must not be taken for crashed. DrTM's readers must finish within
     * {@code tx-time}; ShiftLock's and DSLR's waiters recover a lock stuck for 3 or 2 leases (10 ms
     * by default, which runs here overran: holds of 55 and 110 ms with the machine's load at 14).
     */
    @Override
    protected LockOptions optionsFor(LockProtocol protocol) {
        return switch (protocol.name()) {
            case "drtm" -> LockOptions.parse(List.of("lease-ns=20ms", "tx-time-ns=15ms"));
            case "shiftlock", "dslr" -> LockOptions.parse(List.of("lease-ns=200ms"));
            // a waiter that waits out timeout-ns takes its node for dead and resets the lock: with
            // round trips of up to milliseconds here, the 10 ms default resets dozens of times a run
            case "cql", "declock-tf", "declock-pf" -> LockOptions.parse(List.of("timeout-ns=200ms", "lease-ns=400ms"));
            default -> LockOptions.DEFAULTS;
        };
    }

    @Override
    protected int opsPerClient(LockProtocol protocol) {
        return "drtm".equals(protocol.name()) ? opsPerClient() / 4 : opsPerClient();
    }
}
