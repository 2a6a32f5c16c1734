package io.lockfabric.lock.mcs;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mcs queue lock on the deterministic simulator: FIFO order, tokens, several locks and tables. */
class McsQueueTest {
    private static final long US = 1_000;

    private static SimFabric fabric(long seed) {
        return new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(seed).build());
    }

    /**
     * Client 0 holds the lock while clients 1..7 enqueue 10 µs apart (a fetch-and-store takes
     * about 2 µs, so that is their enqueue order); the grants follow it, and each token is one
     * more than the last.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void grantsFollowEnqueueOrder(long seed) {
        try (SimFabric fabric = fabric(seed)) {
            LockProtocol mcs = LockProtocols.byName("mcs");
            List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
            List<ClientThread> threads = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                int client = c;
                Endpoint e = fabric.newEndpoint();
                LockClient locks = mcs.open(e, "fifo", 1, LockOptions.DEFAULTS);
                threads.add(fabric.spawn("c" + c, () -> {
                    e.clock().sleepNanos(client * 10 * US);
                    Grant g = locks.acquire(0, Mode.EXCLUSIVE);
                    order.add(client);
                    tokens.add(g.fencingToken());
                    e.clock().sleepNanos(client == 0 ? 200 * US : 5 * US);
                    locks.release(g);
                }));
            }
            threads.forEach(ClientThread::join);
            assertEquals(IntStream.range(0, 8).boxed().toList(), order);
            for (int i = 1; i < tokens.size(); i++) {
                assertEquals(tokens.get(i - 1) + 1, tokens.get(i), "tokens count grants: " + tokens);
            }
        }
    }

    /**
     * One client holds two locks of one table and a lock of a second table; successors queue on
     * all three, and their Successor messages arrive while it is busy. Releasing in any order
     * hands each lock to its own waiter.
     */
    @Test
    void messagesForOtherLocksAndTablesWaitTheirTurn() {
        try (SimFabric fabric = fabric(7)) {
            LockProtocol mcs = LockProtocols.byName("mcs");
            Endpoint holderEndpoint = fabric.newEndpoint();
            LockClient a = mcs.open(holderEndpoint, "a", 2, LockOptions.DEFAULTS);
            LockClient b = mcs.open(holderEndpoint, "b", 1, LockOptions.DEFAULTS);
            List<String> events = Collections.synchronizedList(new ArrayList<>());
            List<ClientThread> threads = new ArrayList<>();
            threads.add(fabric.spawn("holder", () -> {
                Grant a0 = a.acquire(0, Mode.EXCLUSIVE);
                Grant a1 = a.acquire(1, Mode.EXCLUSIVE);
                Grant b0 = b.acquire(0, Mode.EXCLUSIVE);
                holderEndpoint.clock().sleepNanos(100 * US);
                b.release(b0);
                a.release(a1);
                a.release(a0);
                events.add("holder done");
            }));
            String[][] waits = {{"a", "0"}, {"a", "1"}, {"b", "0"}};
            for (String[] w : waits) {
                Endpoint e = fabric.newEndpoint();
                LockClient c = mcs.open(e, w[0], w[0].equals("a") ? 2 : 1, LockOptions.DEFAULTS);
                long lock = Long.parseLong(w[1]);
                threads.add(fabric.spawn("w" + w[0] + w[1], () -> {
                    e.clock().sleepNanos(20 * US);
                    Grant g = c.acquire(lock, Mode.EXCLUSIVE);
                    events.add(w[0] + lock + " granted at " + fabric.observerNanoTime() / US);
                    c.release(g);
                }));
            }
            threads.forEach(ClientThread::join);
            assertEquals(4, events.size(), events.toString());
            assertTrue(events.stream().filter(s -> s.contains("granted")).allMatch(s -> granted(s) >= 100), events.toString());
        }
    }

    private static long granted(String event) {
        return Long.parseLong(event.substring(event.lastIndexOf(' ') + 1));
    }

    /** The contract stress with one hot lock and many clients on the simulator. */
    @Test
    void sixteenClientsOnOneLock() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(4).clientsPerComputeNode(4).seed(5).build())) {
            var result = LockStress.run(fabric, LockProtocols.byName("mcs"), LockStress.Config.of(16, 1, 0, 0, 300));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(16 * 300, result.exclusiveGrants());
        }
    }
}
