package io.lockfabric.net;

import org.junit.jupiter.api.Tag;


import io.lockfabric.check.RangeExclusionContractTest;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.RangeLockProtocol;

import java.util.ArrayList;
import java.util.List;

/**
 * The range exclusion contract on the tcp fabric, for every registered range protocol: a memory
 * node in this JVM on loopback, 8 clients over TCP. Tables' services are built by the server from
 * the protocol's name (nothing is shared in-process), as for clients in other processes.
 */
@Tag("stress")
class TcpRangeExclusionTest extends RangeExclusionContractTest {
    @Override
    protected Fabric newFabric() {
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
        return TcpFabric.builder().embeddedServer(server).build();
    }

    /** Fewer cycles than local (2 000): every verb is a loopback round trip. */
    @Override
    protected int opsPerClient() {
        return 300;
    }

    /**
     * Citron's waits are sized for RDMA round trips of 5 us: T_wait 15 us must exceed two round
     * trips, and on loopback TCP with 8 clients on two cores a round trip takes tens of
     * microseconds to milliseconds, so with the defaults a notified occupier checks descendants
     * before the notification can land and aborts forever (100 001 aborts in a run). Here every
     * wait takes its default for the tcp fabric's timing ({@link TcpFabric#TIMING}).
     */
    @Override
    protected LockOptions optionsFor(RangeLockProtocol protocol, boolean fastPath) {
        if (!"citron".equals(protocol.name())) {
            return super.optionsFor(protocol, fastPath);
        }
        List<String> pairs = new ArrayList<>(List.of("units=" + UNITS, "fast-path=" + (fastPath ? 1 : 0)));
        return LockOptions.parse(pairs).on(TcpFabric.TIMING);
    }
}
