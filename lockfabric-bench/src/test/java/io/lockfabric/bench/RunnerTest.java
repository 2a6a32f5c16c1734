package io.lockfabric.bench;

import io.lockfabric.bench.point.PointWorkload;

import io.lockfabric.fabric.VerbKind;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.juc.JucProtocol;
import io.lockfabric.protocols.LockProtocols;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class RunnerTest {
    private static final long OPS = 2_000;

    static List<LockProtocol> protocols() {
        return LockProtocols.all();
    }

    private static PointWorkload small() {
        return PointWorkload.builder().clients(4).locks(16).operations(OPS).warmupNs(0).check(true).seed(9).build();
    }

    /**
     * DrTM's readers never release: one must finish within {@code tx-time} of its grant or a writer
     * takes the lock at the lease's end. The paper's 500 us is far below how long a thread of this
     * shared 2-core machine can be descheduled (a reader once held 5.3 ms here and a writer came in):
     * the lease hazard, not a bug, so drtm runs here with leases it can keep (the tcp fabric's).
     */
    private static PointWorkload smallFor(LockProtocol protocol) {
        if (!"drtm".equals(protocol.name())) {
            return small();
        }
        return PointWorkload.builder().clients(4).locks(16).operations(OPS).warmupNs(0).check(true).seed(9)
                .options(ProtocolOptions.parse(List.of("lease-ns=20ms", "tx-time-ns=15ms"))).build();
    }

    private static Runner quietRunner(LocalFabric fabric) {
        return new Runner(RunDriver.threads(fabric), false, new PrintStream(OutputStream.nullOutputStream()));
    }

    @ParameterizedTest
    @MethodSource("protocols")
    void everyProtocolRunsCleanly(LockProtocol protocol) {
        try (LocalFabric fabric = LocalFabric.builder().seed(1).build()) {
            RunResult r = quietRunner(fabric).run(protocol, smallFor(protocol));
            assertEquals(OPS, r.measuredOps());
            assertTrue(r.goodput() > 0, "goodput " + r.goodput());
            assertTrue(r.check().enabled());
            assertTrue(r.check().clean(), () -> r.check().violations().toString());
            assertEquals(OPS, r.check().holds(), "no warmup: every hold is a measured one");
            assertEquals(OPS, r.operationLatency().count());
            assertEquals(OPS, r.acquireLatency().count());
            // Each operation contains its acquire, so every percentile of the one bounds the other's.
            assertTrue(r.operationLatency().p50Us() >= r.acquireLatency().p50Us());
            assertTrue(r.operationLatency().p99Us() >= r.acquireLatency().p99Us());
            assertTrue(r.operationLatency().p50Us() > 0);
            assertTrue(r.crossCheck().agree(), "client and memory-node counts differ: " + r.crossCheck());
            if (protocol.requiresInProcessFabric()) {
                return;
            }
            assertTrue(r.lockOpsPerCycle().oneSided() + r.lockOpsPerCycle().get(VerbKind.RPC) > 0,
                    "a remote protocol issues remote operations: " + r.lockOpsPerCycle());
        }
    }

    @Test
    void jucIssuesNoRemoteOperationsAndCsIsExact() {
        PointWorkload config = small().toBuilder().cs(2).readRatio(0).build();
        try (LocalFabric fabric = LocalFabric.builder().seed(1).build()) {
            RunResult r = quietRunner(fabric).run(LockProtocols.byName(JucProtocol.NAME), config);
            for (VerbKind k : VerbKind.values()) {
                assertEquals(0.0, r.lockOpsPerCycle().get(k), "juc " + k.label());
            }
            // 2 data WRITEs + the guarded counter's READ + WRITE per exclusive cycle.
            assertEquals(3.0, r.csOpsPerCycle().get(VerbKind.WRITE), 1e-12);
            assertEquals(1.0, r.csOpsPerCycle().get(VerbKind.READ), 1e-12);
            assertEquals(0.0, r.csOpsPerCycle().get(VerbKind.CAS));
            assertEquals(OPS, r.check().exclusiveGrants());
            // The memory node served exactly the runner's operations (plus nothing from juc).
            assertEquals(4 * OPS, r.crossCheck().memoryNodeOps());
        }
    }

    @Test
    void readOnlyWithoutCheckReadsOnly() {
        PointWorkload config = small().toBuilder().cs(3).readRatio(1).check(false).build();
        try (LocalFabric fabric = LocalFabric.builder().seed(1).build()) {
            RunResult r = quietRunner(fabric).run(LockProtocols.byName(JucProtocol.NAME), config);
            assertEquals(3.0, r.csOpsPerCycle().get(VerbKind.READ), 1e-12);
            assertEquals(0.0, r.csOpsPerCycle().get(VerbKind.WRITE));
            assertEquals(CheckResult.DISABLED, r.check());
        }
    }

    @Test
    void durationRunMeasuresAboutTheDuration() {
        long durationNs = 300_000_000L;
        PointWorkload config = PointWorkload.builder().clients(2).locks(100).durationNs(durationNs)
                .warmupNs(100_000_000L).build();
        try (LocalFabric fabric = LocalFabric.builder().seed(1).build()) {
            RunResult r = quietRunner(fabric).run(LockProtocols.byName(JucProtocol.NAME), config);
            assertTrue(r.measuredOps() > 0);
            assertTrue(r.measuredNs() >= durationNs * 9 / 10 && r.measuredNs() < durationNs * 3,
                    "measured " + r.measuredNs() + " ns");
            assertEquals(r.measuredOps() / r.measuredSeconds(), r.goodput(), 1e-6 * r.goodput());
        }
    }

    @Test
    void twoRunsOnOneFabricDoNotInterfere() {
        try (LocalFabric fabric = LocalFabric.builder().seed(1).build()) {
            Runner runner = quietRunner(fabric);
            LockProtocol juc = LockProtocols.byName(JucProtocol.NAME);
            assertTrue(runner.run(juc, small()).check().clean());
            RunResult second = runner.run(juc, small());
            assertTrue(second.check().clean(), () -> second.check().violations().toString());
        }
    }
}
