package io.lockfabric.sim;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RpcTransport}: off by default, its costs land on each rpc as modelled (server CPU twice per rpc,
 * extra latency each way), and the memory node's CPU records queueing only when asked.
 */
class RpcTransportTest {
    /** Mean virtual time of an rpc to an echo service over {@code rpcs} calls by each of {@code clients}. */
    private static long[] run(SimConfig cfg, int rpcs, boolean record) {
        try (SimFabric fabric = new SimFabric(cfg)) {
            if (record) {
                fabric.recordRpcQueueing(0);
            }
            AtomicLong total = new AtomicLong();
            List<ClientThread> threads = new ArrayList<>();
            for (int i = 0; i < cfg.clients(); i++) {
                Endpoint e = fabric.newEndpoint();
                Table t = e.openTable(new TableSpec("echo", "test", 1, 8).withService(host -> call -> call.reply(call.request())));
                threads.add(fabric.spawn("c" + i, () -> {
                    for (int k = 0; k < rpcs; k++) {
                        long start = fabric.observerNanoTime();
                        e.queuePair(0).rpc(t.service(), new byte[8]);
                        total.addAndGet(fabric.observerNanoTime() - start);
                    }
                }));
            }
            threads.forEach(ClientThread::join);
            long[] waits = record ? fabric.rpcQueueingNs(0) : new long[0];
            long[] out = new long[1 + waits.length];
            out[0] = total.get() / ((long) rpcs * cfg.clients());
            System.arraycopy(waits, 0, out, 1, waits.length);
            return out;
        }
    }

    private static SimConfig one(RpcTransport transport) {
        return SimConfig.builder().computeNodes(1).clientsPerComputeNode(1).networkJitterNs(0).rpcTransport(transport)
                .seed(5).build();
    }

    @Test
    void nativeIsTheDefaultAndAddsNothing() {
        assertEquals(RpcTransport.NATIVE, SimConfig.defaults().rpcTransport());
        assertTrue(RpcTransport.NATIVE.isNative());
        assertEquals(run(SimConfig.builder().computeNodes(1).clientsPerComputeNode(1).networkJitterNs(0).seed(5).build(),
                20, false)[0], run(one(RpcTransport.NATIVE), 20, false)[0]);
    }

    @Test
    void transportCostsLandOnEachRpc() {
        long plain = run(one(RpcTransport.NATIVE), 20, false)[0];
        long tcp = run(one(RpcTransport.TCP), 20, false)[0];
        long sr = run(one(RpcTransport.SEND_RECV), 20, false)[0];
        assertEquals(plain + 2 * RpcTransport.TCP.serverCpuNsPerMessage() + 2 * RpcTransport.TCP.extraOneWayNs(), tcp);
        assertEquals(plain + 2 * RpcTransport.SEND_RECV.serverCpuNsPerMessage(), sr);
        assertThrows(IllegalArgumentException.class, () -> new RpcTransport("x", -1, 0));
    }

    @Test
    void queueingIsRecordedOnRequestAndGrowsWithClients() {
        long[] alone = run(one(RpcTransport.ERPC), 10, true);
        assertEquals(10, alone.length - 1, "one record per rpc");
        for (int i = 1; i < alone.length; i++) {
            assertEquals(0, alone[i], "a lone client never waits for the CPU");
        }
        SimConfig crowd = SimConfig.builder().computeNodes(1).clientsPerComputeNode(32).mnCpuCores(1).rpcServiceNs(100)
                .rpcTransport(RpcTransport.ERPC).seed(5).build();
        long[] many = run(crowd, 50, true);
        double mean = 0;
        for (int i = 1; i < many.length; i++) {
            mean += many[i];
        }
        mean /= many.length - 1;
        assertTrue(mean > 1_000, "32 clients on one core queue over a microsecond: " + mean);
    }
}
