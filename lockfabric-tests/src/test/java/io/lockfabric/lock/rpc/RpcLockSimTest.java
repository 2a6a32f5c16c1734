package io.lockfabric.lock.rpc;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;
import io.lockfabric.sim.SimulationStuckException;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.lockfabric.lock.Mode.EXCLUSIVE;
import static io.lockfabric.lock.Mode.SHARED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code rpc} server-side lock manager in virtual time: FIFO grants across clients, the memory
 * node's CPU as the bottleneck, the retry-on-fail variant under the checker, and the documented
 * consequence of a crashed waiter.
 */
@Timeout(120)
class RpcLockSimTest {
    private static final LockProtocol RPC = LockProtocols.byName("rpc");
    private static final LockOptions RETRY_ON_FAIL = LockOptions.of(Map.of("retry-on-fail", 1L));

    /** One client's grant: who, in which mode, with which token, when (true time). */
    private record Granted(int client, Mode mode, long token, long grantedAt, long releasedAt) {
    }

    /**
     * Client 0 holds lock 0; clients 1..7 ask for it 5 µs apart (far more than the network jitter)
     * in the modes below. The server must grant in arrival order: the two readers behind writer 1
     * together, and reader 5 not with them, because writer 4 queued between.
     */
    @Test
    void grantsFollowArrivalOrderAcrossClientsAndComputeNodes() {
        Mode[] modes = {EXCLUSIVE, EXCLUSIVE, SHARED, SHARED, EXCLUSIVE, SHARED, EXCLUSIVE, SHARED};
        SimConfig cfg = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(5).build();
        try (SimFabric fabric = new SimFabric(cfg)) {
            List<Granted> log = new ArrayList<>();
            List<ClientThread> threads = new ArrayList<>();
            for (int c = 0; c < modes.length; c++) {
                int client = c;
                Endpoint e = fabric.newEndpoint();
                LockClient locks = RPC.open(e, "fifo", 4, LockOptions.DEFAULTS);
                threads.add(fabric.spawn("client-" + c, () -> {
                    e.clock().sleepNanos(client * 5_000L);
                    Grant g = locks.acquire(0, modes[client]);
                    long at = fabric.observerNanoTime();
                    // the first holder keeps the lock until every request is queued
                    e.clock().sleepNanos(client == 0 ? 100_000 : 10_000);
                    long releasing = fabric.observerNanoTime();
                    locks.release(g);
                    log.add(new Granted(client, g.mode(), g.fencingToken(), at, releasing));
                }));
            }
            threads.forEach(ClientThread::join);
            log.sort(Comparator.comparingLong(Granted::grantedAt));
            List<Integer> order = log.stream().map(Granted::client).toList();
            List<Long> tokens = log.stream().map(Granted::token).toList();
            assertTrue(order.equals(List.of(0, 1, 2, 3, 4, 5, 6, 7)) || order.equals(List.of(0, 1, 3, 2, 4, 5, 6, 7)),
                    "grants in arrival order (readers 2 and 3 in one batch): " + order);
            assertEquals(List.of(1L, 2L, 2L, 2L, 3L, 3L, 4L, 4L), tokens, "exclusive grants count up; readers share");
            Granted r2 = find(log, 2);
            Granted r3 = find(log, 3);
            assertTrue(r2.grantedAt() < r3.releasedAt() && r3.grantedAt() < r2.releasedAt(),
                    "readers 2 and 3 hold the lock together");
            assertTrue(find(log, 5).grantedAt() > find(log, 4).releasedAt(),
                    "reader 5 is not granted with readers 2 and 3: writer 4 queued before it");
            for (int i = 1; i < log.size(); i++) {
                Granted prev = log.get(i - 1);
                Granted next = log.get(i);
                if (prev.mode() == EXCLUSIVE || next.mode() == EXCLUSIVE) {
                    assertTrue(next.grantedAt() > prev.releasedAt(), "no overlap with a writer: " + prev + " " + next);
                }
            }
            assertEquals(2L * modes.length, fabric.memoryNodeCounters(0).ops(VerbKind.RPC),
                    "no retries: one rpc to acquire, one to release");
        }
    }

    private static Granted find(List<Granted> log, int client) {
        return log.stream().filter(g -> g.client() == client).findFirst().orElseThrow();
    }

    /** Virtual time for {@code clients} clients on private locks to do {@code cycles} cycles each. */
    private static long uncontendedRun(int cores, int clients, int cycles, CounterSnapshot[] mnOut) {
        SimConfig cfg = SimConfig.builder().computeNodes(2).clientsPerComputeNode(clients / 2).seed(3)
                .mnCpuCores(cores).rpcServiceNs(2_000).build();
        try (SimFabric fabric = new SimFabric(cfg)) {
            List<ClientThread> threads = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int lock = c;
                Endpoint e = fabric.newEndpoint();
                LockClient locks = RPC.open(e, "cpu", clients, LockOptions.DEFAULTS);
                threads.add(fabric.spawn("client-" + c, () -> {
                    for (int i = 0; i < cycles; i++) {
                        locks.release(locks.acquire(lock, EXCLUSIVE));
                    }
                }));
            }
            threads.forEach(ClientThread::join);
            mnOut[0] = fabric.memoryNodeCounters(0);
            return fabric.observerNanoTime();
        }
    }

    /**
     * Clients on private locks never conflict, yet throughput is set by the memory node's CPU: every
     * lock operation is an rpc it serves (2 µs each here), so the run takes rpcs × 2 µs / cores, and
     * more cores make it proportionally faster. The NIC serves no one-sided verb at all.
     */
    @Test
    void theMemoryNodesCpuIsTheBottleneck() {
        int clients = 16;
        int cycles = 200;
        long rpcs = 2L * clients * cycles;
        CounterSnapshot[] mn = new CounterSnapshot[1];

        long oneCore = uncontendedRun(1, clients, cycles, mn);
        assertEquals(rpcs, mn[0].ops(VerbKind.RPC), "every acquire and release is one rpc at the memory node");
        assertEquals(0, mn[0].oneSidedOps(), "no one-sided verb reaches the memory node's NIC");
        long cpuBound = rpcs * 2_000;
        assertTrue(oneCore >= cpuBound, "cannot beat the CPU: " + oneCore + " < " + cpuBound);
        assertTrue(oneCore < cpuBound * 1.05, "the one core is busy all the time: " + oneCore + " vs " + cpuBound);

        long fourCores = uncontendedRun(4, clients, cycles, mn);
        assertTrue(fourCores >= cpuBound / 4, "four cores: " + fourCores);
        double speedup = (double) oneCore / fourCores;
        assertTrue(speedup > 3.5, "throughput scales with the memory node's cores: speedup " + speedup);

        assertEquals(oneCore, uncontendedRun(1, clients, cycles, mn), "deterministic: same seed, same virtual time");
    }

    static Stream<LockOptions> retryVariants() {
        return Stream.of(RETRY_ON_FAIL, LockOptions.of(Map.of("retry-on-fail", 1L, "backoff-init-ns", 0L)));
    }

    /** The retry-on-fail variant under the contract's checker, on the contract's simulated cluster. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("retryVariants")
    void retryOnFailPassesTheMutualExclusionStress(LockOptions options) {
        SimConfig cfg = SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(11).build();
        try (SimFabric fabric = new SimFabric(cfg)) {
            var result = LockStress.run(fabric, RPC, LockStress.Config.of(8, 16, 0.99, 0.5, 2_000).withOptions(options));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(8L * 2_000, result.holds().size());
            assertTrue(result.sharedGrants() > 0);
            assertTrue(result.stats().retries() > 0, "hot locks make clients retry");
            assertEquals(2 * result.holds().size() + result.stats().retries(),
                    fabric.memoryNodeCounters(0).ops(VerbKind.RPC), "every retry is one more rpc for the memory node's CPU");
        }
        try (SimFabric fabric = new SimFabric(cfg)) {
            var result = LockStress.run(fabric, RPC, LockStress.Config.of(4, 1, 0, 0, 500).withOptions(options));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(result.holds().size(), result.exclusiveGrants());
        }
    }

    /**
     * The documented failure model: the server cannot tell that a queued waiter crashed, so the
     * release grants the lock to the dead waiter and the next waiter waits forever.
     */
    @Test
    void aCrashedWaiterIsGrantedTheLockAndBlocksIt() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().seed(2).build())) {
            fabric.simulation().timeLimitNs(50_000_000);
            Endpoint a = fabric.newEndpoint();
            Endpoint b = fabric.newEndpoint();
            Endpoint c = fabric.newEndpoint();
            LockClient ca = RPC.open(a, "l", 1, LockOptions.DEFAULTS);
            LockClient cb = RPC.open(b, "l", 1, LockOptions.DEFAULTS);
            LockClient cc = RPC.open(c, "l", 1, LockOptions.DEFAULTS);
            ClientThread holder = fabric.spawn("holder", () -> {
                Grant g = ca.acquire(0, EXCLUSIVE);
                a.clock().sleepNanos(100_000);
                ca.release(g);
            });
            SimProcess crashing = (SimProcess) fabric.spawn("crashing-waiter", () -> {
                b.clock().sleepNanos(10_000);
                cb.release(cb.acquire(0, EXCLUSIVE));
            });
            fabric.crashAt(crashing, 50_000);
            ClientThread waiter = fabric.spawn("waiter", () -> {
                c.clock().sleepNanos(20_000);
                cc.release(cc.acquire(0, EXCLUSIVE));
            });
            holder.join();
            assertThrows(SimulationStuckException.class, waiter::join, "no recovery: that is the rpc baseline");
            assertTrue(crashing.crashed());
        }
    }
}
