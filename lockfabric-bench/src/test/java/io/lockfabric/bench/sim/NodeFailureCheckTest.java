package io.lockfabric.bench.sim;

import io.lockfabric.bench.BenchmarkFailedException;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.fabric.MemoryNodeRestartedException;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.FaultPlan;
import io.lockfabric.sim.SimConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutual exclusion (and fencing order) checked across a compute-node crash and a memory-node
 * restart, on several seeds, for the protocols that recover from both (DecLock: Appendix B); a
 * protocol that does not recover from a restart fails the run with the restart as its cause,
 * never granting twice. Small contended runs: 3 CNs x 3 clients on 4 locks, the locks on memory node
 * 0 (which restarts), the critical sections' data on memory node 1.
 */
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeFailureCheckTest {
    private static final SimConfig CLUSTER = SimConfig.builder().computeNodes(3).clientsPerComputeNode(3)
            .memoryNodes(2).build();
    /**
     * The outage is shorter than a critical section (cs 100: some 250 us of READs or WRITEs on memory
     * node 1), so holders of the lost generation are still in their critical sections when the node
     * is back: only the clients' wait of a lease keeps the new generation's grants clear of them.
     */
    private static final FaultPlan FAULTS = FaultPlan.parse("cn-crash@2ms,mn-restart@4ms:50us:0,pause");
    private static final long[] SEEDS = {1, 2, 3, 4};

    private static SimCheck<LockProtocol> check(String protocol, String... options) {
        PointWorkload w = PointWorkload.builder().clients(CLUSTER.clients()).locks(4).readRatio(0.3).cs(100)
                .warmupNs(200_000).durationNs(10_000_000).seed(1).options(ProtocolOptions.parse(List.of(options)))
                .build();
        return new SimCheck<>(CLUSTER, w, FAULTS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"declock-tf", "declock-pf", "cql"})
    void exclusionHoldsAcrossTheRestartAndEveryLiveClientGoesOn(String protocol) {
        SimCheck<LockProtocol> check = check(protocol, protocol + ".timeout-ns=2ms", protocol + ".lease-ns=2ms");
        for (long seed : SEEDS) {
            RunResult r = check.run(LockProtocols.byName(protocol), seed);
            assertTrue(r.correct(), protocol + " seed " + seed + ": " + r.violations());
            assertEquals(3, r.faults().crashedClients().size(), "one compute node of 3 clients crashed");
            assertTrue(r.faults().stuckClients().isEmpty(), protocol + " seed " + seed + " stuck: "
                    + r.faults().stuckClients());
            assertTrue(r.measuredOps() > 20, protocol + " seed " + seed + ": " + r.measuredOps() + " ops");
        }
    }

    @Test
    void aProtocolThatCannotRecoverFailsTheRunWithTheRestartAsItsCause() {
        BenchmarkFailedException e = assertThrows(BenchmarkFailedException.class,
                () -> check("cas").run(LockProtocols.byName("cas"), 1));
        assertInstanceOf(MemoryNodeRestartedException.class, e.getCause(), e.getMessage());
    }
}
