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
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Compute-node core sharing ({@link SimConfig#cnCores()}): clients' CPU work takes turns on a node's cores. */
class ComputeNodeCoresTest {
    private static final int CLIENTS = 32;
    /** CPU per verb far above everything else a verb costs: the clients are CPU-bound. */
    private static final long CPU_NS = 10_000;
    private static final long WINDOW_NS = 2_000_000;

    /**
     * One compute node of 32 clients, {@code cores} cores (0: not modelled), a network and NICs that
     * take (next to) no time: every client's loop is CPU-bound.
     */
    private static SimConfig cpuBound(int cores, long seed) {
        return SimConfig.builder().computeNodes(1).clientsPerComputeNode(CLIENTS).seed(seed).clientVerbCpuNs(CPU_NS)
                .clientMessageCpuNs(CPU_NS).networkOneWayNs(0).networkJitterNs(0).cnMessageOneWayNs(0)
                .intraCnMessageNs(0).cnNicServiceNs(0).cnCores(cores).build();
    }

    /** Per client, the READs (even clients) or messages to the next client (odd ones) done in the window. */
    private static long[] run(SimConfig cfg) {
        try (SimFabric fabric = new SimFabric(cfg)) {
            long end = fabric.observerNanoTime() + WINDOW_NS;
            long[] done = new long[CLIENTS];
            List<Endpoint> endpoints = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                endpoints.add(fabric.newEndpoint());
            }
            List<ClientThread> threads = new ArrayList<>();
            AtomicLong received = new AtomicLong();
            for (int i = 0; i < CLIENTS; i++) {
                int me = i;
                Endpoint e = endpoints.get(i);
                Table t = e.openTable(new TableSpec("words", "test", 1, 8L * CLIENTS));
                threads.add(fabric.spawn("c" + i, () -> {
                    while (fabric.observerNanoTime() < end) {
                        if (me % 2 == 0) {
                            e.queuePair(0).read(t.address() + 8L * me, 8);
                        } else {
                            e.mailbox().send(endpoints.get((me + 1) % CLIENTS).id(), 0, 1, me, 0, 0);
                        }
                        done[me]++;
                        while (e.mailbox().poll() != null) {
                            received.incrementAndGet();
                        }
                    }
                }));
            }
            fabric.runUntil(() -> false, end, "window");
            threads.forEach(ClientThread::join);
            return done;
        }
    }

    private static long sum(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return s;
    }

    @Test
    void asManyCoresAsClientsIsTheModelWithoutCores() {
        assertEquals(java.util.Arrays.toString(run(cpuBound(0, 7))), java.util.Arrays.toString(run(cpuBound(CLIENTS, 7))));
    }

    @Test
    void halfTheCoresHalveCpuBoundThroughput() {
        long full = sum(run(cpuBound(CLIENTS, 7)));
        long half = sum(run(cpuBound(CLIENTS / 2, 7)));
        double ratio = (double) half / full;
        assertTrue(ratio > 0.45 && ratio < 0.55, "16 of 32 cores: " + half + " vs " + full + " ops, ratio " + ratio);
        long[] perClient = run(cpuBound(CLIENTS / 2, 7));
        for (long v : perClient) {
            assertTrue(v > 0, "every client gets turns");
        }
    }

    @Test
    void sameSeedSameRunAndTheDefaultIsOff() {
        assertEquals(java.util.Arrays.toString(run(cpuBound(16, 11))), java.util.Arrays.toString(run(cpuBound(16, 11))));
        assertNotEquals(java.util.Arrays.toString(run(cpuBound(16, 11))), java.util.Arrays.toString(run(cpuBound(0, 11))));
        assertEquals(SimConfig.DEFAULT_CN_CORES, SimConfig.defaults().cnCores());
        assertEquals(0, SimConfig.defaults().cnCores());
    }

    @Test
    void negativeCoresAreRefused() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> SimConfig.builder().cnCores(-1).build());
    }
}
